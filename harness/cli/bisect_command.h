// `foliolab bisect EXP --variants a,b,… | --series S | --range A..B | --from-change-point SESSION
// --metric M --where …` and `foliolab bisect resume DIR`
// (bisect/bisect_driver.h; each step a results session). Exit 0: a culprit, confirmed; 1: none
// found, unconfirmed or does not reproduce; 2: bad input.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/run_setup.h"

namespace CLI {
class App;
}

namespace foliolab::cli {

struct BisectFlags {
  RunFlags run;  // the experiment and how its sessions run (backend, accel, -j, --results, ...)
  std::vector<std::string> variants;
  std::string series, range;  // --series S, --range GOOD..BAD
  size_t good_patches = 0;    // --good-patches K: the series' first K patches are known good
  // --from-change-point SESSION: the series or range between the kernels of a change point's
  // two sessions (bisect/bisect_origin.h), and its series' --where.
  std::string from_change_point;
  std::string metric, where;
  int confirm = 3;
  bool confirm_given = false;  // --confirm on the command line (bisect resume keeps the log's)
  size_t max_reps = 32;        // timings: the sequential test's last look
  std::string resume;          // `bisect resume DIR`
};

// Runs (or resumes) the bisection the flags describe: the exit code, messages printed.
int run_bisection(BisectFlags& f);

std::function<int()> setup_bisect(CLI::App& app);

}  // namespace foliolab::cli
