#include "catalog/kselftest_catalog.h"

#include <algorithm>

#include "catalog/workload_catalog.h"
#include "util/text.h"

namespace foliolab {

namespace {

// Arguments as tools/testing/selftests/mm/run_vmtests.sh (Linux 6.12) passes them, made
// smaller where that script sizes the work by the guest's RAM.
const std::vector<KselftestProgram> kPrograms = {
    {"split_huge_page_test",
     {"vm_util.c", "thp_settings.c"},
     {},
     {},
     "splits PMD THPs (zero, anon, PTE-mapped, file, pagecache) through debugfs split_huge_pages"},
    // Linux 6.12.y's stable backport of thp_is_enabled() returns KSFT_SKIP without including
    // kselftest.h (khugepaged.c does not build there, Makefile or not); the same value
    // redefined is harmless where the include exists.
    {"khugepaged",
     {"vm_util.c", "thp_settings.c"},
     {"-DKSFT_SKIP=4"},
     {},
     "khugepaged and MADV_COLLAPSE on anonymous memory (the script's default contexts)"},
    {"cow",
     {"vm_util.c", "thp_settings.c"},
     {},
     {},
     "copy-on-write of base pages, THPs, mTHPs and hugetlb pages after fork, R/O pin, ..."},
    // run_vmtests.sh: -d 20 over all RAM; 64 MiB for 10 s keeps a TCG guest's time bounded.
    {"transhuge-stress",
     {"vm_util.c", "thp_settings.c"},
     {},
     {"-d", "10", "64"},
     "allocates and splits THPs in a loop for 10 s (64 MiB)"},
    // Added to the mm selftests in Linux 6.14: builds only from a tree that has it.
    {"uffd-wp-mremap",
     {"vm_util.c", "thp_settings.c", "uffd-common.c"},
     {},
     {},
     "userfaultfd write-protect across mremap of THPs and mTHPs (Linux 6.14+)"},
    // Barry Song's swap-slot allocation check for 64K mTHP swap-out (Linux 6.11+, tools/mm):
    // not a selftest; its own workload runs it with its -s / -a flags.
    {kSwapAllocatorProgram,
     {},
     {},
     {},
     "100 rounds of random swap-in, MADV_DONTNEED and MADV_PAGEOUT of a 60 MiB 64K-mTHP region",
     kToolsMmDir,
     kSwapAllocatorWorkload},
};

// khugepaged.c (6.12): both swap tests MADV_PAGEOUT a page and fail when it is not swapped out.
const std::vector<KselftestNeed> kNeeds = {
    {"khugepaged", "collapse_swapin_single_pte", "no-swap",
     "needs swap (MADV_PAGEOUT); the guest has none"},
    {"khugepaged", "collapse_max_ptes_swap", "no-swap",
     "needs swap (MADV_PAGEOUT); the guest has none"},
};

}  // namespace

std::span<const KselftestProgram> kselftest_programs() { return kPrograms; }

const KselftestProgram* find_kselftest_program(std::string_view name) {
  for (const auto& p : kPrograms) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::span<const KselftestNeed> kselftest_needs() { return kNeeds; }

bool is_kselftest(const WorkloadSpec& w) { return w.name == kKselftestWorkload; }

bool is_swap_allocator(const WorkloadSpec& w) { return w.name == kSwapAllocatorWorkload; }

bool runs_tree_programs(const WorkloadSpec& w) { return is_kselftest(w) || is_swap_allocator(w); }

Result<std::vector<std::string>> tree_program_selection(const WorkloadSpec& w) {
  if (is_swap_allocator(w)) return std::vector<std::string>{std::string(kSwapAllocatorProgram)};
  return kselftest_selection(w);
}

Result<std::vector<std::string>> kselftest_selection(const WorkloadSpec& w) {
  std::string list;
  bool given = false;
  for (const auto& [k, v] : w.params) {
    if (k == "tests") list = v, given = true;
  }
  if (!given) {
    const WorkloadInfo* info = find_workload(kKselftestWorkload);
    const ParamInfo* p = info ? info->param("tests") : nullptr;
    if (p) list = p->def;
  }
  std::replace(list.begin(), list.end(), ',', ' ');
  std::vector<std::string> names;
  for (const auto& p : kPrograms) {
    if (p.workload == kKselftestWorkload) names.emplace_back(p.name);
  }
  std::vector<std::string> out;
  for (size_t at = 0; at < list.size();) {
    const size_t end = std::min(list.find(' ', at), list.size());
    const std::string name = list.substr(at, end - at);
    at = end + 1;
    if (name.empty()) continue;
    const KselftestProgram* program = find_kselftest_program(name);
    if (!program || program->workload != kKselftestWorkload) {
      const std::string near = did_you_mean(name, names);
      return make_error("unknown mm selftest '" + name + "'" +
                        (near.empty() ? " (known: " + join(names, ", ") + ")" : near));
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  if (out.empty()) return make_error("tests: no mm selftest named");
  return out;
}

}  // namespace foliolab
