#include "kernel/tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "util/fs.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

Result<KernelTree> resolve_kernel_tree(const KernelSpec& spec, const fs::path& project_root,
                                       const fs::path& spec_dir, const fs::path& cache) {
  KernelTree tree;
  auto source = identify_source(spec.source, spec_dir, cache);
  if (!source.ok()) return source.error();
  tree.source = std::move(*source);
  Hasher series_h;
  if (!spec.patches.empty()) {
    auto series = load_series(project_root / "patches" / spec.patches);
    if (!series.ok()) return series.error();
    for (const auto& p : series->patches) series_h.add(p.name).add(p.text);
    tree.series = std::move(*series);
  }
  tree.tree_key = Hasher().add(tree.source.id).add(series_h.hex()).hex();
  return tree;
}

Status checkout_kernel_tree(ProcessRunner& runner, const KernelTree& kt, const fs::path& pristine,
                            const fs::path& work) {
  const fs::path tree = work / "tree";
  const fs::path state_file = work / "applied.json";
  json state;
  if (auto s = read_file(state_file); s.ok()) state = json::parse(*s, nullptr, false);
  const bool have_tree = fs::exists(tree / "Makefile") && state.is_object();
  if (have_tree && state.value("tree_key", "") == kt.tree_key) return {};

  std::error_code ec;
  fs::create_directories(work, ec);
  std::set<std::string> previously;
  if (have_tree) {
    for (const auto& f : state.value("files", std::vector<std::string>{})) previously.insert(f);
  } else {
    fs::remove_all(tree, ec);
    // Hard links are instant and patch replaces (never edits) the files it changes; a tree on
    // another filesystem gets a real copy.
    ProcessResult r = runner.run({.argv = {"cp", "-al", pristine.string(), tree.string()}, .capture = true});
    if (!r.ok()) {
      fs::remove_all(tree, ec);
      r = runner.run({.argv = {"cp", "-a", "--reflink=auto", pristine.string(), tree.string()}, .capture = true});
    }
    if (!r.ok()) return make_error("cannot copy the source tree: " + r.describe() + "\n" + r.output);
  }
  // Mark the tree unknown until the new series is fully applied.
  fs::remove(state_file, ec);
  for (const auto& rel : previously) {
    fs::remove(tree / rel, ec);
    if (fs::exists(pristine / rel)) {
      // A real copy (not a link): its mtime is now, and the pristine inode stays untouched.
      fs::copy_file(pristine / rel, tree / rel, ec);
      if (ec) return make_error(fmt::format("cannot restore {}: {}", rel, ec.message()));
    }
  }
  std::vector<std::string> touched(previously.begin(), previously.end());
  if (kt.series) {
    if (auto st = apply_series(runner, tree, *kt.series, kt.source.label); !st.ok()) return st;
    for (const auto& p : kt.series->patches) {
      for (auto& f : files_touched(p.text)) touched.push_back(f);
    }
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  state = json{{"tree_key", kt.tree_key}, {"files", touched}};
  return write_file_atomic(state_file, state.dump(2));
}

}  // namespace foliolab
