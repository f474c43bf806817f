#include "model/loader.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

#include "util/text.h"

namespace foliolab {
namespace {

using Keys = std::vector<std::string>;

const Keys kTopKeys = {"name",      "description", "kernels", "archs",   "machine", "knobs",
                       "workloads", "repeat",      "timeout", "exclude", "expect",  "gate",
                       "exclusive"};
const Keys kKernelKeys = {"name", "source", "config", "options", "patches", "cmdline", "archs"};
const Keys kGitSourceKeys = {"git", "ref"};
const Keys kGitRangeKeys = {"git", "repo"};
const Keys kMachineKeys = {"accel", "backend", "connect", "cpus", "memory", "numa"};
const Keys kNumaKeys = {"nodes", "distance"};
const Keys kNodeKeys = {"cpus", "memory"};
const Keys kWorkloadKeys = {"name", "label", "params", "metrics", "exclusive"};
const Keys kMetricDeclKeys = {"unit", "better", "kind", "pattern"};
const Keys kGateKeys = {"name", "runs", "metric", "max_regression", "equal", "better", "timings"};
const Keys kSelectorKeys = {"kernel", "arch", "knobs", "workload"};
const Keys kCompareKeys = {"<", "<=", ">", ">=", "==", "approx"};
// "==" before "<": a stray "=" is closer to both, and the first wins.
const Keys kExpectKeys = {"name", "runs", "metric", "stat", "ratio_to", "==",
                          "<",    "<=",   ">",      ">=",   "approx",   "tolerance"};
const Keys kStatNames = {"mean", "min", "max", "median"};
// Keys of a knob set that are not THP sysfs paths.
const Keys kReservedKnobKeys = {"sysctl", "cmdline"};

constexpr std::string_view kThpRoot = "/sys/kernel/mm/transparent_hugepage/";
constexpr std::string_view kSysctlRoot = "/proc/sys/";

// A value in the document with the key that introduced it and its key path. For list items
// and the root, `key` is the value itself.
struct Field {
  YAML::Node key;
  YAML::Node value;
  std::string path;  // "kernels[0].name"
};

// The entries of a YAML map in document order.
struct Fields {
  std::vector<std::pair<std::string, Field>> entries;
  const Field* find(std::string_view key) const {
    for (const auto& [name, field] : entries) {
      if (name == key) return &field;
    }
    return nullptr;
  }
};

std::string child_path(const std::string& parent, const std::string& key) {
  if (is_word(key, "_-/") && key.front() != '/') return parent.empty() ? key : parent + "." + key;
  return parent + "[\"" + key + "\"]";
}

std::string index_path(const std::string& parent, size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

std::string type_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "an undefined value";
  }
}

std::string join(const Keys& words) {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : ", ") + word;
  return out;
}

class Parser {
 public:
  explicit Parser(std::string file) : file_(std::move(file)) {}

  Result<Experiment> parse(const YAML::Node& root) {
    Experiment exp;
    exp.file = file_;
    const Field top{root, root, ""};
    auto fields = read_map(top, &kTopKeys);
    FL_TRY(fields);
    // Document order, so that the first problem in the file is the one reported.
    for (const auto& [key, field] : fields->entries) FL_TRY(parse_top_field(key, field, &exp));
    FL_TRY(require(*fields, top, {"name", "kernels", "archs", "knobs", "workloads"}));
    FL_TRY(check_references(exp));
    return exp;
  }

 private:
  Status parse_top_field(const std::string& key, const Field& f, Experiment* exp) const {
    if (key == "name") {
      exp->name_loc = loc(f);
      return parse_name(f, &exp->name);
    }
    if (key == "description") {
      auto text = read_scalar(f, /*single_line=*/false);
      FL_TRY(text);
      exp->description = *text;
      return {};
    }
    if (key == "kernels") return parse_kernels(f, exp);
    if (key == "archs") return parse_archs(f, exp);
    if (key == "machine") return parse_machine(f, &exp->machine);
    if (key == "knobs") return parse_knob_sets(f, &exp->knob_sets);
    if (key == "workloads") return parse_workloads(f, &exp->workloads);
    if (key == "exclude") return parse_excludes(f, &exp->excludes);
    if (key == "expect") return parse_expectations(f, &exp->expectations);
    if (key == "gate") return parse_gate_rules(f, &exp->gate_rules);
    if (key == "exclusive") {
      auto on = read_bool(f);
      FL_TRY(on);
      exp->exclusive = *on;
      return {};
    }
    if (key == "repeat") {
      auto n = read_int(f);
      FL_TRY(n);
      if (*n < 2) {
        return error(f, "must be at least 2 (no aggregate from fewer than 2 samples), got " +
                            std::to_string(*n));
      }
      exp->repeat = static_cast<int>(*n);
      exp->repeat_loc = loc(f);
      return {};
    }
    // read_map admits only kTopKeys: this is "timeout".
    auto n = read_int(f);
    FL_TRY(n);
    if (*n <= 0) return error(f, "must be a positive number of seconds");
    exp->timeout_s = static_cast<int>(*n);
    exp->timeout_loc = loc(f);
    return {};
  }

  SourceLoc loc(const YAML::Node& node) const {
    const YAML::Mark mark = node.Mark();
    if (mark.line < 0) return SourceLoc{file_, 0, 0};
    return SourceLoc{file_, mark.line + 1, mark.column + 1};
  }
  // yaml-cpp marks an empty value at the next token, so point at its key instead.
  SourceLoc loc(const Field& f) const { return loc(f.value.IsNull() ? f.key : f.value); }

