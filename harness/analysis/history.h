// `foliolab history METRIC`: one metric across sessions, from the index. A series per run
// identity (experiment · kernel · arch · knobs · workload), a point per session with its
// statistics, and on request the series' change points (analysis/change_points.h).
// report/ renders it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/change_points.h"
#include "analysis/comparison.h"
#include "results/finding_index.h"
#include "results/index.h"

namespace foliolab {

inline constexpr int kHistorySchema = 3;  // 2: identity fields, change points; 3: gate

struct HistoryPoint {
  std::string session, stamp;         // session: <experiment>/<stamp>, relative to the root
  std::filesystem::path session_dir;  // absolute
  SampleStats stats;
  bool emulated = false;
  bool icount = false;  // emulated, every run of the point in instruction-time
  // Against the series' previous point, by the rule of compare (compare_samples; the index
  // keeps no guests-beside provenance, so that condition is not applied here).
  std::optional<Delta> delta;
  // The gate's verdict on this metric of this series in this session (attach_gate_cases), by
  // gate_outcome_name ("pass", "FAIL", ...); "" when no gate judged it.
  std::string gate;
  std::string gate_baseline;  // what that gate judged it against
};

struct HistorySeries {
  std::string label;  // "quickstart · 6.12-mthp-vmstat · x86_64 · 64K mTHP · fault"
  std::string experiment, kernel, arch, knob_set, workload;
  std::vector<HistoryPoint> points;  // oldest first
  // find_change_points: ChangePoint::index is into `points`.
  std::vector<ChangePoint> change_points;
  ChangeKind change_kind = ChangeKind::kMeanShift;  // how they were looked for
};

struct HistoryModel {
  std::string metric;
  MetricInfo info;
  std::vector<HistorySeries> series;
  std::optional<ChangePointOptions> change_points;  // set once find_change_points ran
};

HistoryModel build_history(const std::string& metric, const std::vector<IndexedSample>& samples,
                           const MetricDecls& declared = {}, const CompareOptions& options = {});

// Each series' change points, a point's value being the mean of its session's repetitions.
// Counts whose every session's repetitions agree within the catalog's threshold: every step
// beyond it (count_change_points); other counts: the mean-shift search with the threshold, as
// a fraction of the series' largest |value|, as the smallest magnitude; timings: the
// mean-shift search with `options`.
void find_change_points(HistoryModel& model, const ChangePointOptions& options = {});

// Each point's gate verdict from the index's gate cases of the model's metric
// (results/finding_index.h): a case takes a point when it judged the point's session and every
// identity field it gives (kernel, arch, knobs, workload) equals the series'. Of several, the
// gravest: FAIL, INFRA, flaky, known, pass, skip.
void attach_gate_cases(HistoryModel& model, const std::vector<IndexedGateCase>& cases);

// What `bisect --from-change-point` starts from: the sessions each side of a change point
// (good: the last before it, bad: the first after it) and the series' selector.
struct ChangePointBisect {
  std::string metric, experiment;
  std::string good_session, bad_session;                    // <experiment>/<stamp>
  std::filesystem::path good_session_dir, bad_session_dir;  // absolute
  RunQuery selector;  // kernel, arch, knobs, workload (bisect's --where)
  std::string where;  // the same as --where text: "kernel=…,arch=…,knobs=…,workload=…"
};
ChangePointBisect change_point_bisect(const HistoryModel& model, const HistorySeries& series,
                                      const ChangePoint& change);
// The one change point whose first session after it is `session` (<experiment>/<stamp>, or
// the stamp alone), among the model's series; an error naming the candidates when none or
// several match (narrow the history's --where then).
Result<ChangePointBisect> find_change_point_bisect(const HistoryModel& model,
                                                   std::string_view session);

}  // namespace foliolab
