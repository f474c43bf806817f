#include "report/render_gate.h"

#include <fmt/format.h>

namespace foliolab {
using json = nlohmann::json;

namespace {

std::string summary(const GateReport& r) {
  return fmt::format("gate: {} — {} passed, {} failed, {} skipped ({} → {})",
                     r.ok() ? "PASSED" : "FAILED", r.passed, r.failed, r.skipped,
                     r.comparison.base, r.comparison.candidate);
}

TextTable cases_table(const GateReport& r, bool all) {
  TextTable t;
  t.title = all ? "gate checks" : "gate checks that did not pass";
  t.header = {"outcome", "metric", "runs", "detail"};
  for (const GateCase& c : r.cases) {
    if (!all && c.outcome == GateOutcome::kPass) continue;
    t.rows.push_back({std::string(gate_outcome_name(c.outcome)), c.metric, c.group, c.message});
  }
  return t;
}

}  // namespace

void render_gate(const GateReport& r, Format format, std::ostream& out) {
  switch (format) {
    case Format::kJson: {
      json cases = json::array();
      for (const GateCase& c : r.cases) {
        cases.push_back({{"rule", c.rule},
                         {"group", c.group},
                         {"metric", c.metric},
                         {"outcome", gate_outcome_name(c.outcome)},
                         {"message", c.message}});
      }
      out << json{{"schema", kGateSchema},
                  {"ok", r.ok()},
                  {"passed", r.passed},
                  {"failed", r.failed},
                  {"skipped", r.skipped},
                  {"cases", cases},
                  {"comparison", comparison_json(r.comparison)}}
                 .dump(2)
          << "\n";
      return;
    }
    case Format::kCsv: {
      std::vector<std::vector<std::string>> rows;
      for (const GateCase& c : r.cases) {
        rows.push_back({c.rule, c.group, c.metric, std::string(gate_outcome_name(c.outcome)),
                        c.message});
      }
      render_csv({"rule", "group", "metric", "outcome", "message"}, rows, out);
      return;
    }
    case Format::kText:
    case Format::kMarkdown: {
      const bool md = format == Format::kMarkdown;
      Document doc = layout_comparison(r.comparison, md);
      doc.preamble.insert(doc.preamble.begin(), md ? "### " + summary(r) : summary(r));
      TextTable cases = cases_table(r, md);
      if (!cases.rows.empty()) doc.tables.insert(doc.tables.begin(), std::move(cases));
      if (md) {
        render_markdown(doc, out);
      } else {
        render_text(doc, out);
      }
      return;
    }
  }
}

void render_junit(const GateReport& r, const std::string& suite, std::ostream& out) {
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
    out << fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\"",
                       xml_escape(c.rule), xml_escape(c.group + " · " + c.metric));
    switch (c.outcome) {
      case GateOutcome::kPass:
        out << ">\n      <system-out>" << xml_escape(c.message) << "</system-out>\n";
        break;
      case GateOutcome::kFail:
        out << ">\n      <failure message=\"" << xml_escape(c.message)
            << "\" type=\"regression\">" << xml_escape(c.rule + ": " + c.message)
            << "</failure>\n";
        break;
      case GateOutcome::kSkip:
        out << ">\n      <skipped message=\"" << xml_escape(c.message) << "\"/>\n";
        break;
    }
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
}

}  // namespace foliolab
