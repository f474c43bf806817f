#include "report/dashboard.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "util/xml.h"

namespace foliolab {
namespace {

constexpr const char* kDashboardStyle =
    "body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
    "th{background:#eee}nav a{margin-right:1em}form{margin:1em 0}input{margin-right:.5em}"
    ".fail{color:#b00}";

void page_head(const std::string& title, std::ostream& out) {
  out << "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" << xml_escape(title)
      << "</title><style>" << kDashboardStyle << "</style></head><body>"
      << "<nav><a href=\"/\">sessions</a><a href=\"/bisections\">bisections</a></nav><h1>"
      << xml_escape(title) << "</h1>";
}

std::string dashboard_url_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.' || c == '/';
    out += plain ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  return out;
}

void dashboard_filter_form(const SessionFilter& f, std::ostream& out) {
  out << "<form method=\"get\" action=\"/\">";
  for (auto [name, value] :
       {std::pair{"experiment", &f.experiment}, {"host", &f.host}, {"kernel", &f.kernel}}) {
    out << fmt::format("<input name=\"{0}\" placeholder=\"{0}\" value=\"{1}\">", name,
                       xml_escape(*value));
  }
  out << "<button>filter</button></form>"
      << "<form method=\"get\" action=\"/history\"><input name=\"metric\" placeholder=\"metric "
         "(faults, cpu_s, …)\"><input name=\"where\" placeholder=\"arch=x86_64,knobs=…\">"
         "<button>history</button></form>"
      << "<form method=\"get\" action=\"/compare\"><input name=\"base\" placeholder=\"base "
         "session\"><input name=\"cand\" placeholder=\"candidate session\">"
         "<button>compare</button></form>";
}

void dashboard_session_row(const PushedSession& s, std::ostream& out) {
  const std::string link = dashboard_url_escape(s.key);
  out << fmt::format(
      "<tr data-session=\"{0}\"><td><a href=\"/sessions/{1}\">{0}</a></td><td>{2}</td>"
      "<td>{3}</td><td>{4}</td><td>{5}</td><td{6}>{7}/{8}</td><td>{9}</td></tr>",
      xml_escape(s.key), link, xml_escape(s.experiment), xml_escape(s.host),
      xml_escape(fmt::format("{}", fmt::join(s.kernels, ", "))),
      xml_escape(fmt::format("{}", fmt::join(s.arches, ", "))),
      s.ok < s.runs ? " class=\"fail\"" : "", s.ok, s.runs, xml_escape(s.pushed));
}

}  // namespace

void write_sessions_page(const std::vector<PushedSession>& sessions, const SessionFilter& filter,
                         std::ostream& out) {
  page_head("foliolab lab: sessions", out);
  dashboard_filter_form(filter, out);
  out << "<table id=\"sessions\"><tr><th>session</th><th>experiment</th><th>host</th>"
         "<th>kernels</th><th>arches</th><th>ok/runs</th><th>pushed</th></tr>";
  for (const PushedSession& s : sessions) dashboard_session_row(s, out);
  out << "</table>";
  if (sessions.empty()) out << "<p>No sessions yet: <code>foliolab push SESSION</code>.</p>";
  out << "</body></html>\n";
}

void write_bisections_page(const std::vector<IndexedBisection>& rows, std::ostream& out) {
  page_head("foliolab lab: bisections", out);
  out << "<table id=\"bisections\"><tr><th>bisection</th><th>experiment</th><th>metric</th>"
         "<th>where</th><th>candidates</th><th>state</th><th>culprit</th><th>updated</th></tr>";
  for (const IndexedBisection& r : rows) {
    out << fmt::format(
        "<tr><td><a href=\"/bisections/{}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        dashboard_url_escape(r.path), xml_escape(r.path), xml_escape(r.experiment),
        xml_escape(r.metric), xml_escape(r.selection), r.candidates, xml_escape(r.state),
        xml_escape(r.culprit), xml_escape(r.updated));
  }
  out << "</table>";
  if (rows.empty()) {
    out << "<p>No bisections yet: <code>foliolab bisect … --server URL</code> pushes each.</p>";
  }
  out << "</body></html>\n";
}

void write_bisection_page(const IndexedBisectionDetail& d, std::ostream& out) {
  const IndexedBisection& b = d.bisection;
  page_head("foliolab lab: bisection " + b.path, out);
  out << fmt::format(
      "<p id=\"summary\">{} over {} candidates{}: <b>{}</b>{}</p>", xml_escape(b.metric),
      b.candidates, b.selection.empty() ? "" : " (" + xml_escape(b.selection) + ")",
      xml_escape(b.state), b.culprit.empty() ? "" : ", culprit " + xml_escape(b.culprit));
  out << "<table id=\"steps\"><tr><th>step</th><th>candidate</th><th>class</th>"
         "<th>evidence</th><th>session</th></tr>";
  for (const IndexedBisectStep& s : d.steps) {
    const std::string session =
        s.session.empty() ? ""
                          : fmt::format("<a href=\"/sessions/{}\">{}</a>",
                                        dashboard_url_escape(s.session), xml_escape(s.session));
    out << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                       s.ordinal + 1, xml_escape(s.candidate),
                       s.cls.empty() ? "skipped" : xml_escape(s.cls), xml_escape(s.evidence),
                       session);
  }
  out << "</table>";
  if (!d.confirmations.empty()) {
    out << "<h2>confirmations</h2><table id=\"confirmations\"><tr><th>culprit</th>"
           "<th>against</th><th>confirmed</th><th>evidence</th><th>sessions</th></tr>";
    for (const IndexedBisectConfirmation& c : d.confirmations) {
      std::string links;
      for (const std::string& s : c.sessions) {
        links +=
            fmt::format("<a href=\"/sessions/{}\">{}</a> ", dashboard_url_escape(s), xml_escape(s));
      }
      out << fmt::format("<tr><td>{}</td><td>{}</td><td{}>{}</td><td>{}</td><td>{}</td></tr>",
                         xml_escape(c.culprit), xml_escape(c.parent),
                         c.confirmed ? "" : " class=\"fail\"", c.confirmed ? "yes" : "no",
                         xml_escape(c.evidence), links);
    }
    out << "</table>";
  }
  out << "</body></html>\n";
}

void write_message_page(const std::string& title, const std::string& message, std::ostream& out) {
  page_head(title, out);
  out << "<p id=\"message\">" << xml_escape(message) << "</p></body></html>\n";
}

}  // namespace foliolab
