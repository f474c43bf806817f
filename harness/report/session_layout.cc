#include "report/session_layout.h"

#include <fmt/format.h>

#include "report/number_format.h"

namespace foliolab {
namespace {

void add_expectation_lines(const SessionReport& r, std::vector<std::string>* lines) {
  if (r.expectations.empty()) return;
  lines->push_back("expectations:");
  for (const ExpectationResult& e : r.expectations) {
    lines->push_back((e.held ? "  held: " : "  NOT HELD: ") + e.name);
    for (const auto& d : expectation_details(e)) lines->push_back("      " + d);
  }
  lines->push_back("");
}

void add_host_lines(const SessionReport& r, std::vector<std::string>* lines) {
  if (!r.runs_by_host.empty()) {
    lines->push_back("runs per host:");
    for (const auto& [host, ids] : r.runs_by_host) {
      lines->push_back(fmt::format("  {} ({} run{}):", host.empty() ? "(unknown)" : host,
                                   ids.size(), ids.size() == 1 ? "" : "s"));
      for (const auto& id : ids) lines->push_back("    " + id);
    }
  }
  if (!r.moved.empty()) {
    lines->push_back("runs moved off a lost host:");
    for (const auto& m : r.moved) lines->push_back("  " + m);
  }
  if (!r.prepared.empty()) {
    lines->push_back("machine state reached:");
    for (const auto& m : r.prepared) lines->push_back("  " + m);
  }
}

}  // namespace

std::vector<std::string> test_result_lines(const std::vector<RunSubtests>& runs) {
  std::vector<std::string> lines;
  if (runs.empty()) return lines;
  lines.push_back("tests (passed tests counted; every test is in run.json reps[].tests):");
  for (const RunSubtests& run : runs) {
    lines.push_back(fmt::format("  {}: {} passed, {} failed, {} skipped{} ({} rep{})", run.run_id,
                                run.pass, run.fail, run.skip,
                                run.mixed ? fmt::format(", {} differ between reps", run.mixed) : "",
                                run.reps, run.reps == 1 ? "" : "s"));
    for (const char* status : {"fail", "mixed", "skip"}) {
      for (const SubtestRow& row : run.rows) {
        if (row.status != status) continue;
        const std::string tag = row.status == "fail"   ? "FAIL "
                                : row.status == "skip" ? "skip "
                                                       : "mixed";
        lines.push_back(fmt::format("    {} {}{}", tag, row.name,
                                    row.detail.empty() ? "" : " — " + row.detail));
      }
    }
  }
  lines.push_back("");
  return lines;
}

std::vector<std::string> expectation_details(const ExpectationResult& r) {
  std::string threshold = format_value(r.threshold);
  if (r.op == CompareOp::kApprox) threshold += " ±" + format_tolerance(r.tolerance);
  const std::string_view op = compare_op_text(r.op);
  std::vector<std::string> lines;
  for (const ExpectationCheck& c : r.checks) {
    const std::string run = c.run.empty() ? "" : c.run + " ";
    if (!c.value) {
      lines.push_back(run + c.why);
    } else if (c.held) {
      lines.push_back(
          fmt::format("{}{} = {} {} {}", run, c.lhs, format_value(*c.value), op, threshold));
    } else {
      lines.push_back(
          fmt::format("{}{} = {}, not {} {}", run, c.lhs, format_value(*c.value), op, threshold));
    }
  }
  return lines;
}

std::vector<std::string> session_extra_lines(const SessionReport& r) {
  std::vector<std::string> lines = test_result_lines(r.tests);
  add_expectation_lines(r, &lines);
  if (!r.failures.empty()) {
    lines.push_back("failed runs:");
    for (const auto& f : r.failures) lines.push_back("  " + f);
  }
  add_host_lines(r, &lines);
  if (r.ignored > 0) {
    lines.push_back(
        fmt::format("({} stored run(s) not in the current plan were left out)", r.ignored));
  }
  return lines;
}

}  // namespace foliolab
