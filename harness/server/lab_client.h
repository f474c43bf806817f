// A lab server's client (server/lab_server.h, the API in server/lab_api.h): push a session,
// fetch one back as a local session directory, a metric's samples, kernels by build id.
// Every call is bounded in time; a push is retried (a server restarting, a database
// restarting) and never touches the local copy.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "results/finding_index.h"
#include "results/index.h"
#include "results/pushed_sessions.h"
#include "util/result.h"

namespace foliolab {

struct LabServerRef {
  std::string url;    // http://host:port or https://host:port
  std::string token;  // "" when none
  int attempts = 5;   // tries of a push (a second apart, then longer)
};

// The server and the token: --token-file (0600, or refused) else $FOLIOLAB_TOKEN.
Result<LabServerRef> lab_server_ref(const std::string& url, const std::string& token_file);

Result<PushOutcome> push_session(const LabServerRef& server,
                                 const std::filesystem::path& session_dir);
// The gate's verdicts on the stored session `key` (<experiment>/<stamp>): its gate.json.
Result<void> push_gate_report(const LabServerRef& server, const std::string& key,
                              const std::string& gate_json);
// A bisection's log (its bisect.json) as the server's bisection `key`
// (<experiment>/bisect-<stamp>), replacing what the server had of it.
Result<void> push_bisection(const LabServerRef& server, const std::string& key,
                            const std::filesystem::path& log_file);
// The stored session <experiment>/<stamp> written under `root` (results/session_bundle.h).
Result<std::filesystem::path> fetch_session(const LabServerRef& server, const std::string& key,
                                            const std::filesystem::path& root);
Result<std::vector<PushedSession>> fetch_sessions(const LabServerRef& server,
                                                  const std::string& experiment, int limit);
Result<std::vector<IndexedSample>> fetch_samples(const LabServerRef& server,
                                                 const std::string& metric,
                                                 const std::string& where);
// The gate cases the server holds of `metric` (results/finding_index.h).
Result<std::vector<IndexedGateCase>> fetch_gate_cases(const LabServerRef& server,
                                                      const std::string& metric);
// Where fetched sessions of this server are kept: <cache>/lab/<host-port>.
std::filesystem::path lab_session_root(const std::filesystem::path& cache,
                                       const LabServerRef& server);

// Kernels: a built kernel's folder (kernel.json and its images) up, and down into a cache.
Result<void> push_kernel(const LabServerRef& server, const std::string& build_id,
                         const std::filesystem::path& kernel_dir);
// false: the server has no such kernel.
Result<bool> fetch_kernel(const LabServerRef& server, const std::string& build_id,
                          const std::filesystem::path& kernel_dir);

}  // namespace foliolab
