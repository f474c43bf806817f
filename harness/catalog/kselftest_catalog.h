// The `kselftest-mm` workload's programs: THP-related tests of the kernel's own
// tools/testing/selftests/mm, built from the tree the run boots (image/kselftest_builder.h), run
// in the guest by workloads/kselftest-mm.c and read by the `kselftest` output adapter
// (guest/output_adapter.h). Facts only: which helper sources each program links, the arguments
// it runs with, and which of its tests need what foliolab's guests do not have.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

inline constexpr std::string_view kKselftestWorkload = "kselftest-mm";

inline constexpr std::string_view kSelftestsMmDir = "tools/testing/selftests/mm";
inline constexpr std::string_view kToolsMmDir = "tools/mm";
// The `thp-swap-allocator` workload: tools/mm/thp_swap_allocator_test, run as it is.
inline constexpr std::string_view kSwapAllocatorWorkload = "thp-swap-allocator";
inline constexpr std::string_view kSwapAllocatorProgram = "thp_swap_allocator_test";

struct KselftestProgram {
  std::string_view name;                  // <dir>/<name>.c
  std::vector<std::string_view> helpers;  // other .c files of that folder it links
  std::vector<std::string_view> cflags;   // besides the Makefile's (quirks of a tree)
  std::vector<std::string_view> args;     // its argv after argv[0] in the guest (kselftest-mm)
  std::string_view doc;
  std::string_view dir = kSelftestsMmDir;          // its folder in the kernel tree
  std::string_view workload = kKselftestWorkload;  // the workload that runs it
};

std::span<const KselftestProgram> kselftest_programs();
const KselftestProgram* find_kselftest_program(std::string_view name);

// A test whose failure in a foliolab guest says nothing about the kernel: the guest lacks
// what it needs. Matched by program and a prefix of the test's name; `when` names the guest
// fact the runner reports ("no-swap": SwapTotal is 0).
struct KselftestNeed {
  std::string_view program;
  std::string_view test_prefix;
  std::string_view when;
  std::string_view reason;
};
std::span<const KselftestNeed> kselftest_needs();

bool is_kselftest(const WorkloadSpec& w);
bool is_swap_allocator(const WorkloadSpec& w);
// A workload that runs programs built from the kernel tree (kselftest-mm, thp-swap-allocator).
bool runs_tree_programs(const WorkloadSpec& w);

// The programs a workload runs from the tree: kselftest-mm's selection, or
// thp_swap_allocator_test.
Result<std::vector<std::string>> tree_program_selection(const WorkloadSpec& w);

// The programs `params.tests` names (blank- or comma-separated; the catalog default when
// absent), in order, without repeats; an unknown name is an error with a "did you mean".
Result<std::vector<std::string>> kselftest_selection(const WorkloadSpec& w);

}  // namespace foliolab