  Error error(const SourceLoc& at, const std::string& path, const std::string& message) const {
    std::string text = at.str() + ": ";
    if (!path.empty()) text += path + ": ";
    return make_error(text + message);
  }
  Error error(const Field& f, const std::string& message) const {
    return error(loc(f), f.path, message);
  }
  // An error about a map key (rather than its value).
  Error key_error(const Field& f, const std::string& message) const {
    return error(loc(f.key), f.path, message);
  }
  std::string first_at(const SourceLoc& l) const {
    return " (first at " + std::to_string(l.line) + ":" + std::to_string(l.column) + ")";
  }

  // Checks that f is a map without duplicate keys; with `allowed`, rejects other keys
  // (suggesting the closest valid one).
  Result<Fields> read_map(const Field& f, const Keys* allowed) const {
    if (!f.value.IsMap()) return error(f, "expected a map, got " + type_name(f.value));
    Fields out;
    for (auto it = f.value.begin(); it != f.value.end(); ++it) {
      // Copies: the iterator hands out proxies that die with the full expression.
      const YAML::Node key = it->first;
      const YAML::Node value = it->second;
      if (!key.IsScalar()) return error(loc(key), f.path, "expected a scalar key");
      const std::string name = key.Scalar();
      Field child{key, value, child_path(f.path, name)};
      if (name == "<<" && key.Tag() != "!") {
        return key_error(child, "YAML merge keys ('<<') are not supported; repeat the keys");
      }
      if (const Field* first = out.find(name)) {
        return key_error(child, "duplicate key" + first_at(loc(first->key)));
      }
      if (allowed && std::find(allowed->begin(), allowed->end(), name) == allowed->end()) {
        if (auto near = closest_match(name, *allowed)) {
          return key_error(child, "unknown key; did you mean '" + *near + "'?");
        }
        return key_error(child, "unknown key; valid keys here: " + join(*allowed));
      }
      out.entries.emplace_back(name, std::move(child));
    }
    return out;
  }

  // Missing keys are reported at the map that lacks them.
  Status require(const Fields& fields, const Field& f, const Keys& required) const {
    for (const auto& name : required) {
      if (!fields.find(name)) {
        return error(loc(f.value), f.path, "missing required key '" + name + "'");
      }
    }
    return {};
  }

  Result<std::vector<Field>> read_list(const Field& f, const char* what_if_empty) const {
    if (!f.value.IsSequence()) return error(f, "expected a list, got " + type_name(f.value));
    if (f.value.size() == 0 && what_if_empty) return error(f, what_if_empty);
    std::vector<Field> out;
    for (size_t i = 0; i < f.value.size(); ++i) {
      const YAML::Node item = f.value[i];
      out.push_back(Field{item, item, index_path(f.path, i)});
    }
    return out;
  }

  // Values travel in a line-based guest job file: no tabs or newlines unless `single_line` is
  // false (descriptions).
  Result<std::string> read_scalar(const Field& f, bool single_line = true) const {
    if (!f.value.IsScalar()) return error(f, "expected a scalar, got " + type_name(f.value));
    const std::string& text = f.value.Scalar();
    if (single_line && text.find_first_of("\t\n\r") != std::string::npos) {
      return error(f, "value must not contain a tab or newline");
    }
    return text;
  }

  Result<std::string> read_nonempty(const Field& f) const {
    auto text = read_scalar(f);
    FL_TRY(text);
    if (text->empty()) return error(f, "must not be empty");
    return text;
  }

  Result<int64_t> read_int(const Field& f) const {
    auto text = read_scalar(f);
    FL_TRY(text);
    const auto n = parse_int(*text);
    if (!n) return error(f, "expected an integer, got '" + *text + "'");
    if (*n < INT_MIN || *n > INT_MAX) return error(f, "integer out of range: " + *text);
    return *n;
  }

  Result<uint64_t> read_memory(const Field& f) const {
    auto text = read_scalar(f);
    FL_TRY(text);
    std::string why;
    const auto mib = parse_memory_mib(*text, &why);
    if (!mib) return error(f, "invalid memory size '" + *text + "': " + why);
    return *mib;
  }

  Status parse_name(const Field& f, std::string* out) const {
    auto name = read_scalar(f);
    FL_TRY(name);
    if (!is_word(*name, "._-")) {
      return error(f, "invalid name '" + *name + "': use letters, digits, '.', '_' and '-'");
    }
    *out = *name;
    return {};
  }

  // ---- kernels ----

  Status parse_kernels(const Field& f, Experiment* exp) const {
    auto items = read_list(f, "must list at least one kernel");
    FL_TRY(items);
    std::vector<SourceLoc> name_locs;
    for (const Field& item : *items) {
      KernelSpec kernel;
      SourceLoc name_loc;
      FL_TRY(parse_kernel(item, &kernel, &name_loc));
      for (size_t i = 0; i < exp->kernels.size(); ++i) {
        if (exp->kernels[i].name == kernel.name) {
          return error(name_loc, item.path + ".name",
                       "duplicate kernel name '" + kernel.name + "'" + first_at(name_locs[i]));
        }
      }
      exp->kernels.push_back(std::move(kernel));
      name_locs.push_back(name_loc);
    }
    return {};
  }

