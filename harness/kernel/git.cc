#include "kernel/git.h"

#include <fmt/format.h>
#include <unistd.h>

#include <set>

#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_nul(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\0') continue;
    if (i > start) out.push_back(text.substr(start, i - start));
    start = i + 1;
  }
  return out;
}

}  // namespace

Result<std::string> GitRepo::git(std::vector<std::string> args, const std::string& what) const {
  std::vector<std::string> argv = {"git", "-C", repo_.string(), "--literal-pathspecs"};
  argv.insert(argv.end(), args.begin(), args.end());
  // No pager, no prompts, no user config that changes output formats.
  ProcessResult r =
      runner_.run({.argv = argv,
                   .env = {{"GIT_TERMINAL_PROMPT", "0"}, {"GIT_PAGER", "cat"}, {"LC_ALL", "C"}},
                   .capture = true,
                   .capture_limit = size_t{1} << 28});
  if (!r.ok()) {
    return make_error(fmt::format("git repository {}: {} failed ({}): {}", repo_.string(), what,
                                  r.describe(), std::string(trim(r.output))));
  }
  return r.output;
}

Result<std::string> GitRepo::commit_of(const std::string& ref) const {
  ProcessResult r = runner_.run({.argv = {"git", "-C", repo_.string(), "rev-parse", "--verify",
                                          "--quiet", "--end-of-options", ref + "^{commit}"},
                                 .capture = true});
  std::string out = std::string(trim(r.output));
  if (r.ok() && out.size() == 40) return out;
  if (!r.spawn_error.empty()) return make_error("git is not usable: " + r.spawn_error);
  if (!path_exists(repo_ / ".git")) {
    return make_error(fmt::format("{} is not a git repository (no .git)", repo_.string()));
  }
  return make_error(fmt::format(
      "git repository {}: unknown ref '{}' (no such branch, tag or commit)", repo_.string(), ref));
}

Result<std::string> GitRepo::tree_of(const std::string& commit) const {
  auto out = git({"rev-parse", "--verify", commit + "^{tree}"}, "rev-parse " + commit);
  if (!out.ok()) return out.error();
  return std::string(trim(*out));
}

Result<bool> GitRepo::dirty() const {
  auto out = git({"status", "--porcelain", "--untracked-files=no"}, "git status");
  if (!out.ok()) return out.error();
  return !std::string(trim(*out)).empty();
}

Result<std::vector<std::string>> GitRepo::changed_paths(const std::string& from,
                                                        const std::string& to) const {
  auto out = git({"diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", from, to, "--"},
                 fmt::format("diff {}..{}", from.substr(0, 12), to.substr(0, 12)));
  if (!out.ok()) return out.error();
  return split_nul(*out);
}

Result<std::vector<std::string>> GitRepo::files_of(const std::string& commit) const {
  auto out = git({"ls-tree", "-r", "-z", "--name-only", commit}, "ls-tree " + commit.substr(0, 12));
  if (!out.ok()) return out.error();
  return split_nul(*out);
}

Result<void> GitRepo::extract(const std::string& commit, const std::vector<std::string>& paths,
                              const fs::path& dest, const fs::path& scratch) const {
  const fs::path tar = scratch / "extract.tar";
  std::vector<std::string> args = {"archive", "--format=tar", "-o", tar.string(), commit};
  if (!paths.empty()) {
    args.push_back("--");
    args.insert(args.end(), paths.begin(), paths.end());
  }
  FL_TRY(make_dirs(scratch));
  FL_TRY(make_dirs(dest));
  auto out = git(args, "archive " + commit.substr(0, 12));
  if (!out.ok()) return out.error();
  // -m: files get the extraction time, not the commit time, so make sees them as new.
  ProcessResult r = runner_.run(
      {.argv = {"tar", "-x", "-m", "-f", tar.string(), "-C", dest.string()}, .capture = true});
  std::error_code ec;
  fs::remove(tar, ec);
  if (!r.ok())
    return make_error(fmt::format("extracting {} failed ({}): {}", commit, r.describe(), r.output));
  return {};
}

