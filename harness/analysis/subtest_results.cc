#include "analysis/subtest_results.h"

#include <fmt/format.h>

#include <map>

namespace foliolab {

std::vector<RunSubtests> collect_test_results(const std::vector<RunRecord>& records) {
  std::vector<RunSubtests> out;
  for (const RunRecord& r : records) {
    RunSubtests run{.run_id = r.id.run_id};
    // A name may repeat within a rep (a program's generic "ok 4 # SKIP ..." lines): the k-th
    // test of a name in one rep is the k-th of that name in the others, shown as "name (k)".
    std::map<std::string, size_t> row_of;  // name + occurrence -> index in rows
    std::vector<std::vector<std::string>> statuses;
    for (const Repetition& rep : r.reps) {
      if (rep.tests.empty()) continue;
      ++run.reps;
      std::map<std::string, int> seen;
      for (const SubtestOutcome& t : rep.tests) {
        const int k = ++seen[t.name];
        const std::string name = k == 1 ? t.name : fmt::format("{} ({})", t.name, k);
        auto [it, fresh] = row_of.try_emplace(name, run.rows.size());
        if (fresh) {
          run.rows.push_back({name, t.status, t.reason});
          statuses.emplace_back();
        }
        statuses[it->second].push_back(t.status);
        SubtestRow& row = run.rows[it->second];
        if (row.status != t.status) row.status = "mixed";
        if (row.detail.empty()) row.detail = t.reason;
      }
    }
    if (run.rows.empty()) continue;
    for (size_t i = 0; i < run.rows.size(); ++i) {
      SubtestRow& row = run.rows[i];
      if (statuses[i].size() < static_cast<size_t>(run.reps)) row.status = "mixed";
      if (row.status == "mixed") {
        row.detail = fmt::format("{} in {} of {} reps", fmt::join(statuses[i], " "),
                                 statuses[i].size(), run.reps);
      }
      ++(row.status == "pass"   ? run.pass
         : row.status == "fail" ? run.fail
         : row.status == "skip" ? run.skip
                                : run.mixed);
    }
    out.push_back(std::move(run));
  }
  return out;
}

}  // namespace foliolab
