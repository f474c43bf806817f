#include "report/junit.h"

#include <fmt/format.h>

#include "report/layout.h"
#include "util/xml.h"

namespace foliolab {

void write_junit(const GateReport& r, const std::string& suite, std::ostream& out) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"foliolab gate\" tests=\"{}\" failures=\"{}\">\n",
                     r.cases.size(), r.failed);
  out << fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" "
      "time=\"0\">\n",
      xml_escape(suite), r.cases.size(), r.failed, r.skipped);
  out << "    <properties>\n";
  out << fmt::format("      <property name=\"baseline\" value=\"{}\"/>\n",
                     xml_escape(r.comparison.base));
  out << fmt::format("      <property name=\"candidate\" value=\"{}\"/>\n",
                     xml_escape(r.comparison.candidate));
  out << "    </properties>\n";
  for (const GateCase& c : r.cases) {
    out << fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\"", xml_escape(c.rule),
                       xml_escape(c.group + " · " + c.metric));
    const std::string message = gate_message(c);
    switch (c.outcome) {
      case GateOutcome::kPass:
        out << ">\n      <system-out>" << xml_escape(message) << "</system-out>\n";
        break;
      case GateOutcome::kFail:
        out << ">\n      <failure message=\"" << xml_escape(message) << "\" type=\"regression\">"
            << xml_escape(c.rule + ": " + message) << "</failure>\n";
        break;
      case GateOutcome::kSkip:
        out << ">\n      <skipped message=\"" << xml_escape(message) << "\"/>\n";
        break;
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace foliolab
