// A gate report -> its document and the gate's lines and messages, which every gate format
// prints (text, Markdown, CSV, JSON, JUnit).
#pragma once

#include <string>
#include <vector>

#include "analysis/gate.h"
#include "report/document.h"

namespace foliolab {

// The verdict line and the cases (all of them when `full`, else those that did not pass)
// before the comparison.
Document layout_gate(const GateReport& report, bool full);

// "gate: PASSED — 3 passed, 0 failed, 1 skipped (base → cand)".
std::string gate_summary(const GateReport& report);
// "regressed: 1025 → 16.4k (+1499 %), allowed 0 %".
// Flaky, infra and known cases get the rerun's or the known issue's words after it.
std::string gate_message(const GateCase& c);
// A line per flaky, infra or known case and per known issue that suppressed nothing (fixed?,
// expired): what the Markdown and text reports print under the verdict.
std::vector<std::string> gate_note_lines(const GateReport& report);

}  // namespace foliolab
