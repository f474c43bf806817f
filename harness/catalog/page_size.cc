#include "catalog/page_size.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "catalog/workload_catalog.h"
#include "model/matrix.h"
#include "model/problems.h"
#include "util/text.h"

namespace foliolab {
namespace {

bool selects(const KernelSpec& kernel, std::string_view fragment, std::string_view option) {
  if (std::find(kernel.config.begin(), kernel.config.end(), fragment) != kernel.config.end()) {
    return true;
  }
  for (const auto& [k, v] : kernel.options) {
    if (k == option && v == "y") return true;
  }
  return false;
}

// The runs of one workload parameter on kernels of one page size.
struct Use {
  std::set<std::string> kernels;
  std::set<std::string> archs;
};

std::string nearest(uint64_t bytes, uint64_t page) {
  const uint64_t below = bytes / page * page, above = below + page;
  if (below == 0) return size_text(above);
  return size_text(below) + ", " + size_text(above);
}

std::string listing(const std::set<std::string>& items) {
  return join(std::vector<std::string>(items.begin(), items.end()), ", ");
}

}  // namespace

int guest_page_size_kb(const KernelSpec& kernel, Arch arch) {
  const ArchInfo& ai = arch_info(arch);
  for (const PageSizeChoice& c : ai.page_sizes) {
    if (selects(kernel, c.fragment, c.option)) return c.kb;
  }
  return ai.base_page_kb;
}

std::string size_text(uint64_t bytes) {
  constexpr std::pair<uint64_t, const char*> kUnits[] = {
      {1ull << 30, "G"}, {1ull << 20, "M"}, {1ull << 10, "K"}};
  for (const auto& [unit, suffix] : kUnits) {
    if (bytes >= unit && bytes % unit == 0) return std::to_string(bytes / unit) + suffix;
  }
  return std::to_string(bytes);
}

Result<void> check_page_multiples(const Experiment& exp) {
  // (workload, param index, page size in kB) -> the kernels and archs of those runs.
  std::map<std::tuple<size_t, size_t, int>, Use> uses;
  for (const Run& run : expand(exp)) {
    const WorkloadSpec& w = exp.workloads[run.workload];
    const WorkloadInfo* info = find_workload(w.name);
    if (!info) continue;  // validate_workloads names it
    const KernelSpec& kernel = exp.kernels[run.kernel];
    const int page_kb = guest_page_size_kb(kernel, run.arch);
    for (size_t i = 0; i < w.params.size(); ++i) {
      const ParamInfo* p = info->param(w.params[i].first);
      if (!p || !p->page_multiple) continue;
      auto bytes = parse_workload_size(w.params[i].second);
      if (!bytes || *bytes % (static_cast<uint64_t>(page_kb) << 10) == 0) continue;
      Use& use = uses[{run.workload, i, page_kb}];
      use.kernels.insert(kernel.name);
      use.archs.insert(std::string(arch_info(run.arch).name));
    }
  }
  Problems problems;
  for (const auto& [key, use] : uses) {
    const auto& [wi, pi, page_kb] = key;
    const WorkloadSpec& w = exp.workloads[wi];
    const uint64_t page = static_cast<uint64_t>(page_kb) << 10;
    const uint64_t bytes = *parse_workload_size(w.params[pi].second);
    problems.add(w.param_locs.at(pi),
                 "workloads[" + std::to_string(wi) + "].params." + w.params[pi].first,
                 w.params[pi].second + " is not a multiple of the " + size_text(page) +
                     " page size of kernel " + listing(use.kernels) + " (" + listing(use.archs) +
                     "); nearest valid sizes: " + nearest(bytes, page));
  }
  return problems.status();
}

}  // namespace foliolab
