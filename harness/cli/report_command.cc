#include "cli/report_command.h"

#include <algorithm>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>

#include "analysis/session_report.h"
#include "cli/cli_util.h"
#include "cli/progress.h"
#include "model/loader.h"
#include "report/html.h"
#include "report/render.h"
#include "report/session_layout.h"
#include "results/store.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

std::function<int()> setup_report(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  auto html = std::make_shared<std::string>();
  app.add_option("session", *dir, "results session directory (results/<experiment>/<stamp>)")
      ->required();
  app.add_option("--format", *format, "text | markdown | csv | json")->capture_default_str();
  app.add_option("--html", *html, "also write a self-contained HTML report here");
  return [=] {
    Format fmt_out;
    if (!parse_format(*format, &fmt_out)) {
      return fail(make_error(fmt::format("--format {}: use text, markdown, csv or json", *format)));
    }
    auto loaded = load_session_report(*dir);
    if (!loaded.ok()) return fail(loaded.error());
    const SessionReport& report = *loaded;
    if (!html->empty()) {
      auto st = write_output(*html, [&](std::ostream& o) {
        write_html(report.model, session_extra_lines(report), o);
      });
      if (!st.ok()) return fail(st.error(), kExitFailed);
    }
    (void)write_output("-", [&](std::ostream& o) { render_session(report, fmt_out, o); });
    return report.expectations_failed == 0 && report.runs_failed == 0 ? kExitOk : kExitFailed;
  };
}

}  // namespace foliolab::cli
