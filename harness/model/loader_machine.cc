// The experiment loader: archs and the machine (accelerator, timing, backend, cpus, memory, NUMA).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "model/file_keys.h"
#include "model/loader_internal.h"
#include "util/text.h"

namespace foliolab::loader_internal {

Result<void> Parser::parse_archs(const Field& f, Experiment* exp) const {
  return parse_arch_list(f, "must list at least one arch", &exp->archs, &exp->arch_locs);
}

Result<void> Parser::parse_arch_list(const Field& f, const char* what_if_empty,
                                     std::vector<Arch>* archs, std::vector<SourceLoc>* locs) const {
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

Result<Arch> Parser::read_arch(const Field& f) const {
  auto name = read_scalar(f);
  FL_TRY(name);
  if (const auto arch = parse_arch(*name)) return *arch;  // names and aliases
  Keys valid;
  for (const auto& info : all_archs()) valid.emplace_back(info.name);
  return unknown_choice(f, *name, valid, "arch");
}

Result<void> Parser::parse_machine(const Field& f, MachineSpec* m) const {
  const ValueType& table = file_keys::machine();
  auto fields = read_map(f, &table.names());
  FL_TRY(fields);
  if (const Field* a = fields->find("accel")) {
    auto name = read_choice(*a, table.values_of("accel"), "accelerator");
    FL_TRY(name);
    m->accel = *parse_accel_choice(*name);
  }
  if (const Field* t = fields->find("timing")) {
    auto name = read_choice(*t, table.values_of("timing"), "timing mode");
    FL_TRY(name);
    m->timing = *parse_timing_mode(*name);
    m->timing_loc = loc(*t);
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
    if (m->backend == "kexec") {
      if (uri->rfind("ssh://", 0) != 0)
        return error(*c, "a lab machine's ssh://[user@]host[:port]; backend kexec");
    } else if (m->backend != "libvirt") {
      return error(*c,
                   "a libvirt connection URI (needs backend: libvirt) or a lab machine's "
                   "ssh:// URI (needs backend: kexec)");
    }
    m->connect = *uri;
    m->connect_loc = loc(*c);
  }
  if (const Field* i = fields->find("image")) {  // checked against images/ by validate_project
    auto name = read_nonempty(*i);
    FL_TRY(name);
    if (!is_word(*name, "._-") || *name == "." || *name == ".." || name->size() > kMaxNameLength) {
      return error(*i, "invalid image recipe name '" + *name +
                           "': a name under images/ (letters, digits, '.', '_', '-'; not '.' or "
                           "'..')");
    }
    if (*name != "initramfs") {
      m->image = *name;
      m->image_loc = loc(*i);
    }
  }
  FL_TRY(parse_guest_size(*fields, m));
  return parse_machine_swap(*fields, m);
}

Result<void> Parser::parse_guest_size(const YamlFields& fields, MachineSpec* m) const {
  if (const Field* c = fields.find("cpus")) {
    auto n = read_int(*c);
    FL_TRY(n);
    if (*n < 1) return error(*c, "must be at least 1");
    m->cpus = static_cast<int>(*n);
  }
  const Field* memory = fields.find("memory");
  if (memory) {
    auto mib = read_memory(*memory);
    FL_TRY(mib);
    m->memory_loc = loc(*memory);
    if (*mib == 0) return error(*memory, "must be more than 0");
    m->memory_mb = *mib;
  }
  if (const Field* n = fields.find("numa")) {
    FL_TRY(parse_numa(*n, memory != nullptr, m));
    if (!memory) m->memory_loc = loc(*n);
  }
  return {};
}

// machine.zswap needs machine.swap, and a zram swap lives in the guest's memory.
Result<void> Parser::parse_machine_swap(const YamlFields& fields, MachineSpec* m) const {
  if (const Field* s = fields.find("swap")) FL_TRY(parse_swap(*s, &m->swap));
  if (const Field* z = fields.find("zswap")) FL_TRY(parse_zswap(*z, &m->zswap));
  if (m->zswap.enabled && !m->swap.enabled()) {
    return error(*fields.find("zswap"), "zswap caches swap: needs machine.swap");
  }
  if (m->swap.enabled() && m->swap.size_mb >= m->memory_mb &&
      m->swap.type == SwapSpec::Type::kZram) {
    return error(*fields.find("swap"),
                 fmt::format("a {} MiB zram swap cannot fit a {} MiB guest: zram lives in the "
                             "guest's memory",
                             m->swap.size_mb, m->memory_mb));
  }
  return {};
}

Result<void> Parser::parse_numa(const Field& f, bool memory_given, MachineSpec* m) const {
  auto fields = read_map(f, &file_keys::numa().names());
  FL_TRY(fields);
  FL_TRY(require(*fields, f, file_keys::numa().required()));
  const Field& nodes_field = *fields->find("nodes");
  auto nodes = read_list(nodes_field, "must list at least one node");
  FL_TRY(nodes);
  std::vector<int> owner(static_cast<size_t>(m->cpus), -1);
  uint64_t total = 0;
  for (size_t i = 0; i < nodes->size(); ++i) {
    const Field& node_field = (*nodes)[i];
    auto node_fields = read_map(node_field, &file_keys::numa_node().names());
    FL_TRY(node_fields);
    FL_TRY(require(*node_fields, node_field, file_keys::numa_node().required()));
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
        return error(cpu_field,
                     "cpu " + std::to_string(*cpu) + " is already in node " + std::to_string(slot));
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
Result<void> Parser::parse_distance(const Field& f, MachineSpec* m) const {
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

}  // namespace foliolab::loader_internal
