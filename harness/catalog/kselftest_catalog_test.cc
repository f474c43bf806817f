#include "catalog/kselftest_catalog.h"
#include "util/build_info.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "catalog/workload_catalog.h"

namespace foliolab {
namespace {

WorkloadSpec with_tests(const std::string& tests) {
  return WorkloadSpec{.name = "kselftest-mm", .params = {{"tests", tests}}};
}

TEST(KselftestCatalog, Selection) {
  EXPECT_EQ(
      *kselftest_selection(WorkloadSpec{.name = "kselftest-mm"}),
      (std::vector<std::string>{"split_huge_page_test", "khugepaged", "cow", "transhuge-stress"}));
  EXPECT_EQ(*kselftest_selection(with_tests(" cow,cow  khugepaged ")),
            (std::vector<std::string>{"cow", "khugepaged"}));
  EXPECT_EQ(kselftest_selection(with_tests("cwo")).error().message,
            "unknown mm selftest 'cwo'; did you mean 'cow'?");
  EXPECT_EQ(kselftest_selection(with_tests(" , ")).error().message, "tests: no mm selftest named");
  // tools/mm's program is thp-swap-allocator's, not a selftest kselftest-mm runs.
  EXPECT_THAT(kselftest_selection(with_tests("thp_swap_allocator_test")).error().message,
              ::testing::HasSubstr("unknown mm selftest 'thp_swap_allocator_test'"));
  EXPECT_EQ(*tree_program_selection(WorkloadSpec{.name = "thp-swap-allocator"}),
            std::vector<std::string>{"thp_swap_allocator_test"});
  EXPECT_TRUE(runs_tree_programs(WorkloadSpec{.name = "thp-swap-allocator"}));
  EXPECT_FALSE(runs_tree_programs(WorkloadSpec{.name = "swap"}));
}

// The runner's default list is the catalog's, and every program of the default exists.
TEST(KselftestCatalog, DefaultsAgree) {
  const ParamInfo* tests = find_workload("kselftest-mm")->param("tests");
  ASSERT_NE(tests, nullptr);
  std::ifstream in(std::string(foliolab::source_dir()) + "/workloads/kselftest-mm.c");
  std::stringstream source;
  source << in.rdbuf();
  // The program's argument table is kselftest-mm.def itself (workloads/def_args.h): the
  // default it runs is the catalog's.
  EXPECT_NE(source.str().find("struct wl_arg spec[] = {\n#include \"kselftest-mm.def\""),
            std::string::npos);
  EXPECT_EQ(source.str().find("{\"tests\", \""), std::string::npos);
  for (const auto& p : kselftest_programs()) {
    EXPECT_EQ(p.helpers.empty(), p.dir == kToolsMmDir) << p.name;  // tools/mm links no helper
    EXPECT_NE(find_workload(p.workload), nullptr) << p.name;
  }
  for (const auto& need : kselftest_needs())
    EXPECT_NE(find_kselftest_program(need.program), nullptr);
}

}  // namespace
}  // namespace foliolab
