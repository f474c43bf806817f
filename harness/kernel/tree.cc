#include "kernel/tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "kernel/git.h"
#include "kernel/series_mail.h"
#include "kernel/tree_sync.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Restores the working tree to pristine + `series`. Files the previous series touched are
// restored and get a fresh mtime so that make rebuilds them in a reused O= directory.
Result<void> reset_tree(ProcessRunner& runner, const fs::path& pristine, const fs::path& work,
                        const std::optional<Series>& series, const std::string& tree_key,
                        const std::string& source_label) {
  const fs::path tree = work / "tree";
  const fs::path state_file = work / "applied.json";
  json state;
  if (auto s = read_file(state_file); s.ok()) state = json::parse(*s, nullptr, false);
  const bool have_tree = path_exists(tree / "Makefile") && state.is_object();
  if (have_tree && state.value("tree_key", "") == tree_key) return {};

  std::error_code ec;
  std::set<std::string> previously;
  if (have_tree) {
    for (const auto& f : state.value("files", std::vector<std::string>{})) previously.insert(f);
  } else {
    fs::remove_all(tree, ec);
    // Hard links are instant and patch replaces (never edits) the files it changes; a tree on
    // another filesystem gets a real copy.
    ProcessResult r =
        runner.run({.argv = {"cp", "-al", pristine.string(), tree.string()}, .capture = true});
    if (!r.ok()) {
      fs::remove_all(tree, ec);
      r = runner.run({.argv = {"cp", "-a", "--reflink=auto", pristine.string(), tree.string()},
                      .capture = true});
    }
    if (!r.ok())
      return make_error("cannot copy the source tree: " + r.describe() + "\n" + r.output);
  }
  // Mark the tree unknown until the new series is fully applied.
  fs::remove(state_file, ec);
  for (const auto& rel : previously) {
    fs::remove(tree / rel, ec);
    if (path_exists(pristine / rel)) {
      // A real copy (not a link): its mtime is now, and the pristine inode stays untouched.
      fs::copy_file(pristine / rel, tree / rel, ec);
      if (ec) {
        return make_env_error(
            fmt::format("cannot restore {} in {}: {}", rel, tree.string(), ec.message()));
      }
    }
  }
  std::vector<std::string> touched(previously.begin(), previously.end());
  if (series) {
    if (auto st = apply_series(runner, tree, *series, source_label); !st.ok()) return st;
    for (const auto& p : series->patches) {
      for (auto& f : files_touched(p.text)) touched.push_back(f);
    }
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  state = json{{"tree_key", tree_key}, {"files", touched}};
  return write_file_atomic(state_file, state.dump(2));
}

// Directory sources: the working tree mirrors the user's tree (only changed files copied, with a
// fresh mtime), then the series is applied. Patched files differ from the user's and are
// restored by the next sync.
Result<void> sync_directory_tree(ProcessRunner& runner, const SourceInfo& src, const fs::path& work,
                                 const std::optional<Series>& series,
                                 const std::string& source_label) {
  const fs::path tree = work / "tree";
  const fs::path state = work / "tree.index";
  FL_TRY(make_dirs(tree));
  auto dst = scan_tree(tree, load_tree_index(state));
  if (!dst.ok()) return dst.error();
  std::error_code ec;
  fs::remove(state, ec);  // unknown until synced
  auto stats = sync_tree(src.location, *src.index, tree, dst->index);
  if (!stats.ok()) return stats.error();
  TreeIndex after = std::move(dst->index);
  for (const auto& rel : stats->changed) after.erase(rel);
  if (series) {
    if (auto st = apply_series(runner, tree, *series, source_label); !st.ok()) return st;
    for (const auto& p : series->patches) {
      for (const auto& f : files_touched(p.text)) after.erase(f);
    }
  }
  return save_tree_index(state, after);
}

// Git sources: one working tree per repository. Switching commits rewrites the files that differ
// between them plus those the previous series touched.
Result<void> checkout_git_tree(ProcessRunner& runner, const SourceInfo& src, const fs::path& work,
                               const std::optional<Series>& series,
                               const std::string& source_label) {
  const fs::path tree = work / "tree";
  const fs::path state_file = work / "checkout.json";
  GitRepo repo(runner, src.location);
  json state;
  if (auto s = read_file(state_file); s.ok()) state = json::parse(*s, nullptr, false);
  const bool have_tree =
      path_exists(tree / "Makefile") && state.is_object() && state.contains("commit");
  std::error_code ec;
  fs::remove(state_file, ec);  // unknown until done
  if (!have_tree) {
    fs::remove_all(tree, ec);
    if (auto st = repo.extract(src.git_commit, {}, tree, work); !st.ok()) return st;
  } else {
    std::set<std::string> redo;
    for (const auto& f : state.value("files", std::vector<std::string>{})) redo.insert(f);
    const std::string old = state.value("commit", "");
    if (old != src.git_commit) {
      auto changed = repo.changed_paths(old, src.git_commit);
      if (!changed.ok()) return changed.error();
      redo.insert(changed->begin(), changed->end());
    }
    if (!redo.empty()) {
      auto files = repo.files_of(src.git_commit);
      if (!files.ok()) return files.error();
      const std::set<std::string> present(files->begin(), files->end());
      std::vector<std::string> fetch;
      for (const auto& rel : redo) {
        fs::remove(tree / rel, ec);
        if (present.count(rel)) fetch.push_back(rel);
      }
      if (!fetch.empty()) {
        if (auto st = repo.extract(src.git_commit, fetch, tree, work); !st.ok()) return st;
      }
    }
  }
  std::vector<std::string> touched;
  if (series) {
    if (auto st = apply_series(runner, tree, *series, source_label); !st.ok()) return st;
    for (const auto& p : series->patches) {
      for (auto& f : files_touched(p.text)) touched.push_back(f);
    }
  }
  return write_file_atomic(state_file,
                           json{{"commit", src.git_commit}, {"files", touched}}.dump(2));
}

}  // namespace

