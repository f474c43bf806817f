#include "catalog/named_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "catalog/validate.h"
#include "kernel/guest_fragments.h"
#include "model/image_recipe.h"
#include "model/project.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

class Collector {
 public:
  Collector(const Experiment& exp, const fs::path& data_root)
      : exp_(exp), names_(exp.project, data_root) {}

  // A name looked up in the project, then in foliolab's data.
  void named(const std::string& what, const std::string& name, const fs::path& rel) {
    if (auto found = names_.find(rel)) {
      add({what, name, found->path, found->origin});
    } else {
      add({what, name, names_.places().back().dir / rel, "missing"});
    }
  }
  // A path relative to the experiment file.
  void path(const std::string& what, const std::string& given) {
    const fs::path p = resolve_path(exp_, given);
    std::error_code ec;
    add({what, given, p, fs::exists(p, ec) ? "experiment" : "missing"});
  }
  std::vector<NamedFile> take() { return std::move(out_); }

 private:
  void add(NamedFile f) {
    const bool seen = std::any_of(out_.begin(), out_.end(), [&](const NamedFile& o) {
      return o.what == f.what && o.path == f.path;
    });
    if (!seen) out_.push_back(std::move(f));
  }
  const Experiment& exp_;
  SearchPath names_;
  std::vector<NamedFile> out_;
};

}  // namespace

std::vector<NamedFile> named_files(const Experiment& exp, const fs::path& data_root) {
  Collector c(exp, data_root);
  for (const KernelSpec& k : exp.kernels) {
    if (k.source_git || k.source != "debian") c.path("kernel source", k.source);
    if (!k.patches.empty()) c.named("series", k.patches, fs::path("patches") / k.patches);
    for (Arch a : exp.archs) {
      for (const std::string& f : kernel_fragments(k, a)) {
        c.named("fragment", f, fs::path("kernel-config") / (f + ".config"));
      }
    }
  }
  if (!exp.machine.image.empty() && exp.machine.image != "initramfs") {
    c.named("recipe", exp.machine.image, image_recipe_rel(exp.machine.image));
  }
  for (const WorkloadSpec& w : exp.workloads) {
    for (const std::string& src : w.sources) c.path("source", src);
    if (!w.build.dir.empty()) c.path("build dir", w.build.dir);
  }
  return c.take();
}

std::string format_named_files(const std::vector<NamedFile>& files) {
  if (files.empty()) return "";
  size_t what = 0, name = 0, origin = 0;
  for (const NamedFile& f : files) {
    what = std::max(what, f.what.size());
    name = std::max(name, f.name.size());
    origin = std::max(origin, f.origin.size());
  }
  std::string out = "files:\n";
  for (const NamedFile& f : files) {
    out += fmt::format("  {:<{}}  {:<{}}  {:<{}}  {}\n", f.what, what, f.name, name, f.origin,
                       origin, f.path.string());
  }
  return out;
}

}  // namespace foliolab
