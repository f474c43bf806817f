// The workload catalog: what each built-in workload (workloads/*.c, and `custom`) accepts and
// prints. The facts live next to the programs, one workloads/<name>.def file each
// (workloads/common.def: parameters every workload takes); this is their C++ face. It drives
// plan-time validation (model/workload_check.h), `foliolab workloads`, the manual's workload
// list (docs/workloads.md) and the metric catalog (model/metric_catalog.h), which reads
// workload metrics from here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/metric_kind.h"
#include "util/result.h"

namespace foliolab {

enum class ParamType { kSize, kInt, kEnum, kBool, kString };
std::string_view param_type_name(ParamType t);  // "size", "int", "enum", "bool", "string"

struct ParamInfo {
  std::string name;
  ParamType type = ParamType::kString;
  std::string def;                          // default as the program sees it; "" = none
  std::optional<uint64_t> min, max;         // kSize, bytes
  std::optional<int64_t> int_min, int_max;  // kInt
  std::vector<std::string> choices;         // kEnum
  std::string doc;
  // kSize: must be a multiple of the guest's base page size (FL_PAGE_MULTIPLE in the .def),
  // checked at plan against each run's kernel (catalog/page_size.h).
  bool page_multiple = false;
};

struct WorkloadMetric {
  std::string name;
  MetricInfo info;  // known = true
  std::string doc;
  bool primary = false;  // FL_PRIMARY: watched by adaptive repetitions (catalog/repeat_plan.h)
};

struct WorkloadInfo {
  std::string name;
  std::string doc;
  std::vector<ParamInfo> params;  // its own, then the common ones
  std::vector<WorkloadMetric> metrics;
  // `custom`: metrics come from the program and the experiment (declarations, TAP, patterns).
  bool open_metrics = false;
  // Debian packages the program runs (FL_PACKAGES in the .def): it needs a guest booted on a
  // Debian root filesystem (`machine.image`) whose recipe installs them. Empty: the initramfs
  // is enough.
  std::vector<std::string> packages;
  // Why it needs the full guest kernel (FL_FULL_GUEST in the .def: "debugfs, userfaultfd and
  // hugetlbfs"); empty: the small one serves (catalog/guest_kernel.h).
  std::string full_guest;
  // Where the program signals its peak for the folio census (FL_PEAK in the .def: wl_peak() in
  // workloads/common.h); empty: it does not, and `evidence: {census: true}` is refused.
  std::string peak;
  const ParamInfo* param(std::string_view name) const;
  const WorkloadMetric* metric(std::string_view name) const;
};

// Every workload, in the order: fault, zero-page, thp-util, numa-thp, tlb, kselftest-mm,
// thp-swap-allocator, swap, collapse, redis, memcg-stress, postgres, memcached, kbuild, custom.
const std::vector<WorkloadInfo>& workload_catalog();
const WorkloadInfo* find_workload(std::string_view name);
std::vector<std::string> workload_names();

// Whether `value` is acceptable for `p` as the program parses it; the message carries no
// location ("invalid size '64X': expected bytes with an optional K, M or G suffix (e.g. 64M)").
Result<void> check_param_value(const ParamInfo& p, const std::string& value);

// Bytes of a size parameter as the workloads parse it (wl_parse_size in workloads/common.h):
// decimal digits and an optional K, M or G (binary, either case), nothing else.
std::optional<uint64_t> parse_workload_size(std::string_view text);

// Booleans of a bool parameter: 1/true/yes/on and 0/false/no/off; the job gets "1" or "0".
std::optional<bool> parse_workload_bool(std::string_view text);

// The manual's list of workloads (Markdown, wrapped at 100 columns), generated from the catalog:
// each workload with what it does, its parameters and defaults, and its metrics. A unit test
// checks that docs/workloads.md holds it verbatim between the markers <!-- workloads:begin -->
// and :end.
std::string workload_list_markdown();

// `foliolab workloads` and `foliolab workloads <name>`.
std::string format_workload_list();
std::string format_workload_details(const WorkloadInfo& w);

}  // namespace foliolab
