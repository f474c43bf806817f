// What a session report prints after its tables: tests, expectations, failures, hosts and
// moved runs, as lines for every format.
#pragma once

#include <string>
#include <vector>

#include "analysis/expectations.h"
#include "analysis/session_report.h"
#include "analysis/subtest_results.h"

namespace foliolab {

// "tests:" then per run a count line and one line per failed, mixed or skipped test (passed
// tests are counted, not listed: every test is in run.json's reps[].tests).
std::vector<std::string> test_result_lines(const std::vector<RunSubtests>& runs);
// One line per check of an expectation (ExpectationCheck says which forms).
std::vector<std::string> expectation_details(const ExpectationResult& result);
// The tests, expectations, failures, hosts and moved runs of a session report, as the lines
// that follow its tables.
std::vector<std::string> session_extra_lines(const SessionReport& report);

}  // namespace foliolab
