// `foliolab try FIX.patch --on REPORT`: a fix tried against a regression report (issue 57).
// The report's reproduce folder (bisect/reproduce.h) gains the culprit with FIX applied (and the
// tip with it, when the culprit was not the series' last patch); one session runs the report's
// cell on parent, culprit and the fixed kernels with the report's repetitions, and the report is
// written again with those columns, each judged against the parent (analysis/regression.h:
// fixed, partly fixed, not fixed) in REPORT/try-<FIX's stem>/. Exit 0 when every fixed column
// is "fixed", 1 otherwise, 2 on bad input.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_try(CLI::App& app);

}  // namespace foliolab::cli
