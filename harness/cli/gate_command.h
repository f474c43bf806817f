// `foliolab gate CAND --baseline B`: the candidate session judged against the baseline with the
// experiment's gate: rules; `--confirm N` reruns failing cases (bisect/gate_rerun.h) and
// `--known-issues FILE` expects the failures a reviewed file names (analysis/known_issues.h).
// The outcome goes to stdout, --junit, --markdown and the candidate session's gate.json;
// `--bisect` then bisects the first confirmed failure whose kernels differ by a series or a git
// range (bisect/bisect_origin.h), in CAND/bisect/.
#pragma once

#include <functional>
#include <string>

#include "bisect/bisect_origin.h"
#include "bisect/gate_rerun.h"
#include "cli/run_setup.h"

namespace CLI {
class App;
}

namespace foliolab::cli {

struct GateFlags {
  RunFlags run;  // how --confirm's sessions run (backend, accel, -j); run.results is --results
  std::string cand, baseline, junit, markdown, where, known_issues;
  // --server: the baseline is a session of that lab server (`latest` or <experiment>/<stamp>),
  // fetched into the cache; --token-file as `push`.
  std::string server, token_file;
  std::string format = "text";
  std::string today;  // --today YYYY-MM-DD for known-issue expiry; "": today's UTC date
  int confirm = 0;
  bool bisect = false;  // --bisect (needs --confirm)
};

// Where --confirm's sessions come from: a RunContext in the CLI, a fake backend in tests.
struct GateSessions {
  ExperimentSessionRun run;
  std::function<void()> finish;  // before the report is printed (ends a status block)
  // --bisect: runs the bisection of a confirmed failure (cli: bisect in CAND/bisect/); its
  // exit code.
  std::function<int(const GateBisect& b, const std::filesystem::path& cand_dir)> bisect;
};

// Exit 0 when no case fails (flaky and known ones do not), 1 when one does, 2 bad input, 3
// when a case could not be rerun (infra) and none fails.
int run_gate(const GateFlags& f, const GateSessions& sessions);

std::function<int()> setup_gate(CLI::App& app);

}  // namespace foliolab::cli
