#include "catalog/workload_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "util/text.h"

namespace foliolab {
namespace {

constexpr std::string_view kTypeNames[] = {"size", "int", "enum", "bool", "string"};

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t end = std::min(text.find(' ', at), text.size());
    if (end > at) out.emplace_back(text.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

// The .def files hold literals the harness controls: a malformed one is a programming error
// that the catalog's unit tests catch.
ParamInfo make_param(const char* name, ParamType type, const char* def, const char* min,
                     const char* max, const char* choices, const char* doc) {
  ParamInfo p{.name = name, .type = type, .def = def, .choices = split_words(choices), .doc = doc};
  const std::string_view lo(min), hi(max);
  if (type == ParamType::kSize) {
    if (!lo.empty()) p.min = parse_workload_size(lo);
    if (!hi.empty()) p.max = parse_workload_size(hi);
  } else if (type == ParamType::kInt) {
    if (!lo.empty()) p.int_min = parse_int(lo);
    if (!hi.empty()) p.int_max = parse_int(hi);
  }
  return p;
}

// Tokens of the .def files.
#define SIZE Size
#define INT Int
#define ENUM Enum
#define BOOL Bool
#define STRING String
#define HIGHER Better::kHigher
#define LOWER Better::kLower
#define NONE Better::kNone
#define COUNT MetricKind::kCount
#define TIMING MetricKind::kTiming
#define FL_PARAM_TYPE(t) ParamType::k##t

std::vector<ParamInfo> common_params() {
  std::vector<ParamInfo> out;
#define FL_PARAM(name, type, def, min, max, choices, doc) \
  out.push_back(make_param(name, FL_PARAM_TYPE(type), def, min, max, choices, doc));
#include "../../workloads/common.def"
#undef FL_PARAM
  return out;
}

// FL_PRIMARY of a timing metric the workload declared above it.
void mark_primary(WorkloadInfo& w, const char* name) {
  for (WorkloadMetric& m : w.metrics) {
    if (m.name == name && m.info.kind == MetricKind::kTiming) {
      m.primary = true;
      return;
    }
  }
  std::abort();  // a .def marking a metric it does not declare, or a count
}

// FL_PAGE_MULTIPLE of a parameter the workload declared above it.
void mark_page_multiple(WorkloadInfo& w, const char* name) {
  for (ParamInfo& p : w.params) {
    if (p.name == name) {
      p.page_multiple = true;
      return;
    }
  }
  std::abort();  // a .def naming a parameter it does not declare
}

std::vector<WorkloadInfo> build_catalog() {
  std::vector<WorkloadInfo> all;
#define FL_WORKLOAD(n, d) all.push_back(WorkloadInfo{.name = n, .doc = d});
#define FL_PARAM(name, type, def, min, max, choices, doc) \
  all.back().params.push_back(make_param(name, FL_PARAM_TYPE(type), def, min, max, choices, doc));
#define FL_METRIC(name, unit, better, kind, doc) \
  all.back().metrics.push_back(WorkloadMetric{name, MetricInfo{unit, better, kind, true}, doc});
#define FL_PAGE_MULTIPLE(name) mark_page_multiple(all.back(), name);
#define FL_PRIMARY(name) mark_primary(all.back(), name);
#define FL_PACKAGES(list) all.back().packages = split_words(list);
#define FL_FULL_GUEST(why) all.back().full_guest = why;
#define FL_PEAK(where) all.back().peak = where;
// The catalog's order (custom last) is the order of these lines.
// clang-format off
#include "../../workloads/fault.def"
#include "../../workloads/zero-page.def"
#include "../../workloads/thp-util.def"
#include "../../workloads/numa-thp.def"
#include "../../workloads/tlb.def"
#include "../../workloads/kselftest-mm.def"
#include "../../workloads/thp-swap-allocator.def"
#include "../../workloads/swap.def"
#include "../../workloads/collapse.def"
#include "../../workloads/redis.def"
#include "../../workloads/memcg-stress.def"
#include "../../workloads/postgres.def"
#include "../../workloads/memcached.def"
#include "../../workloads/kbuild.def"
#include "../../workloads/custom.def"
// clang-format on
#undef FL_WORKLOAD
#undef FL_PARAM
#undef FL_METRIC
#undef FL_PAGE_MULTIPLE
#undef FL_PRIMARY
#undef FL_PACKAGES
#undef FL_FULL_GUEST
#undef FL_PEAK
  for (WorkloadInfo& w : all) {
    for (ParamInfo& p : common_params()) w.params.push_back(std::move(p));
  }
  all.back().open_metrics = true;  // custom (last)
  return all;
}

#undef FL_PARAM_TYPE
#undef SIZE
#undef INT
#undef ENUM
#undef BOOL
#undef STRING
#undef HIGHER
#undef LOWER
#undef NONE
#undef COUNT
#undef TIMING

std::string param_range(const ParamInfo& p) {
  switch (p.type) {
    case ParamType::kSize:
      if (p.min && p.max) return fmt::format("{}..{} bytes", *p.min, *p.max);
      if (p.min) return fmt::format(">= {} bytes", *p.min);
      return "bytes (K/M/G)";
    case ParamType::kInt:
      if (p.int_min && p.int_max) return fmt::format("{}..{}", *p.int_min, *p.int_max);
      return "integer";
    case ParamType::kEnum:
      return join(p.choices, " | ");
    case ParamType::kBool:
      return "true | false";
    case ParamType::kString:
      return "text";
  }
  return "";
}

}  // namespace

std::string_view param_type_name(ParamType t) { return kTypeNames[static_cast<size_t>(t)]; }

const ParamInfo* WorkloadInfo::param(std::string_view n) const {
  for (const auto& p : params) {
    if (p.name == n) return &p;
  }
  return nullptr;
}

const WorkloadMetric* WorkloadInfo::metric(std::string_view n) const {
  for (const auto& m : metrics) {
    if (m.name == n) return &m;
  }
  return nullptr;
}

const std::vector<WorkloadInfo>& workload_catalog() {
  static const std::vector<WorkloadInfo> kCatalog = build_catalog();
  return kCatalog;
}

const WorkloadInfo* find_workload(std::string_view name) {
  for (const auto& w : workload_catalog()) {
    if (w.name == name) return &w;
  }
  return nullptr;
}

std::vector<std::string> workload_names() {
  std::vector<std::string> out;
  for (const auto& w : workload_catalog()) out.push_back(w.name);
  return out;
}

std::optional<uint64_t> parse_workload_size(std::string_view text) {
  if (text.empty() || text.front() < '0' || text.front() > '9' || text.size() > 32) {
    return std::nullopt;
  }
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  if (*end == 'M' || *end == 'm') shift = 20;
  if (*end == 'G' || *end == 'g') shift = 30;
  if (errno || (shift && end[1]) || (!shift && *end) || v > (UINT64_MAX >> shift)) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(v) << shift;
}

std::optional<bool> parse_workload_bool(std::string_view text) {
  for (std::string_view t : {"1", "true", "yes", "on"}) {
    if (text == t) return true;
  }
  for (std::string_view f : {"0", "false", "no", "off"}) {
    if (text == f) return false;
  }
  return std::nullopt;
}

Result<void> check_param_value(const ParamInfo& p, const std::string& value) {
  switch (p.type) {
    case ParamType::kSize: {
      const auto bytes = parse_workload_size(value);
      if (!bytes) {
        return make_error("invalid size '" + value +
                          "': expected bytes with an optional K, M or G suffix (e.g. 64M)");
      }
      if ((p.min && *bytes < *p.min) || (p.max && *bytes > *p.max)) {
        return make_error(fmt::format("size {} out of range ({})", value, param_range(p)));
      }
      return {};
    }
    case ParamType::kInt: {
      const auto n = parse_int(value);
      if (!n) return make_error("expected an integer, got '" + value + "'");
      if ((p.int_min && *n < *p.int_min) || (p.int_max && *n > *p.int_max)) {
        return make_error(fmt::format("{} out of range ({})", value, param_range(p)));
      }
      return {};
    }
    case ParamType::kEnum:
      if (std::find(p.choices.begin(), p.choices.end(), value) != p.choices.end()) return {};
      return make_error("unknown value '" + value + "'" + did_you_mean(value, p.choices) +
                        " (valid: " + param_range(p) + ")");
    case ParamType::kBool:
      if (parse_workload_bool(value)) return {};
      return make_error("expected true or false (or 1/0, yes/no, on/off), got '" + value + "'");
    case ParamType::kString:
      return {};
  }
  return {};
}

std::string workload_list_markdown() {
  std::string out;
  // A list item's continuation lines are indented two beyond its dash.
  auto item = [&](const std::string& text) {
    for (const std::string& line : word_wrap(text, 100, 2)) out += line + "\n";
  };
  for (const auto& w : workload_catalog()) {
    std::vector<std::string> params, metrics;
    for (const auto& p : w.params) {
      params.push_back(fmt::format("`{}`{}", p.name, p.def.empty() ? "" : " (" + p.def + ")"));
    }
    for (const auto& m : w.metrics) metrics.push_back(fmt::format("`{}`", m.name));
    const std::string shown =
        w.open_metrics ? "what the program prints (see `output`)" : join(metrics, ", ");
    item(fmt::format("- `{}`: {}", w.name, w.doc));
    item(fmt::format("  - parameters (default): {}", join(params, ", ")));
    item(fmt::format("  - metrics: {}", shown));
  }
  return out;
}

std::string format_workload_list() {
  std::string out;
  for (const auto& w : workload_catalog()) {
    std::string params;
    for (const auto& p : w.params) params += (params.empty() ? "" : " ") + p.name;
    out += fmt::format("{:<10} {}\n{:<10} params: {}\n", w.name, w.doc, "", params);
    if (w.open_metrics) {
      out += fmt::format(
          "{:<10} metrics: from the program (output: foliolab | tap | regex | "
          "exit-status)\n",
          "");
    } else {
      out += fmt::format("{:<10} metrics: {}\n", "", w.metrics.size());
    }
  }
  return out + "\n`foliolab workloads <name>` shows a workload's parameters and metrics.\n";
}

std::string format_workload_details(const WorkloadInfo& w) {
  std::string out = fmt::format("{}: {}\n", w.name, w.doc);
  if (!w.packages.empty()) {
    out +=
        fmt::format("\npackages: {} (Debian; a machine.image root filesystem that installs them)\n",
                    join(w.packages, " "));
  }
  if (!w.full_guest.empty()) {
    out += fmt::format("\nguest kernel: the full one (kernel-config/guest-full.config): {}\n",
                       w.full_guest);
  }
  out += "\nparameters:\n";
  for (const auto& p : w.params) {
    out += fmt::format("  {:<18} {:<6} default {:<9} {}\n  {:<18} {}\n", p.name,
                       param_type_name(p.type), p.def.empty() ? "-" : p.def, param_range(p), "",
                       p.doc);
  }
  out += "\nmetrics:\n";
  if (w.open_metrics) {
    out +=
        "  output: foliolab   the fields of the one JSON line (declare them under metrics:)\n"
        "  output: tap        tap.pass, tap.fail, tap.skip (and each test as a result)\n"
        "  output: regex      one per metrics: {name: 'pattern with one (capture)'}\n"
        "  output: exit-status  none (pass or fail only)\n";
  }
  for (const auto& m : w.metrics) {
    out += fmt::format("  {:<24} {:<8} {:<6} better {:<6} {}\n", m.name,
                       m.info.unit.empty() ? "-" : m.info.unit, metric_kind_name(m.info.kind),
                       better_name(m.info.better),
                       m.primary ? m.doc + " (primary: adaptive reps watch it)" : m.doc);
  }
  return out;
}

}  // namespace foliolab
