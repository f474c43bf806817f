// The JUnit XML renderer of a gate report: one testcase per rule × group; the format Jenkins
// and GitLab read, checked against harness/report/testdata/junit.xsd.
#pragma once

#include <ostream>
#include <string>

#include "analysis/gate.h"

namespace foliolab {

void write_junit(const GateReport& report, const std::string& suite, std::ostream& out);

}  // namespace foliolab
