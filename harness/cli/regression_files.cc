#include "cli/regression_files.h"

#include <fmt/format.h>

#include <sstream>

#include "report/regression.h"
#include "util/fs.h"
#include "util/fs_ops.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

Result<void> write_regression_files(const RegressionReport& r, const fs::path& dir) {
  FL_TRY(make_dirs(dir));
  const std::pair<const char*, Format> files[] = {{"report.txt", Format::kText},
                                                  {"report.md", Format::kMarkdown},
                                                  {kRegressionJson, Format::kJson}};
  for (const auto& [name, format] : files) {
    std::ostringstream out;
    render_regression(r, format, out);
    FL_TRY(write_file_atomic(dir / name, out.str()));
  }
  fmt::print(stderr, "regression report: {}\n  {}\n", (dir / "report.txt").string(),
             regression_headline(r));
  return {};
}

}  // namespace foliolab::cli
