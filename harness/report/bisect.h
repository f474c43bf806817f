// `foliolab bisect`'s words: a line per step as it goes, and the evidence table at the end.
#pragma once

#include <string>
#include <vector>

#include "bisect/bisect_outcome.h"

namespace foliolab {

// What the bisection follows, for the headline: "mthp.64kB.anon_fault_alloc over 8 knob sets
// (arch=x86_64)".
struct BisectTitle {
  std::string metric, candidates, where;
};

// "[step 3/4] knob set 'v6' (6 of 8): n=2: 64 64 (bad)".
std::string bisect_step_line(const BisectStep& step, const std::string& candidate, size_t k,
                             size_t bound);

// The headline with the answer, the evidence table (candidate, class, values, session) in
// candidate order, and the confirmations. `names[i]` describes candidate i.
std::string bisect_text(const BisectTitle& title, const BisectOutcome& out,
                        const std::vector<std::string>& names);

}  // namespace foliolab
