#include "cli/export_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>

#include "analysis/session_report.h"
#include "cli/cli_util.h"
#include "model/loader.h"
#include "report/kcidb.h"
#include "results/store.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

namespace {

// "<experiment>/<stamp>" of a session directory, however it was named (relative, a link, a
// trailing slash): the same session gives the same name, and so the same test ids.
std::string session_name(const fs::path& dir) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(dir), ec);
  if (ec) p = fs::absolute(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return (p.parent_path().filename() / p.filename()).generic_string();
}

// The metric declarations of the session's experiment (units of custom workloads' metrics);
// none, with a note, when its copy of the experiment does not load.
MetricDecls session_declarations(const ResultStore& store) {
  const fs::path yaml = store.dir() / "experiment.yaml";
  std::error_code ec;
  if (!fs::exists(yaml, ec)) return {};
  auto exp = load_experiment(yaml.string());
  if (!exp.ok()) {
    log_line(
        fmt::format("note: {}; custom metrics are exported without units", exp.error().message));
    return {};
  }
  return declared_metrics(*exp);
}

}  // namespace

std::function<int()> setup_export(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto kcidb = std::make_shared<bool>(false);
  auto output = std::make_shared<std::string>("-");
  app.add_option("session", *dir, "results session directory (results/<experiment>/<stamp>)")
      ->required();
  app.add_flag("--kcidb", *kcidb, "KernelCI's KCIDB I/O JSON, schema v5.3 (docs/kcidb.md)");
  app.add_option("-o,--output", *output, "write here (atomically) instead of stdout");
  return [=] {
    if (!*kcidb) return fail(make_error("export: name the format: --kcidb (the only one)"));
    auto store = ResultStore::open(*dir);
    if (!store.ok()) return fail(store.error());
    auto records = store->load_all();
    if (!records.ok()) return fail(records.error());
    const KcidbSession session{.name = session_name(store->dir()),
                               .records = std::move(*records),
                               .declared = session_declarations(*store)};
    auto st = write_output(*output, [&](std::ostream& o) { write_kcidb(session, o); });
    if (!st.ok()) return fail(st.error(), kExitFailed);
    return kExitOk;
  };
}

}  // namespace foliolab::cli