  // `source: PATH|debian` or `source: {git: PATH, ref: REV}`.
  Status parse_source(const Field& s, KernelSpec* k) const {
    k->source_loc = loc(s);
    if (!s.value.IsMap()) {
      auto source = read_nonempty(s);
      FL_TRY(source);
      k->source = *source;
      return {};
    }
    auto fields = read_map(s, &kGitSourceKeys);
    FL_TRY(fields);
    FL_TRY(require(*fields, s, {"git"}));
    auto repo = read_nonempty(*fields->find("git"));
    FL_TRY(repo);
    k->source = *repo;
    k->source_git = true;
    if (const Field* r = fields->find("ref")) {
      auto ref = read_nonempty(*r);
      FL_TRY(ref);
      if (ref->starts_with("-") || ref->find("..") != std::string::npos) {
        return error(*r, "invalid git ref '" + *ref + "': expected one revision (a branch, tag or commit)");
      }
      k->source_ref = *ref;
    }
    return {};
  }

  // `patches: {git: BASE..TIP, repo: PATH}`: the commits after BASE up to TIP.
  Status parse_range(const Field& p, KernelSpec* k) const {
    k->patches_loc = loc(p);
    auto fields = read_map(p, &kGitRangeKeys);
    FL_TRY(fields);
    FL_TRY(require(*fields, p, {"git"}));
    const Field& g = *fields->find("git");
    auto range = read_nonempty(g);
    FL_TRY(range);
    const size_t dots = range->find("..");
    if (dots == std::string::npos || dots == 0 || dots + 2 >= range->size() ||
        range->find("..", dots + 2) != std::string::npos || range->starts_with("-") ||
        (*range)[dots + 2] == '.') {
      return error(g, "invalid commit range '" + *range + "': expected BASE..TIP (e.g. v6.12..my-branch)");
    }
    k->patches_range = *range;
    if (const Field* r = fields->find("repo")) {
      auto repo = read_nonempty(*r);
      FL_TRY(repo);
      k->patches_repo = *repo;
    }
    return {};
  }

  Status parse_kernel(const Field& f, KernelSpec* k, SourceLoc* name_loc) const {
    auto fields = read_map(f, &kKernelKeys);
    FL_TRY(fields);
    k->loc = loc(f.value);
    if (const Field* n = fields->find("name")) {
      auto name = read_scalar(*n);
      FL_TRY(name);
      if (!is_word(*name, "._+-")) {
        return error(
            *n, "invalid kernel name '" + *name + "': use letters, digits, '.', '_', '+' and '-'");
      }
      k->name = *name;
      *name_loc = loc(*n);
    }
    if (const Field* s = fields->find("source")) FL_TRY(parse_source(*s, k));
    if (const Field* c = fields->find("config")) FL_TRY(parse_fragments(*c, k));
    if (const Field* o = fields->find("options")) FL_TRY(parse_options(*o, &k->options));
    if (const Field* p = fields->find("patches"); p && p->value.IsMap()) {
      FL_TRY(parse_range(*p, k));
    } else if (p) {
      auto series = read_scalar(*p);
      FL_TRY(series);
      if (!series->empty() && !is_relative_path(*series)) {
        return error(
            *p, "invalid patch series '" + *series + "': expected a folder name under patches/");
      }
      k->patches = *series;
      k->patches_loc = loc(*p);
    }
    if (const Field* c = fields->find("cmdline")) {
      auto cmdline = read_scalar(*c);
      FL_TRY(cmdline);
      k->cmdline = *cmdline;
    }
    if (const Field* a = fields->find("archs")) {
      FL_TRY(parse_arch_list(*a, "must list at least one arch (or leave 'archs' out: all archs)",
                             &k->archs, &k->arch_locs));
    }
    return require(*fields, f, {"name"});
  }

  Status parse_fragments(const Field& f, KernelSpec* k) const {
    auto items = read_list(f, nullptr);
    FL_TRY(items);
    for (const Field& item : *items) {
      auto name = read_scalar(item);
      FL_TRY(name);
      if (name->ends_with(".config")) {
        return error(item, "write the fragment name without '.config': '" +
                               name->substr(0, name->size() - 7) + "'");
      }
      if (!is_word(*name, "._-") || *name == "." || *name == "..") {
        return error(item, "invalid config fragment name '" + *name +
                               "': expected a name under kernel-config/ (letters, digits, "
                               "'.', '_', '-')");
      }
      const auto dup = std::find(k->config.begin(), k->config.end(), *name);
      if (dup != k->config.end()) {
        const size_t first = static_cast<size_t>(dup - k->config.begin());
        return error(item,
                     "fragment '" + *name + "' listed twice" + first_at(k->config_locs[first]));
      }
      k->config.push_back(*name);
      k->config_locs.push_back(loc(item));
    }
    return {};
  }

