// A regression report's files (report/regression.h) in a folder: report.txt (a mail at 100
// columns), report.md and report.json; the headline and where they are, on stderr.
#pragma once

#include <filesystem>

#include "analysis/regression.h"
#include "util/result.h"

namespace foliolab::cli {

inline constexpr const char* kRegressionJson = "report.json";

Result<void> write_regression_files(const RegressionReport& r, const std::filesystem::path& dir);

}  // namespace foliolab::cli
