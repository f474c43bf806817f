// Sessions a lab server (`foliolab serve`) holds: pushed whole (results/session_bundle.h) into
// its index, with their files, in one transaction; listed; served back. The index is either
// engine (results/sql.h); the queries are the same on both.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/index.h"
#include "results/session_bundle.h"
#include "util/result.h"

namespace foliolab {

struct PushOutcome {
  std::string key;      // <experiment>/<stamp> as stored
  bool stored = false;  // false: a session with the same digest was there already
};

// Stores the bundle unless one with its digest is there (a second push is a no-op). A key that
// another session holds gets the pushing host's name after the stamp. Nothing is half-stored:
// a failure rolls the whole push back.
Result<PushOutcome> store_pushed_session(ResultIndex& index, const SessionBundle& bundle,
                                         const std::string& token_name);
// The bundle stored under the key, if any.
Result<std::optional<SessionBundle>> load_pushed_session(ResultIndex& index,
                                                         const std::string& key);

struct PushedSession {
  std::string key, experiment, stamp, host, pushed;
  std::vector<std::string> kernels, arches;  // distinct, sorted
  int runs = 0, ok = 0;
};
struct SessionFilter {
  std::string experiment, host, kernel;
  int limit = 200;
};
// Sessions newest first (by stamp), those the filter keeps.
Result<std::vector<PushedSession>> list_sessions(ResultIndex& index, const SessionFilter& filter);

}  // namespace foliolab
