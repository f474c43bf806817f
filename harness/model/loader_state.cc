// The experiment loader: the machine's state (model/machine_state.h): `machine.swap`,
// `machine.zswap`, and the top-level `prepare`, `cgroup` and `monitor`.
#include <fmt/format.h>

#include <string>

#include "model/file_keys.h"
#include "model/loader_internal.h"
#include "util/text.h"

namespace foliolab {

const char* swap_type_name(SwapSpec::Type t) {
  switch (t) {
    case SwapSpec::Type::kZram:
      return "zram";
    case SwapSpec::Type::kDisk:
      return "disk";
    case SwapSpec::Type::kNone:
      break;
  }
  return "none";
}

const char* prepare_kind_name(PrepareStep::Kind k) {
  return k == PrepareStep::Kind::kReclaim ? "reclaim" : "fragment";
}

namespace loader_internal {
namespace {

// The highest buddy order any guest kernel has (MAX_PAGE_ORDER: 10 at 4K pages, 11 at 16K, 13
// at 64K); catalog/validate.cc checks each run's own page size.
constexpr int kMaxAnyOrder = 13;

}  // namespace

Result<void> Parser::parse_swap(const Field& f, SwapSpec* s) const {
  const ValueType& table = file_keys::swap();
  auto fields = read_map(f, &table.names());
  FL_TRY(fields);
  FL_TRY(require(*fields, f, table.required()));
  auto type = read_choice(*fields->find("type"), table.values_of("type"), "swap type");
  FL_TRY(type);
  s->type = *type == "zram" ? SwapSpec::Type::kZram : SwapSpec::Type::kDisk;
  auto size = read_memory(*fields->find("size"));
  FL_TRY(size);
  if (*size == 0) return error(*fields->find("size"), "must be more than 0");
  s->size_mb = *size;
  if (const Field* c = fields->find("compressor")) {
    if (s->type != SwapSpec::Type::kZram) {
      return error(*c, "a zram compressor; a disk swap compresses nothing (see machine.zswap)");
    }
    auto name = read_choice(*c, table.values_of("compressor"), "zram compressor");
    FL_TRY(name);
    s->compressor = *name;
  }
  s->loc = loc(f);
  return {};
}

Result<void> Parser::parse_zswap(const Field& f, ZswapSpec* z) const {
  const ValueType& table = file_keys::zswap();
  auto fields = read_map(f, &table.names());
  FL_TRY(fields);
  FL_TRY(require(*fields, f, table.required()));
  auto on = read_bool(*fields->find("enabled"));
  FL_TRY(on);
  z->enabled = *on;
  if (const Field* c = fields->find("compressor")) {
    auto name = read_choice(*c, table.values_of("compressor"), "zswap compressor");
    FL_TRY(name);
    z->compressor = *name;
  }
  z->loc = loc(f);
  return {};
}

Result<void> Parser::parse_prepare(const Field& f, std::vector<PrepareStep>* out) const {
  auto items = read_list(f, "must list at least one step, e.g. - fragment: {method: thpscale}");
  FL_TRY(items);
  for (const Field& item : *items) {
    auto step = read_map(item, &file_keys::prepare_step().names());
    FL_TRY(step);
    if (step->entries.size() != 1) {
      return error(item, "one step per item: fragment: {...} or reclaim: SIZE");
    }
    const auto& [kind, body] = step->entries.front();
    PrepareStep p;
    p.loc = loc(body);
    if (kind == "reclaim") {
      p.kind = PrepareStep::Kind::kReclaim;
      auto mib = read_memory(body);
      FL_TRY(mib);
      if (*mib == 0) return error(body, "must be more than 0");
      p.reclaim_bytes = *mib << 20;
    } else {
      FL_TRY(parse_fragment(body, &p));
    }
    out->push_back(std::move(p));
  }
  return {};
}

Result<void> Parser::parse_fragment(const Field& f, PrepareStep* p) const {
  const ValueType& table = file_keys::fragment();
  auto fields = read_map(f, &table.names());
  FL_TRY(fields);
  const Field* method = fields->find("method");
  p->method = fields->find("order") || fields->find("unusable") ? "unusable" : "thpscale";
  if (method) {
    auto name = read_choice(*method, table.values_of("method"), "fragmentation method");
    FL_TRY(name);
    p->method = *name;
  }
  FL_TRY(check_rules(*fields, table));  // what each method takes (file_keys::fragment)
  const Field* order = fields->find("order");
  const Field* unusable = fields->find("unusable");
  if (p->method == "churn") {
    FL_TRY(parse_churn(*fields, p));
  } else if (p->method == "unusable") {
    auto n = read_int(*order, 1, kMaxAnyOrder);
    FL_TRY(n);
    p->order = static_cast<int>(*n);
    auto x = read_number(*unusable);
    FL_TRY(x);
    if (!(*x > 0 && *x <= 1)) return error(*unusable, "an unusable free space index in (0, 1]");
    p->unusable = *x;
  }
  if (const Field* s = fields->find("seed")) {
    auto seed = read_int(*s, 1);
    FL_TRY(seed);
    p->seed = static_cast<uint64_t>(*seed);
  }
  if (const Field* pin = fields->find("pin")) {
    auto on = read_bool(*pin);
    FL_TRY(on);
    p->pin = *on;
  }
  if (const Field* r = fields->find("reserve")) {
    auto mib = read_memory(*r);
    FL_TRY(mib);
    p->reserve_mb = *mib;
  }
  return {};
}

// churn: {size: 768M, file_size: 64K, passes: 2, background: true}; no target, nothing to pin.
Result<void> Parser::parse_churn(const YamlFields& fields, PrepareStep* p) const {
  if (const Field* size = fields.find("size")) {
    auto mib = read_memory(*size);
    FL_TRY(mib);
    if (*mib == 0) return error(*size, "must be more than 0");
    p->churn_mb = *mib;
  }
  if (const Field* fs = fields.find("file_size")) {
    auto text = read_nonempty(*fs);
    FL_TRY(text);
    std::string why;
    const auto kb = parse_memory_kib(*text, &why);
    if (!kb || *kb < 4 || *kb > kMaxChurnFileKb || *kb % 4) {
      return error(*fs, fmt::format("a file size such as 64K or 1M: 4K to {}M, a multiple of 4K",
                                    kMaxChurnFileKb >> 10));
    }
    p->file_kb = *kb;
  }
  if (const Field* n = fields.find("passes")) {
    auto passes = read_int(*n, 1, kMaxChurnPasses);
    FL_TRY(passes);
    p->passes = static_cast<int>(*passes);
  }
  if (const Field* bg = fields.find("background")) {
    auto on = read_bool(*bg);
    FL_TRY(on);
    p->background = *on;
  }
  return {};
}

Result<void> Parser::parse_cgroup(const Field& f, CgroupSpec* c) const {
  auto fields = read_map(f, &file_keys::cgroup().names());  // cgroup_limit_files()
  FL_TRY(fields);
  if (fields->entries.empty()) return error(f, "must set at least one limit, e.g. memory.max: 64M");
  for (const auto& [file, value] : fields->entries) {
    auto text = read_nonempty(value);
    FL_TRY(text);
    if (*text == "max") {
      c->limits.emplace_back(file, "max");
      continue;
    }
    auto mib = read_memory(value);
    if (!mib.ok()) {
      return error(value,
                   fmt::format("'{}' is not a size: a size such as 64M or 1G, 0, or max", *text));
    }
    c->limits.emplace_back(file, std::to_string(*mib << 20));
  }
  c->loc = loc(f);
  return {};
}

Result<void> Parser::parse_monitor(const Field& f, MonitorSpec* m) const {
  auto fields = read_map(f, &file_keys::monitor().names());
  FL_TRY(fields);
  FL_TRY(require(*fields, f, file_keys::monitor().required()));
  const Field& period = *fields->find("period");
  auto text = read_nonempty(period);
  FL_TRY(text);
  std::string digits = *text;
  if (digits.ends_with("ms")) digits.resize(digits.size() - 2);
  const auto ms = parse_int(digits);
  if (!ms || *ms < kMinMonitorPeriodMs || *ms > 60000) {
    return error(period, fmt::format("a period in milliseconds, {}ms..60000ms, e.g. 100ms",
                                     kMinMonitorPeriodMs));
  }
  m->period_ms = static_cast<int>(*ms);
  m->loc = loc(f);
  if (!fields->find("counters")) {
    m->counters = default_monitor_counters();
    return {};
  }
  auto counters = read_list(*fields->find("counters"), "must list at least one counter");
  FL_TRY(counters);
  if (counters->size() > static_cast<size_t>(kMaxMonitorCounters)) {
    return error(*fields->find("counters"),
                 fmt::format("at most {} counters", kMaxMonitorCounters));
  }
  for (const Field& c : *counters) {
    auto name = read_nonempty(c);
    FL_TRY(name);
    const bool known_prefix = name->starts_with("vmstat.") || name->starts_with("meminfo.") ||
                              name->starts_with("mthp.") || name->starts_with("memcg.");
    const size_t dot = name->find('.');
    if (!known_prefix || dot + 1 >= name->size() ||
        name->find_first_of(" \t/") != std::string::npos) {
      return error(c, "'" + *name +
                          "' is not a counter: vmstat.<name>, meminfo.<field>, "
                          "mthp.<size>.<stat> (e.g. mthp.64kB.swpout) or memcg.<memory.stat key>");
    }
    m->counters.push_back(*name);
  }
  m->loc = loc(f);
  return {};
}

}  // namespace loader_internal
}  // namespace foliolab
