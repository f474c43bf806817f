// Renderers of a gate report: text / Markdown (a verdict line, the failing and skipped cases,
// then the comparison), CSV, JSON, and JUnit XML (one testcase per rule × group; the format
// Jenkins and GitLab read, checked against harness/report/testdata/junit.xsd).
#pragma once

#include <ostream>

#include "analysis/gate.h"
#include "report/render_comparison.h"
#include "util/xml.h"  // xml_escape, for JUnit

namespace foliolab {

void render_gate(const GateReport& report, Format format, std::ostream& out);
void render_junit(const GateReport& report, const std::string& suite, std::ostream& out);

}  // namespace foliolab
