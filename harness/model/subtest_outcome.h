// One test of a test-suite workload (a TAP line), as the run record keeps it.
#pragma once

#include <string>

namespace foliolab {

struct SubtestOutcome {
  int number = 0;      // TAP test number (1-based)
  std::string name;    // description, bounded
  std::string status;  // "pass", "fail", "skip" (a TODO counts as skip, reason "TODO ...")
  // Directive text of SKIP / TODO; for kselftest-mm also why a program failed or was skipped
  // as a whole ("timed out after 900 s and was killed", "needs swap ...") ; "" otherwise.
  std::string reason;
  bool operator==(const SubtestOutcome&) const = default;
};

}  // namespace foliolab
