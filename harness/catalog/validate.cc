#include "catalog/validate.h"

#include "catalog/page_size.h"
#include "catalog/state_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "catalog/knob_catalog.h"
#include "catalog/workload_catalog.h"
#include "catalog/workload_check.h"
#include "kernel/series.h"
#include "kernel/series_mail.h"
#include "model/image_recipe.h"
#include "model/project.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

// The series a project and foliolab's data offer (folders and mbox files under patches/).
std::vector<std::string> series_names(const SearchPath& names) {
  std::vector<std::string> out;
  for (const SearchPath::Place& place : names.places()) {
    std::error_code ec;
    for (fs::directory_iterator it(place.dir / "patches", ec), end; !ec && it != end;
         it.increment(ec)) {
      std::string name = it->path().filename().string();
      if (name.rfind("README", 0) != 0) out.push_back(std::move(name));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string hint(const std::string& name, const std::vector<std::string>& available) {
  if (std::string near = did_you_mean(name, available); !near.empty()) return near;
  if (available.empty()) return "";
  return "; available: " + join(available, " ");
}

bool is_tarball(const std::string& name) {
  for (const char* ext : {".tar", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2"}) {
    if (name.ends_with(ext)) return true;
  }
  return false;
}

class Checker {
 public:
  void fail(const SourceLoc& at, const std::string& path, const std::string& message) {
    problems_ += (problems_.empty() ? "" : "\n") + at.str() + ": " + path + ": " + message;
  }
  void add(const std::string& lines) { problems_ += (problems_.empty() ? "" : "\n") + lines; }
  Result<void> status() const { return problems_.empty() ? Result<void>() : make_error(problems_); }

 private:
  std::string problems_;
};

// kernels[i].config: every fragment exists, in the project or in foliolab's data.
void check_fragments(const KernelSpec& k, const std::string& path, const SearchPath& names,
                     Checker* check) {
  for (size_t i = 0; i < k.config.size(); ++i) {
    const fs::path rel = fs::path("kernel-config") / (k.config[i] + ".config");
    if (names.find(rel)) continue;
    const SourceLoc at = i < k.config_locs.size() ? k.config_locs[i] : k.loc;
    check->fail(at, path + ".config[" + std::to_string(i) + "]",
                "config fragment '" + k.config[i] + "' not found (no " + names.searched(rel) + ")" +
                    hint(k.config[i], names.names("kernel-config", ".config")));
  }
}

// kernels[i].patches: a series under patches/ (a quilt or format-patch folder, an mbox file; its
// mails are read at plan time, see kernel/series.h), or a commit range with a repository.
void check_patches(const Experiment& exp, const KernelSpec& k, const std::string& path,
                   const SearchPath& names, Checker* check) {
  std::error_code ec;
  if (!k.patches.empty()) {
    const fs::path rel = fs::path("patches") / k.patches;
    const SourceLoc at = k.patches_loc.line ? k.patches_loc : k.loc;
    const auto where = names.find(rel);
    if (!where) {
      check->fail(at, path + ".patches",
                  "patch series '" + k.patches + "' not found (no folder or mbox " +
                      names.searched(rel) + ")" + hint(k.patches, series_names(names)));
    } else if (const std::string problem = series_location_problem(where->path); !problem.empty()) {
      check->fail(at, path + ".patches", problem);
    }
  }
  if (!k.patches_range.empty()) {
    const SourceLoc at = k.patches_loc.line ? k.patches_loc : k.loc;
    if (k.patches_repo.empty() && !k.source_git) {
      check->fail(
          at, path + ".patches",
          "commit range '" + k.patches_range +
              "' needs a repository: give `repo:` or use a git source (source: {git: PATH})");
    } else if (!k.patches_repo.empty()) {
      const fs::path repo = resolve_path(exp, k.patches_repo);
      if (!fs::exists(repo / ".git", ec)) {
        check->fail(at, path + ".patches.repo",
                    "git repository " + repo.string() + " not found (no .git)");
      }
    }
  }
}

// kernels[i].source: a git repository, a directory or a tarball that is there.
void check_source(const Experiment& exp, const KernelSpec& k, const std::string& path,
                  Checker* check) {
  std::error_code ec;
  if (k.source_git) {
    const fs::path repo = resolve_source(exp, k);
    const SourceLoc at = k.source_loc.line ? k.source_loc : k.loc;
    if (!fs::exists(repo / ".git", ec)) {
      check->fail(at, path + ".source.git",
                  "git repository " + repo.string() + " not found (no .git)");
    }
    return;
  }
  if (k.source != "debian") {
    const fs::path source = resolve_source(exp, k);
    const SourceLoc at = k.source_loc.line ? k.source_loc : k.loc;
    if (fs::is_directory(source, ec)) return;
    if (!fs::exists(source, ec)) {
      check->fail(at, path + ".source", "kernel source " + source.string() + " does not exist");
    } else if (!is_tarball(source.filename().string())) {
      check->fail(at, path + ".source",
                  "kernel source " + source.string() +
                      " is neither a directory nor a .tar/.tar.gz/.tgz/.tar.xz/.tar.bz2 file");
    }
  }
}

void check_kernel(const Experiment& exp, size_t index, const SearchPath& names, Checker* check) {
  const KernelSpec& k = exp.kernels[index];
  const std::string path = "kernels[" + std::to_string(index) + "]";
  check_fragments(k, path, names, check);
  check_patches(exp, k, path, names, check);
  check_source(exp, k, path, check);
}

// A custom workload's files (issue 20): each `source`, the `build` directory. A missing one is
// bad input, found here rather than when the program is built.
void check_custom_files(const Experiment& exp, size_t index, Checker* check) {
  const WorkloadSpec& w = exp.workloads[index];
  if (w.name != "custom") return;
  std::error_code ec;
  for (size_t i = 0; i < w.params.size(); ++i) {
    const std::string& key = w.params[i].first;
    const std::string at = "workloads[" + std::to_string(index) + "].params." + key;
    if (key == "source") {
      for (const std::string& src : w.sources) {
        const fs::path file = resolve_path(exp, src);
        if (!fs::is_regular_file(file, ec)) {
          check->fail(w.param_locs.at(i), at, "C source " + file.string() + " does not exist");
        }
      }
    } else if (key == "build" && !w.build.dir.empty()) {
      const fs::path dir = resolve_path(exp, w.build.dir);
      if (!fs::is_directory(dir, ec)) {
        check->fail(w.build.loc.line ? w.build.loc : w.param_locs.at(i), at + ".dir",
                    "build directory " + dir.string() + " does not exist");
      }
    }
  }
}

// `machine.image`: the recipe exists and reads (its own errors name its file), the backend can
// attach a root disk, and every workload that runs Debian's programs (FL_PACKAGES) gets them.
void check_image(const Experiment& exp, const SearchPath& names, Checker* check) {
  const MachineSpec& m = exp.machine;
  std::optional<ImageRecipe> recipe;
  if (!m.image.empty()) {
    const auto file = find_image_recipe(names, m.image);
    if (!file) {
      const auto known = image_recipe_names(names);
      check->fail(m.image_loc, "machine.image",
                  "no image recipe '" + m.image + "' (no " +
                      names.searched(image_recipe_rel(m.image)) + ")" +
                      did_you_mean(m.image, known) +
                      (known.empty() ? "" : " (recipes: " + join(known, ", ") + ")"));
    } else if (auto r = load_image_recipe(file->path.string()); !r.ok()) {
      check->add(r.error().message);
    } else {
      recipe = *r;
    }
    if (m.backend != "qemu") {
      check->fail(m.image_loc, "machine.image",
                  "backend " + m.backend +
                      " cannot attach a root disk yet; Debian images boot with backend qemu");
    }
  }
  for (size_t i = 0; i < exp.workloads.size(); ++i) {
    const WorkloadInfo* info = find_workload(exp.workloads[i].name);
    if (!info || info->packages.empty()) continue;
    const std::string at = "workloads[" + std::to_string(i) + "]";
    if (m.image.empty()) {
      check->fail(exp.workloads[i].name_loc, at,
                  fmt::format("{} runs Debian's {}: set machine.image to a recipe that installs "
                              "{} (images/*.yaml)",
                              info->name, join(info->packages, ", "),
                              info->packages.size() == 1 ? "it" : "them"));
      continue;
    }
    if (!recipe) continue;
    std::vector<std::string> missing;
    for (const std::string& p : info->packages) {
      if (std::find(recipe->packages.begin(), recipe->packages.end(), p) ==
          recipe->packages.end()) {
        missing.push_back(p);
      }
    }
    if (!missing.empty()) {
      check->fail(exp.workloads[i].name_loc, at,
                  fmt::format("{} needs Debian package(s) {} that image {} does not install "
                              "(add them to {}'s packages)",
                              info->name, join(missing, ", "), m.image, recipe->file));
    }
  }
}

}  // namespace

fs::path resolve_path(const Experiment& exp, const std::string& path) {
  const fs::path p(path);
  if (p.is_absolute()) return p;
  return fs::path(exp.dir) / p;
}

fs::path resolve_source(const Experiment& exp, const KernelSpec& kernel) {
  if (kernel.source == "debian" && !kernel.source_git) return {};
  return resolve_path(exp, kernel.source);
}

Result<void> validate_project(const Experiment& exp, const fs::path& data_root,
                              const HostFacts& host, const std::string& results_root) {
  Checker check;
  if (auto marked = find_project_marker(exp.dir)) {
    if (Result<void> st = check_project_marker(*marked / kProjectMarker); !st.ok()) {
      check.add(st.error().message);
    }
  }
  const SearchPath names(exp.project, data_root);
  for (size_t i = 0; i < exp.kernels.size(); ++i) check_kernel(exp, i, names, &check);
  for (size_t i = 0; i < exp.workloads.size(); ++i) check_custom_files(exp, i, &check);
  check_image(exp, names, &check);
  Result<void> knobs = validate_knobs(exp);
  if (!knobs.ok()) check.add(knobs.error().message);
  Result<void> workloads = validate_workloads(exp);
  if (!workloads.ok()) check.add(workloads.error().message);
  Result<void> pages = check_page_multiples(exp);
  if (!pages.ok()) check.add(pages.error().message);
  Result<void> state = check_machine_state(exp);
  if (!state.ok()) check.add(state.error().message);
  Result<void> limits = check_plan_limits(
      exp, host, results_root.empty() ? (data_root / "results").string() : results_root);
  if (!limits.ok()) check.add(limits.error().message);
  return check.status();
}

}  // namespace foliolab