Result<KernelTree> resolve_kernel_tree(ProcessRunner& runner, const KernelSpec& spec,
                                       const SearchPath& names, const fs::path& spec_dir,
                                       const fs::path& cache) {
  KernelTree kt;
  auto source = identify_source(runner, spec, spec_dir, cache);
  if (!source.ok()) return in_context("kernel " + spec.name, source.error());
  kt.source = std::move(*source);
  if (!spec.patches_range.empty()) {
    fs::path repo = kt.source.location;
    if (!spec.patches_repo.empty()) {
      repo = fs::path(spec.patches_repo).is_absolute() ? fs::path(spec.patches_repo)
                                                       : spec_dir / spec.patches_repo;
    } else if (!spec.source_git) {
      return make_error(
          fmt::format("kernel {}: commit range '{}' needs a repository (`repo:` or a git source)",
                      spec.name, spec.patches_range));
    }
    auto series =
        GitRepo(runner, repo)
            .commit_range(spec.patches_range, cache / "work" / kt.source.work_id / "ranges");
    if (!series.ok()) return in_context("kernel " + spec.name, series.error());
    kt.series = std::move(*series);
  } else if (!spec.patches.empty()) {
    // An mbox is split once per content under the work folder, beside the ranges.
    const fs::path rel = fs::path("patches") / spec.patches;
    const auto where = names.find(rel);
    if (!where) {
      return make_error(fmt::format("kernel {}: patch series '{}' not found (no {})", spec.name,
                                    spec.patches, names.searched(rel)));
    }
    auto series =
        load_patch_series(runner, where->path, cache / "work" / kt.source.work_id / "mbox");
    if (!series.ok()) {
      const std::string at = spec.patches_loc.line ? spec.patches_loc.str() + ": " : "";
      return in_context(at + "kernel " + spec.name, series.error());
    }
    kt.series = std::move(*series);
  }
  if (spec.patches_pick && kt.series) {
    if (auto st = pick_patches(*kt.series, *spec.patches_pick); !st.ok()) {
      return in_context("kernel " + spec.name, st.error());
    }
  }
  kt.tree_key = Hasher().add(kt.source.id).add(series_digest(kt.series)).hex();
  return kt;
}

Result<void> checkout_kernel_tree(ProcessRunner& runner, const KernelTree& kt,
                                  const fs::path& pristine, const fs::path& work) {
  FL_TRY(make_dirs(work));
  switch (kt.source.kind) {
    case SourceKind::kTarball:
      return reset_tree(runner, pristine, work, kt.series, kt.tree_key, kt.source.label);
    case SourceKind::kDirectory:
      return sync_directory_tree(runner, kt.source, work, kt.series, kt.source.label);
    case SourceKind::kGit:
      return checkout_git_tree(runner, kt.source, work, kt.series, kt.source.label);
  }
  return make_error("unknown source kind");
}

}  // namespace foliolab