  Status parse_options(const Field& f, KeyValues* out) const {
    auto fields = read_map(f, nullptr);
    FL_TRY(fields);
    for (const auto& [name, field] : fields->entries) {
      if (!name.starts_with("CONFIG_") || !is_word(name.substr(7), "_") ||
          std::any_of(name.begin(), name.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
        return key_error(field, "invalid option name '" + name + "': expected CONFIG_[A-Z0-9_]+");
      }
      auto value = read_nonempty(field);
      FL_TRY(value);
      out->emplace_back(name, *value);
    }
    return {};
  }

  // ---- archs ----

  Status parse_archs(const Field& f, Experiment* exp) const {
    return parse_arch_list(f, "must list at least one arch", &exp->archs, &exp->arch_locs);
  }

  Status parse_arch_list(const Field& f, const char* what_if_empty, std::vector<Arch>* archs,
                         std::vector<SourceLoc>* locs) const {
    auto items = read_list(f, what_if_empty);
    FL_TRY(items);
    for (const Field& item : *items) {
      auto arch = read_arch(item);
      FL_TRY(arch);
      const auto dup = std::find(archs->begin(), archs->end(), *arch);
      if (dup != archs->end()) {
        const size_t first = static_cast<size_t>(dup - archs->begin());
        return error(item, "arch '" + std::string(arch_info(*arch).name) + "' listed twice" +
                               first_at((*locs)[first]));
      }
      archs->push_back(*arch);
      locs->push_back(loc(item));
    }
    return {};
  }

  Result<Arch> read_arch(const Field& f) const {
    auto name = read_scalar(f);
    FL_TRY(name);
    if (const auto arch = parse_arch(*name)) return *arch;  // names and aliases
    Keys valid;
    for (const auto& info : all_archs()) valid.emplace_back(info.name);
    return unknown_choice(f, *name, valid, "arch");
  }

  // "unknown <what> 'x'; did you mean ...? (valid: ...)"
  Error unknown_choice(const Field& f, const std::string& name, const Keys& valid, const std::string& what) const {
    std::string message = "unknown " + what + " '" + name + "'";
    if (auto near = closest_match(name, valid)) message += "; did you mean '" + *near + "'?";
    return error(f, message + " (valid: " + join(valid) + ")");
  }

  // A scalar that must be one of `valid`.
  Result<std::string> read_choice(const Field& f, const Keys& valid, const std::string& what) const {
    auto name = read_scalar(f);
    FL_TRY(name);
    if (std::find(valid.begin(), valid.end(), *name) != valid.end()) return *name;
    return unknown_choice(f, *name, valid, what);
  }

  // ---- machine ----

  Status parse_machine(const Field& f, MachineSpec* m) const {
    auto fields = read_map(f, &kMachineKeys);
    FL_TRY(fields);
    if (const Field* a = fields->find("accel")) {
      auto name = read_choice(*a, {"auto", "kvm", "tcg"}, "accelerator");
      FL_TRY(name);
      m->accel = *parse_accel_choice(*name);
    }
    if (const Field* b = fields->find("backend")) {  // checked against the backend table by the CLI
      auto name = read_scalar(*b);
      FL_TRY(name);
      m->backend = *name;
      m->backend_loc = loc(*b);
    }
    if (const Field* c = fields->find("connect")) {
      auto uri = read_scalar(*c);
      FL_TRY(uri);
      if (m->backend != "libvirt") return error(*c, "a libvirt connection URI; needs backend: libvirt");
      m->connect = *uri;
    }
    if (const Field* c = fields->find("cpus")) {
      auto n = read_int(*c);
      FL_TRY(n);
      if (*n < 1) return error(*c, "must be at least 1");
      m->cpus = static_cast<int>(*n);
    }
    const Field* memory = fields->find("memory");
    if (memory) {
      auto mib = read_memory(*memory);
      FL_TRY(mib);
      m->memory_loc = loc(*memory);
      if (*mib == 0) return error(*memory, "must be more than 0");
      m->memory_mb = *mib;
    }
    if (const Field* n = fields->find("numa")) {
      FL_TRY(parse_numa(*n, memory != nullptr, m));
      if (!memory) m->memory_loc = loc(*n);
    }
    return {};
  }

  Status parse_numa(const Field& f, bool memory_given, MachineSpec* m) const {
    auto fields = read_map(f, &kNumaKeys);
    FL_TRY(fields);
    FL_TRY(require(*fields, f, {"nodes"}));
    const Field& nodes_field = *fields->find("nodes");
    auto nodes = read_list(nodes_field, "must list at least one node");
    FL_TRY(nodes);
    std::vector<int> owner(static_cast<size_t>(m->cpus), -1);
    uint64_t total = 0;
    for (size_t i = 0; i < nodes->size(); ++i) {
      const Field& node_field = (*nodes)[i];
      auto node_fields = read_map(node_field, &kNodeKeys);
      FL_TRY(node_fields);
      FL_TRY(require(*node_fields, node_field, {"cpus", "memory"}));
      NumaNode node;
      auto cpus = read_list(*node_fields->find("cpus"), nullptr);
      FL_TRY(cpus);
      for (const Field& cpu_field : *cpus) {
        auto cpu = read_int(cpu_field);
        FL_TRY(cpu);
        if (*cpu < 0 || *cpu >= m->cpus) {
          return error(cpu_field, "cpu " + std::to_string(*cpu) + " out of range (machine has " +
                                      std::to_string(m->cpus) + " cpus: 0.." +
                                      std::to_string(m->cpus - 1) + ")");
        }
        int& slot = owner[static_cast<size_t>(*cpu)];
        if (slot >= 0) {
          return error(cpu_field, "cpu " + std::to_string(*cpu) + " is already in node " +
                                      std::to_string(slot));
        }
        slot = static_cast<int>(i);
        node.cpus.push_back(static_cast<int>(*cpu));
      }
      auto memory = read_memory(*node_fields->find("memory"));
      FL_TRY(memory);
      node.memory_mb = *memory;
      total += *memory;
      m->numa.push_back(std::move(node));
    }
    for (size_t cpu = 0; cpu < owner.size(); ++cpu) {
      if (owner[cpu] < 0) {
        return error(nodes_field, "cpu " + std::to_string(cpu) + " is in no node");
      }
    }
    if (total == 0) return error(nodes_field, "node memories sum to 0");
    if (memory_given && total != m->memory_mb) {
      return error(nodes_field, "node memories sum to " + std::to_string(total) +
                                    " MiB but machine.memory is " + std::to_string(m->memory_mb) +
                                    " MiB");
    }
    m->memory_mb = total;
    if (const Field* d = fields->find("distance")) FL_TRY(parse_distance(*d, m));
    return {};
  }

  // QEMU accepts distances 10..255 and requires 10 from a node to itself.
  Status parse_distance(const Field& f, MachineSpec* m) const {
    const size_t n = m->numa.size();
    auto rows = read_list(f, nullptr);
    FL_TRY(rows);
    if (rows->size() != n) {
      return error(f, "expected " + std::to_string(n) + " rows (one per node), got " +
                          std::to_string(rows->size()));
    }
    for (size_t i = 0; i < n; ++i) {
      auto cells = read_list((*rows)[i], nullptr);
      FL_TRY(cells);
      if (cells->size() != n) {
        return error((*rows)[i], "expected " + std::to_string(n) + " entries, got " +
                                     std::to_string(cells->size()));
      }
      std::vector<int> row;
      for (size_t j = 0; j < n; ++j) {
        const Field& cell = (*cells)[j];
        auto value = read_int(cell);
        FL_TRY(value);
        if (i == j && *value != 10) return error(cell, "distance from a node to itself must be 10");
        if (*value < 10 || *value > 255) return error(cell, "distance must be in 10..255");
        row.push_back(static_cast<int>(*value));
      }
      m->numa_distance.push_back(std::move(row));
    }
    return {};
  }

  // ---- knob sets ----

  Status parse_knob_sets(const Field& f, std::vector<KnobSet>* out) const {
    auto sets = read_map(f, nullptr);
    FL_TRY(sets);
    if (sets->entries.empty()) return error(f, "must define at least one knob set");
    for (const auto& [name, field] : sets->entries) {
      if (name.empty() || name.find_first_of("\t\n\r") != std::string::npos) {
        return key_error(field, "invalid knob set name: must be non-empty, one line");
      }
      KnobSet set;
      set.name = name;
      set.loc = loc(field.key);
      if (!field.value.IsNull()) FL_TRY(parse_knob_set(field, &set));
      out->push_back(std::move(set));
    }
    return {};
  }

  Status parse_knob_set(const Field& f, KnobSet* set) const {
    auto fields = read_map(f, nullptr);
    FL_TRY(fields);
    for (const auto& [key, field] : fields->entries) {
      if (key == "sysctl") {
        FL_TRY(parse_paths(field, kSysctlRoot, &set->sysctls));
      } else if (key == "cmdline") {
        auto cmdline = read_scalar(field);
        FL_TRY(cmdline);
        set->cmdline = *cmdline;
      } else {
        if (key.find('/') == std::string::npos) {
          if (auto near = closest_match(key, kReservedKnobKeys)) {
            return key_error(field, "unknown key; did you mean '" + *near + "'?");
          }
        }
        FL_TRY(check_path(field, key, kThpRoot));
        auto value = read_nonempty(field);
        FL_TRY(value);
        set->knobs.emplace_back(key, *value);
        set->knob_locs.push_back(loc(field));
      }
    }
    return {};
  }

  Status parse_paths(const Field& f, std::string_view root, KeyValues* out) const {
    auto fields = read_map(f, nullptr);
    FL_TRY(fields);
    for (const auto& [key, field] : fields->entries) {
      if (key.find('/') == std::string::npos && key.find('.') != std::string::npos) {
        std::string slashed = key;
        std::replace(slashed.begin(), slashed.end(), '.', '/');
        return key_error(field, "sysctl keys are paths under " + std::string(root) +
                                    "; did you mean '" + slashed + "'?");
      }
      FL_TRY(check_path(field, key, root));
      auto value = read_nonempty(field);
      FL_TRY(value);
      out->emplace_back(key, *value);
    }
    return {};
  }

  Status check_path(const Field& field, const std::string& key, std::string_view root) const {
    if (is_relative_path(key)) return {};
    if (key.starts_with(root)) {
      return key_error(field, "write the path relative to " + std::string(root) + ": '" +
                                  key.substr(root.size()) + "'");
    }
    return key_error(field, "invalid path '" + key + "': expected a path relative to " +
                                std::string(root) + " ([A-Za-z0-9_/.-], no '..', no leading '/')");
  }

  // ---- workloads ----

  Status parse_workloads(const Field& f, std::vector<WorkloadSpec>* out) const {
    auto items = read_list(f, "must list at least one workload");
    FL_TRY(items);
    std::vector<SourceLoc> label_locs;
    for (const Field& item : *items) {
      WorkloadSpec w;
      SourceLoc label_loc;
      std::string label_path;
      FL_TRY(parse_workload(item, &w, &label_loc, &label_path));
      for (size_t i = 0; i < out->size(); ++i) {
        if ((*out)[i].label == w.label) {
          return error(label_loc, label_path,
                       "duplicate workload label '" + w.label + "'" + first_at(label_locs[i]) +
                           "; give one of them a distinct 'label'");
        }
      }
      out->push_back(std::move(w));
      label_locs.push_back(label_loc);
    }
    return {};
  }

  Status parse_workload(const Field& f, WorkloadSpec* w, SourceLoc* label_loc,
                        std::string* label_path) const {
    auto fields = read_map(f, &kWorkloadKeys);
    FL_TRY(fields);
    w->loc = loc(f.value);
    if (const Field* n = fields->find("name")) {
      auto name = read_scalar(*n);
      FL_TRY(name);
      const bool lower =
          std::none_of(name->begin(), name->end(), [](char c) { return c >= 'A' && c <= 'Z'; });
      if (!lower || !is_word(*name, "_-")) {
        return error(*n, "invalid workload name '" + *name + "': use [a-z0-9_-]");
      }
      w->name = *name;
      w->name_loc = loc(*n);
      w->label = *name;
      *label_loc = loc(*n);
      *label_path = n->path;
    }
    if (const Field* l = fields->find("label")) {
      auto label = read_nonempty(*l);
      FL_TRY(label);
      w->label = *label;
      *label_loc = loc(*l);
      *label_path = l->path;
    }
    if (const Field* p = fields->find("params")) {
      auto params = read_map(*p, nullptr);
      FL_TRY(params);
      for (const auto& [key, field] : params->entries) {
        if (!is_word(key, "_.-")) {
          return key_error(field, "invalid parameter name '" + key + "': use [A-Za-z0-9_.-]");
        }
        auto value = read_scalar(field);
        FL_TRY(value);
        w->params.emplace_back(key, *value);
        w->param_key_locs.push_back(loc(field.key));
        w->param_locs.push_back(loc(field));
      }
    }
    if (const Field* m = fields->find("metrics")) FL_TRY(parse_metric_decls(*m, w));
    if (const Field* x = fields->find("exclusive")) {
      auto on = read_bool(*x);
      FL_TRY(on);
      w->exclusive = *on;
    }
    return require(*fields, f, {"name"});
  }

  // metrics: {latency_ns: {unit: ns, better: lower, kind: timing}}; a scalar, or `pattern:`,
  // is a regex for `output: regex` (checked with the workload catalog).
  Status parse_metric_decls(const Field& f, WorkloadSpec* w) const {
    auto metrics = read_map(f, nullptr);
    FL_TRY(metrics);
    for (const auto& [name, field] : metrics->entries) {
      if (!is_word(name, "_.-")) {
        return key_error(field, "invalid metric name '" + name + "': use [A-Za-z0-9_.-]");
      }
      if (field.value.IsScalar()) {
        auto pattern = read_nonempty(field);
        FL_TRY(pattern);
        w->metric_patterns.emplace_back(name, *pattern);
        w->pattern_locs.push_back(loc(field));
        continue;
      }
      auto decl = read_map(field, &kMetricDeclKeys);
      FL_TRY(decl);
      if (const Field* p = decl->find("pattern")) {
        auto pattern = read_nonempty(*p);
        FL_TRY(pattern);
        w->metric_patterns.emplace_back(name, *pattern);
        w->pattern_locs.push_back(loc(*p));
      }
      MetricInfo info;
      info.known = true;
      if (const Field* u = decl->find("unit")) {
        auto unit = read_scalar(*u);
        FL_TRY(unit);
        info.unit = *unit;
      }
      if (const Field* b = decl->find("better")) {
        auto better = read_better(*b);
        FL_TRY(better);
        info.better = *better;
      }
      if (const Field* k = decl->find("kind")) {
        auto text = read_scalar(*k);
        FL_TRY(text);
        auto kind = parse_metric_kind(*text);
        if (!kind) return error(*k, "unknown kind '" + *text + "' (valid: count, timing)");
        info.kind = *kind;
      }
      w->metrics.emplace_back(name, info);
    }
    return {};
  }

  Result<Better> read_better(const Field& f) const {
    auto text = read_scalar(f);
    FL_TRY(text);
    auto better = parse_better(*text);
    if (!better) return error(f, "unknown direction '" + *text + "' (valid: higher, lower, none)");
    return *better;
  }

  // ---- gate ----

  Status parse_gate_rules(const Field& f, std::vector<GateRule>* out) const {
    auto items = read_list(f, nullptr);
    FL_TRY(items);
    for (const Field& item : *items) {
      GateRule rule;
      FL_TRY(parse_gate_rule(item, &rule));
      out->push_back(std::move(rule));
    }
    return {};
  }

  Status parse_gate_rule(const Field& f, GateRule* g) const {
    auto fields = read_map(f, &kGateKeys);
    FL_TRY(fields);
    g->loc = loc(f.value);
    FL_TRY(require(*fields, f, {"metric"}));
    auto metric = read_nonempty(*fields->find("metric"));
    FL_TRY(metric);
    g->metric = *metric;
    g->metric_loc = loc(*fields->find("metric"));
    if (const Field* n = fields->find("name")) {
      auto name = read_nonempty(*n);
      FL_TRY(name);
      g->name = *name;
    }
    if (const Field* r = fields->find("runs")) FL_TRY(parse_selector(*r, &g->runs));
    if (const Field* b = fields->find("better")) {
      auto better = read_better(*b);
      FL_TRY(better);
      g->better = *better;
    }
    if (const Field* t = fields->find("timings")) {
      auto on = read_bool(*t);
      FL_TRY(on);
      g->timings_under_tcg = *on;
    }
    const Field* max = fields->find("max_regression");
    const Field* equal = fields->find("equal");
    if ((max != nullptr) == (equal != nullptr)) {
      return error(loc(f.value), f.path,
                   "give exactly one of 'max_regression' (e.g. 5%) and 'equal: true'");
    }
    std::string limit;
    if (max) {
      auto text = read_scalar(*max);
      FL_TRY(text);
      double pct = 0;
      const bool has_pct = !text->empty() && text->back() == '%';
      const std::string number = has_pct ? text->substr(0, text->size() - 1) : *text;
      const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), pct);
      if (!has_pct || number.empty() || ec != std::errc() ||
          ptr != number.data() + number.size() || pct < 0 || !std::isfinite(pct)) {
        return error(*max, "expected a percentage such as 5% or 0%, got '" + *text + "'");
      }
      g->max_regression = pct / 100;
      limit = "regresses by at most " + *text;
    } else {
      auto on = read_bool(*equal);
      FL_TRY(on);
      if (!*on) return error(*equal, "only 'equal: true' is meaningful; use max_regression");
      g->equal = true;
      limit = "unchanged";
    }
    if (g->name.empty()) g->name = g->metric + " " + limit + " (" + selector_text(g->runs) + ")";
    return {};
  }

  Result<bool> read_bool(const Field& f) const {
    auto text = read_scalar(f);
    FL_TRY(text);
    if (*text == "true") return true;
    if (*text == "false") return false;
    return error(f, "expected true or false, got '" + *text + "'");
  }

  // ---- run selections: exclude, expect ----

  Result<double> read_number(const Field& f) const {
    auto text = read_scalar(f);
    FL_TRY(text);
    double value = 0;
    const char* begin = text->data();
    const char* end = begin + text->size();
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (text->empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
      return error(f, "expected a number, got '" + *text + "'");
    }
    return value;
  }

  // Names are resolved against the rest of the document later (check_references), since the
  // keys may come in any order.
  Status parse_selector(const Field& f, RunSelector* sel) const {
    auto fields = read_map(f, &kSelectorKeys);
    FL_TRY(fields);
    sel->loc = loc(f.value);
    for (const auto& [key, field] : fields->entries) {
      if (key == "arch") {
        auto arch = read_arch(field);
        FL_TRY(arch);
        sel->arch = *arch;
        sel->arch_loc = loc(field);
        continue;
      }
      auto value = read_nonempty(field);
      FL_TRY(value);
      if (key == "kernel") {
        sel->kernel = *value;
        sel->kernel_loc = loc(field);
      } else if (key == "knobs") {
        sel->knobs = *value;
        sel->knobs_loc = loc(field);
      } else {
        sel->workload = *value;
        sel->workload_loc = loc(field);
      }
    }
    return {};
  }

  Status parse_excludes(const Field& f, std::vector<RunSelector>* out) const {
    auto items = read_list(f, nullptr);
    FL_TRY(items);
    for (const Field& item : *items) {
      RunSelector sel;
      FL_TRY(parse_selector(item, &sel));
      if (sel.empty()) {
        return error(item, "an empty entry would exclude every run; give at least one of " +
                               join(kSelectorKeys));
      }
      out->push_back(std::move(sel));
    }
    return {};
  }

  Status parse_expectations(const Field& f, std::vector<Expectation>* out) const {
    auto items = read_list(f, nullptr);
    FL_TRY(items);
    for (const Field& item : *items) {
      Expectation e;
      FL_TRY(parse_expectation(item, &e));
      out->push_back(std::move(e));
    }
    return {};
  }

  Status parse_expectation(const Field& f, Expectation* e) const {
    auto fields = read_map(f, &kExpectKeys);
    FL_TRY(fields);
    e->loc = loc(f.value);
    FL_TRY(require(*fields, f, {"metric"}));
    if (const Field* n = fields->find("name")) {
      auto name = read_nonempty(*n);
      FL_TRY(name);
      e->name = *name;
    }
    if (const Field* r = fields->find("runs")) FL_TRY(parse_selector(*r, &e->runs));
    {
      const Field& m = *fields->find("metric");
      auto metric = read_nonempty(m);
      FL_TRY(metric);
      if (metric->find(' ') != std::string::npos) {
        return error(m, "invalid metric name '" + *metric + "': no spaces");
      }
      e->metric = *metric;
      e->metric_loc = loc(m);
    }
    if (const Field* s = fields->find("stat")) {
      auto stat = read_scalar(*s);
      FL_TRY(stat);
      const auto it = std::find(kStatNames.begin(), kStatNames.end(), *stat);
      if (it == kStatNames.end()) {
        std::string message = "unknown stat '" + *stat + "'";
        if (auto near = closest_match(*stat, kStatNames)) {
          message += "; did you mean '" + *near + "'?";
        }
        return error(*s, message + " (valid: " + join(kStatNames) + ")");
      }
      e->stat = static_cast<Statistic>(it - kStatNames.begin());
    }
    if (const Field* r = fields->find("ratio_to")) {
      RunSelector partner;
      FL_TRY(parse_selector(*r, &partner));
      if (partner.empty()) {
        return error(*r,
                     "give the fields in which the reference run differs, e.g. {knobs: \"4K\"}");
      }
      e->ratio_to = std::move(partner);
    }
    std::string value_text;
    FL_TRY(parse_comparison(f, *fields, e, &value_text));
    if (e->name.empty()) e->name = generated_name(*e, value_text);
    return {};
  }

  // Exactly one of kCompareKeys; `tolerance` only (and always) with approx.
  Status parse_comparison(const Field& item, const Fields& fields, Expectation* e,
                          std::string* value_text) const {
    const Field* comparison = nullptr;
    for (const auto& [key, field] : fields.entries) {
      if (std::find(kCompareKeys.begin(), kCompareKeys.end(), key) == kCompareKeys.end()) continue;
      if (comparison) {
        return key_error(field, "only one comparison per expectation ('" +
                                    comparison->key.Scalar() + "'" +
                                    first_at(loc(comparison->key)) + "); write two expectations");
      }
      comparison = &field;
    }
    if (!comparison) {
      return error(loc(item.value), item.path,
                   "missing comparison: give exactly one of " + join(kCompareKeys));
    }
    const std::string op = comparison->key.Scalar();
    e->op = static_cast<CompareOp>(std::find(kCompareKeys.begin(), kCompareKeys.end(), op) -
                                   kCompareKeys.begin());
    auto value = read_number(*comparison);
    FL_TRY(value);
    e->value = *value;
    *value_text = comparison->value.Scalar();
    const Field* tolerance = fields.find("tolerance");
    if (e->op != CompareOp::kApprox) {
      if (tolerance) return key_error(*tolerance, "'tolerance' applies only to 'approx'");
      return {};
    }
    if (!tolerance) {
      return key_error(*comparison, "'approx' needs a relative 'tolerance' (e.g. tolerance: 0.1)");
    }
    auto tol = read_number(*tolerance);
    FL_TRY(tol);
    if (*tol < 0) return error(*tolerance, "must not be negative");
    e->tolerance = *tol;
    return {};
  }

  // "faults / knobs=4K <= 0.08 (knobs=64K mTHP)", "median faults approx 100 ±10% (all runs)".
  static std::string generated_name(const Expectation& e, const std::string& value_text) {
    std::string out;
    if (e.stat != Statistic::kMean) out += std::string(statistic_name(e.stat)) + " ";
    out += e.metric;
    if (e.ratio_to) out += " / " + selector_text(*e.ratio_to);
    out += " " + std::string(compare_op_text(e.op)) + " " + value_text;
    if (e.op == CompareOp::kApprox) {
      char tol[32];
      std::snprintf(tol, sizeof tol, " ±%g%%", e.tolerance * 100);
      out += tol;
    }
    return out + " (" + selector_text(e.runs) + ")";
  }

  // ---- references between sections ----

  Status check_references(const Experiment& exp) const {
    for (size_t k = 0; k < exp.kernels.size(); ++k) {
      const KernelSpec& kernel = exp.kernels[k];
      for (size_t i = 0; i < kernel.archs.size(); ++i) {
        if (std::find(exp.archs.begin(), exp.archs.end(), kernel.archs[i]) != exp.archs.end()) {
          continue;
        }
        return error(kernel.arch_locs[i], index_path(index_path("kernels", k) + ".archs", i),
                     "arch '" + std::string(arch_info(kernel.archs[i]).name) +
                         "' is not in the experiment's archs (" + arch_names(exp) + ")");
      }
    }
    for (size_t i = 0; i < exp.excludes.size(); ++i) {
      FL_TRY(check_selector(exp, exp.excludes[i], index_path("exclude", i)));
    }
    for (size_t i = 0; i < exp.expectations.size(); ++i) {
      const Expectation& e = exp.expectations[i];
      const std::string path = index_path("expect", i);
      FL_TRY(check_selector(exp, e.runs, path + ".runs"));
      if (e.ratio_to) FL_TRY(check_selector(exp, *e.ratio_to, path + ".ratio_to"));
    }
    for (size_t i = 0; i < exp.gate_rules.size(); ++i) {
      FL_TRY(check_selector(exp, exp.gate_rules[i].runs, index_path("gate", i) + ".runs"));
    }
    return {};
  }

  static std::string arch_names(const Experiment& exp) {
    Keys names;
    for (Arch a : exp.archs) names.emplace_back(arch_info(a).name);
    return join(names);
  }

  Status check_selector(const Experiment& exp, const RunSelector& sel,
                        const std::string& path) const {
    Keys kernels, knob_sets, labels;
    for (const auto& k : exp.kernels) kernels.push_back(k.name);
    for (const auto& s : exp.knob_sets) knob_sets.push_back(s.name);
    for (const auto& w : exp.workloads) labels.push_back(w.label);
    auto check = [&](const std::string& value, const Keys& valid, const char* key, const char* what,
                     const SourceLoc& at) -> Status {
      if (value.empty() || std::find(valid.begin(), valid.end(), value) != valid.end()) return {};
      std::string message = "no " + std::string(what) + " named '" + value + "'";
      if (auto near = closest_match(value, valid)) {
        message += "; did you mean '" + *near + "'?";
      } else {
        message += " (defined: " + join(valid) + ")";
      }
      return error(at, path + "." + key, message);
    };
    FL_TRY(check(sel.kernel, kernels, "kernel", "kernel", sel.kernel_loc));
    if (sel.arch && std::find(exp.archs.begin(), exp.archs.end(), *sel.arch) == exp.archs.end()) {
      return error(sel.arch_loc, path + ".arch",
                   "arch '" + std::string(arch_info(*sel.arch).name) +
                       "' is not in the experiment's archs (" + arch_names(exp) + ")");
    }
    FL_TRY(check(sel.knobs, knob_sets, "knobs", "knob set", sel.knobs_loc));
    return check(sel.workload, labels, "workload", "workload label", sel.workload_loc);
  }

  std::string file_;
};

}  // namespace

Result<Experiment> parse_experiment(const std::string& yaml_text, const std::string& file_name) {
  try {
    const std::vector<YAML::Node> docs = YAML::LoadAll(yaml_text);
    if (docs.empty() || docs[0].IsNull()) {
      return make_error(file_name + ":1:1: empty experiment file");
    }
    if (docs.size() > 1) {
      const YAML::Mark mark = docs[1].Mark();
      return make_error(file_name + ":" + std::to_string(mark.line + 1) + ":" +
                        std::to_string(mark.column + 1) +
                        ": only one YAML document per experiment file");
    }
    return Parser(file_name).parse(docs[0]);
  } catch (const YAML::Exception& e) {
    // yaml-cpp marks are 0-based.
    return make_error(file_name + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    return make_error(file_name + ": " + e.what());
  }
}

Result<Experiment> load_experiment(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return make_error(path + ": read error");
  return parse_experiment(text.str(), path);
}

}  // namespace foliolab