Result<std::pair<std::string, std::string>> GitRepo::range_ends(const std::string& range) const {
  const size_t dots = range.find("..");
  if (dots == std::string::npos || range.find("...") != std::string::npos) {
    return make_error(fmt::format("commit range '{}': expected BASE..TIP", range));
  }
  const std::string base = range.substr(0, dots), tip = range.substr(dots + 2);
  auto base_id = commit_of(base);
  if (!base_id.ok())
    return make_error(fmt::format("commit range {}: {}", range, base_id.error().message));
  auto tip_id = commit_of(tip);
  if (!tip_id.ok())
    return make_error(fmt::format("commit range {}: {}", range, tip_id.error().message));
  ProcessResult anc = runner_.run(
      {.argv = {"git", "-C", repo_.string(), "merge-base", "--is-ancestor", *base_id, *tip_id},
       .capture = true});
  if (anc.exit_code == 1) {
    return make_error(
        fmt::format("commit range {} in {}: '{}' ({}) does not descend from '{}' ({})", range,
                    repo_.string(), tip, tip_id->substr(0, 12), base, base_id->substr(0, 12)));
  }
  if (!anc.ok())
    return make_error(fmt::format("commit range {}: git merge-base failed: {}", range, anc.output));
  return std::pair{*base_id, *tip_id};
}

Result<std::vector<std::string>> GitRepo::commits(const std::string& range) const {
  auto ends = range_ends(range);
  if (!ends.ok()) return ends.error();
  auto out = git({"rev-list", "--reverse", "--first-parent", ends->first + ".." + ends->second},
                 "rev-list " + range);
  if (!out.ok()) return out.error();
  std::vector<std::string> ids = {ends->first};
  for (std::string_view line : split_lines(*out)) {
    if (!trim(line).empty()) ids.emplace_back(trim(line));
  }
  if (ids.size() < 2) {
    return make_error(fmt::format("commit range {} in {} holds no commits", range, repo_.string()));
  }
  return ids;
}

Result<Series> GitRepo::commit_range(const std::string& range, const fs::path& dir) const {
  auto ends = range_ends(range);
  if (!ends.ok()) return ends.error();
  const std::string* base_id = &ends->first;
  const std::string* tip_id = &ends->second;
  // Stored by commit ids: the same range is written once.
  const fs::path out = dir / (base_id->substr(0, 12) + ".." + tip_id->substr(0, 12));
  if (!path_exists(out / "series")) {
    const fs::path tmp = out.string() + ".tmp" + std::to_string(::getpid());
    std::error_code ec;
    fs::remove_all(tmp, ec);
    FL_TRY(make_dirs(tmp));
    auto files = git({"format-patch", "--no-stat", "--no-signature", "--no-renames", "--no-binary",
                      "--zero-commit", "-o", tmp.string(), *base_id + ".." + *tip_id},
                     "format-patch " + range);
    if (!files.ok()) return files.error();
    auto patches = list_dir(tmp);
    if (!patches.ok()) return patches.error();
    if (patches->empty()) {
      fs::remove_all(tmp, ec);
      return make_error(
          fmt::format("commit range {} in {} holds no commits to apply", range, repo_.string()));
    }
    // format-patch numbers its files 0001-..., so sorted names are commit order.
    std::string listing;
    for (const auto& p : *patches) listing += p.filename().string() + "\n";
    if (auto st = write_file_atomic(tmp / "series", listing); !st.ok()) return st.error();
    fs::remove_all(out, ec);
    fs::rename(tmp, out, ec);
    if (ec && !path_exists(out / "series")) {
      return make_env_error(
          fmt::format("cannot store commit range {} in {}: {}", range, out.string(), ec.message()));
    }
    fs::remove_all(tmp, ec);
  }
  auto series = load_series(out);
  if (!series.ok()) return series.error();
  series->name = fmt::format("{} ({}..{})", range, base_id->substr(0, 12), tip_id->substr(0, 12));
  return series;
}

}  // namespace foliolab
