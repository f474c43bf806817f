#include "report/junit.h"

#include <fmt/format.h>

#include "report/gate_layout.h"
#include "util/xml.h"

namespace foliolab {

void write_junit(const GateReport& r, const std::string& suite, std::ostream& out) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format(
      "<testsuites name=\"foliolab gate\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
      r.cases.size(), r.failed, r.infra);
  out << fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
      "time=\"0\">\n",
      xml_escape(suite), r.cases.size(), r.failed, r.infra, r.skipped + r.known);
  out << "    <properties>\n";
  out << fmt::format("      <property name=\"baseline\" value=\"{}\"/>\n",
                     xml_escape(r.comparison.base));
  out << fmt::format("      <property name=\"candidate\" value=\"{}\"/>\n",
                     xml_escape(r.comparison.candidate));
  // A flaky case passes; the suite names it (testcase has no properties in Jenkins' schema).
  for (const GateCase& c : r.cases) {
    if (c.outcome != GateOutcome::kFlaky) continue;
    out << fmt::format("      <property name=\"flaky\" value=\"{}\"/>\n",
                       xml_escape(c.rule + ": " + c.group + " · " + c.metric));
  }
  out << "    </properties>\n";
  for (const GateCase& c : r.cases) {
    out << fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\"", xml_escape(c.rule),
                       xml_escape(c.group + " · " + c.metric));
    const std::string message = gate_message(c);
    switch (c.outcome) {
      case GateOutcome::kPass:
      case GateOutcome::kFlaky:
        out << ">\n      <system-out>" << xml_escape(message) << "</system-out>\n";
        break;
      case GateOutcome::kInfra:
        out << ">\n      <error message=\"" << xml_escape(message) << "\" type=\"infra\">"
            << xml_escape(c.rule + ": " + message) << "</error>\n";
        break;
      case GateOutcome::kFail:
        out << ">\n      <failure message=\"" << xml_escape(message) << "\" type=\"regression\">"
            << xml_escape(c.rule + ": " + message) << "</failure>\n";
        break;
      case GateOutcome::kKnown:  // the message begins "known issue <id>"
      case GateOutcome::kSkip:
        out << ">\n      <skipped message=\"" << xml_escape(message) << "\"/>\n";
        break;
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace foliolab
