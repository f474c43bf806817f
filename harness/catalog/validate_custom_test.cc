// `plan` refuses a custom workload whose source files or build directory are missing (bad
// input, exit 2) before anything is built.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "catalog/validate.h"
#include "model/loader.h"
#include "testing/temp_dir.h"

namespace foliolab {
namespace {

using ::testing::HasSubstr;

Result<void> validate(const std::filesystem::path& dir, const std::string& params) {
  const std::string text =
      "name: v\nkernels: [{name: k}]\narchs: [x86_64]\nknobs: {a: {}}\nworkloads:\n"
      "  - name: custom\n    params: " +
      params + "\n";
  auto exp = parse_experiment(text, (dir / "x.yaml").string());
  if (!exp.ok()) return exp.error();
  return validate_project(*exp, dir);
}

TEST(ValidateCustom, SourcesAndTheBuildDirMustExist) {
  const auto dir = fresh_test_dir("validate-custom");
  std::filesystem::create_directories(dir / "prog");
  std::ofstream(dir / "main.c") << "int main(void) { return 0; }\n";
  EXPECT_TRUE(validate(dir, "{source: [main.c]}").ok());
  EXPECT_TRUE(validate(dir, "{build: {command: make, dir: prog, output: p}}").ok());
  const Result<void> missing = validate(dir, "{source: [main.c, util.c]}");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, ErrorKind::kInput);
  EXPECT_THAT(missing.error().message,
              HasSubstr((dir / "x.yaml").string() + ":7:22: workloads[0].params.source: C source " +
                        (dir / "util.c").string() + " does not exist"));
  const Result<void> no_dir = validate(dir, "{build: {command: make, dir: src, output: p}}");
  ASSERT_FALSE(no_dir.ok());
  EXPECT_THAT(no_dir.error().message,
              HasSubstr(":7:21: workloads[0].params.build.dir: build directory " +
                        (dir / "src").string() + " does not exist"));
}

}  // namespace
}  // namespace foliolab
