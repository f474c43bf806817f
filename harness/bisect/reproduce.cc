#include "bisect/reproduce.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "model/arch.h"
#include "model/project.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/text.h"
#include "util/yaml_reader.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

// The experiment's kernel node that the pinned kernels copy.
Result<YAML::Node> kernel_node(const YAML::Node& root, const std::string& name) {
  for (const YAML::Node& k : root["kernels"]) {
    if (k["name"] && k["name"].as<std::string>() == name) return YAML::Clone(k);
  }
  return make_error(fmt::format("no kernel '{}' in the experiment file", name));
}

// A pinned kernel: the copy renamed, its patches the reproduce folder's own, or its commit.
YAML::Node pinned_node(const YAML::Node& base, const PinnedKernel& k, const Experiment& exp) {
  YAML::Node n = YAML::Clone(base);
  n["name"] = k.label;
  if (!k.commit.empty()) {
    YAML::Node src = n["source"];
    const std::string path = src.IsMap() ? src["git"].as<std::string>() : src.as<std::string>();
    YAML::Node git;
    git["git"] = fs::absolute(fs::path(exp.dir) / path).lexically_normal().string();
    git["ref"] = k.commit;
    n["source"] = git;
  } else {
    n["patches"] = k.label;
  }
  if (n["source"] && n["source"].IsScalar() && n["source"].as<std::string>() != "debian") {
    n["source"] = fs::absolute(fs::path(exp.dir) / n["source"].as<std::string>()).string();
  }
  n.remove("archs");
  return n;
}

// Only the cell's knob set and workload; what judged the whole matrix goes.
void narrow(YAML::Node& root, const ReproduceSpec& s) {
  const Experiment& exp = *s.exp;
  root["name"] = exp.name + "-reproduce";
  YAML::Node archs(YAML::NodeType::Sequence);
  archs.push_back(std::string(arch_info(s.cell.arch).name));
  root["archs"] = archs;
  if (root["knobs"] && root["knobs"].IsMap()) {
    const std::string ks = exp.knob_sets[s.cell.knob_set].name;
    YAML::Node knobs(YAML::NodeType::Map);
    knobs[ks] = root["knobs"][ks];
    root["knobs"] = knobs;
  }
  YAML::Node workloads(YAML::NodeType::Sequence);
  workloads.push_back(YAML::Clone(root["workloads"][s.cell.workload]));
  root["workloads"] = workloads;
  for (const char* gone : {"gate", "expect", "exclude", "project"}) root.remove(gone);
  if (s.repeat > 0) root["repeat"] = s.repeat;
}

Result<std::string> reproduce_yaml(const ReproduceSpec& s) {
  auto root = load_yaml_file(s.exp->file, "experiment");
  FL_TRY(root);
  auto base = kernel_node(*root, s.kernel);
  FL_TRY(base);
  YAML::Node kernels(YAML::NodeType::Sequence);
  for (const PinnedKernel& k : s.kernels) kernels.push_back(pinned_node(*base, k, *s.exp));
  (*root)["kernels"] = kernels;
  narrow(*root, s);
  YAML::Emitter out;
  out << *root;
  return fmt::format(
      "# Reproduces a regression report: the cell it was measured on, pinned to its kernels.\n"
      "# Run here: foliolab run {}\n{}\n",
      kReproduceFile, out.c_str());
}

// The project's own config fragments the kernel names (foliolab's are found anyway).
Result<void> copy_fragments(const ReproduceSpec& s, const fs::path& to) {
  for (const KernelSpec& k : s.exp->kernels) {
    if (k.name != s.kernel) continue;
    for (const std::string& c : k.config) {
      const fs::path rel = fs::path("kernel-config") / (c + ".config");
      const fs::path mine = fs::path(s.exp->project) / rel;
      if (s.exp->project.empty() || !path_exists(mine)) continue;
      FL_TRY(make_dirs((to / rel).parent_path()));
      FL_TRY(copy_file_over(mine, to / rel));
    }
  }
  return {};
}

}  // namespace

