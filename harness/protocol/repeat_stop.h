// The host's side of adaptive repetitions in a guest report: reading the agent's repeat-stop
// record, checking the reps against the run's plan, and the account of a fixed count.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/repeat_plan.h"
#include "catalog/repeat_rule.h"
#include "model/experiment.h"  // KeyValues

namespace foliolab {

// What the checks read of a rep (protocol/run_report.h's RepResult).
struct RepView {
  int rep = 0;
  bool warmup = false;
  const std::map<std::string, double>* metrics = nullptr;
};

// A repeat-stop payload (docs/guest-protocol.md); a message in *why when it does not parse.
std::optional<RepeatStop> parse_repeat_stop(const KeyValues& kv, std::string* why);

// What is wrong with the reps against the plan ("" when nothing): the warm-up marks, the
// count, and for adaptive repetitions the stop record, recomputed with the host's rule.
std::string check_reps(const RepeatPlan& plan, const std::vector<RepView>& reps,
                       const std::optional<RepeatStop>& stop);

// A fixed count's account: reason fixed, n, and the watched metrics' half-widths.
RepeatStop fixed_stop(const RepeatPlan& plan, const std::vector<RepView>& reps);

}  // namespace foliolab
