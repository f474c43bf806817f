// The KCIDB I/O renderer (KernelCI's report format, schema v5.3): a results session's runs as
// checkouts (one per kernel), builds (one per kernel and arch) and tests (one per run, and one
// per run and metric with the mean of its measured reps), for `foliolab export --kcidb`
// (docs/kcidb.md). Every id is "foliolab:..." and depends on the records alone, so exporting a
// session twice gives the same document.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/metric_kind.h"
#include "results/run_record.h"

namespace foliolab {

inline constexpr int kKcidbMajor = 5;
inline constexpr int kKcidbMinor = 3;

struct KcidbSession {
  // "<experiment>/<stamp>", the session's place under its results root: part of every test id,
  // so the same run of two sessions gives two tests.
  std::string name;
  std::vector<RunRecord> records;
  // The experiment's metric declarations (analysis/session_report.h declared_metrics): the
  // units of custom workloads' metrics.
  MetricDecls declared;
};

// A test path part: every character outside [a-zA-Z0-9_-] becomes '_' ("" becomes "_").
std::string kcidb_path_part(std::string_view name);
// "foliolab.<workload>", then the metric's dot-separated parts, each made a path part.
std::string kcidb_test_path(std::string_view workload, std::string_view metric = {});

nlohmann::json kcidb_document(const KcidbSession& session);
// kcidb_document indented by 2 (bytes that are not UTF-8 replaced), a newline at the end.
void write_kcidb(const KcidbSession& session, std::ostream& out);

}  // namespace foliolab