Result<void> write_patch_folder(const fs::path& reproduce, const PinnedKernel& k) {
  if (k.patches.empty()) return {};
  const fs::path dir = reproduce / "patches" / k.label;
  FL_TRY(make_dirs(dir));
  std::string series;
  std::set<std::string> names;
  for (size_t i = 0; i < k.patches.size(); ++i) {
    std::string name = k.patches[i].filename().string();
    if (!names.insert(name).second) name = fmt::format("{:04}-{}", i + 1, name);
    FL_TRY(copy_file_over(k.patches[i], dir / name));
    series += name + "\n";
  }
  return write_file_atomic(dir / "series", series);
}

Result<fs::path> write_reproduce(const ReproduceSpec& s, const fs::path& dir) {
  const fs::path out = dir / kReproduceDir;
  FL_TRY(make_dirs(out));
  auto yaml = reproduce_yaml(s);
  FL_TRY(yaml);
  for (const PinnedKernel& k : s.kernels) FL_TRY(write_patch_folder(out, k));
  for (const PinnedKernel& k : s.extra) FL_TRY(write_patch_folder(out, k));
  FL_TRY(copy_fragments(s, out));
  FL_TRY(write_file_atomic(out / kProjectMarker, "name: " + s.exp->name + "-reproduce\n"));
  FL_TRY(write_file_atomic(out / kReproduceFile, *yaml));
  return out;
}

namespace {

// patches/<from> with `fix` appended, as patches/<to>.
Result<void> with_fix(const fs::path& reproduce, const std::string& from, const std::string& to,
                      const fs::path& fix) {
  auto series = read_file(reproduce / "patches" / from / "series");
  FL_TRY(series);
  PinnedKernel k{.label = to};
  for (std::string_view name : split_lines(*series)) {
    if (!trim(name).empty())
      k.patches.push_back(reproduce / "patches" / from / std::string(trim(name)));
  }
  k.patches.push_back(fix);
  FL_TRY(remove_tree(reproduce / "patches" / to));
  return write_patch_folder(reproduce, k);
}

YAML::Node renamed(const YAML::Node& kernel, const std::string& name) {
  YAML::Node n = YAML::Clone(kernel);
  n["name"] = name;
  n["patches"] = name;
  return n;
}

}  // namespace

Result<TryExperiment> write_try_experiment(const fs::path& reproduce, const fs::path& fix) {
  if (!path_exists(fix)) return make_error(fix.string() + ": no such patch");
  auto root = load_yaml_file((reproduce / kReproduceFile).string(), "experiment");
  FL_TRY(root);
  auto culprit = kernel_node(*root, "culprit");
  FL_TRY(culprit);
  if (!(*culprit)["patches"]) {
    return make_error("the culprit is a commit: apply the fix to a branch and bisect that range");
  }
  TryExperiment t{
      .file = reproduce / ("try-" + fix.stem().string() + ".yaml"),
      .columns = {{"parent", "parent"}, {"culprit", "culprit"}, {"culprit+fix", "culprit-fix"}}};
  FL_TRY(with_fix(reproduce, "culprit", "culprit-fix", fix));
  (*root)["kernels"].push_back(renamed(*culprit, "culprit-fix"));
  if (path_exists(reproduce / "patches" / "tip")) {
    FL_TRY(with_fix(reproduce, "tip", "tip-fix", fix));
    (*root)["kernels"].push_back(renamed(*culprit, "tip-fix"));
    t.columns.push_back({"tip+fix", "tip-fix"});
  }
  (*root)["name"] = (*root)["name"].as<std::string>() + "-try";
  YAML::Emitter out;
  out << *root;
  FL_TRY(write_file_atomic(t.file, std::string(out.c_str()) + "\n"));
  return t;
}

std::string reproduce_command() {
  return fmt::format(
      "cd {0} && foliolab run {1}   ({0}/ is beside this report; from a clone: "
      "./build/foliolab run {0}/{1} in the report's folder)",
      kReproduceDir, kReproduceFile);
}

}  // namespace foliolab
