// The lab server's wire format, shared by the server (server/lab_server.h) and its clients
// (server/lab_client.h): paths, and the JSON of what is not a session bundle.
//
//   POST /api/v1/sessions                  a session bundle (push token)    -> {session, stored}
//   GET  /api/v1/sessions?experiment=&host=&kernel=&limit=                  -> {sessions: [...]}
//   GET  /api/v1/sessions/<experiment>/<stamp>                              -> the bundle
//   GET  /api/v1/samples?metric=&where=    a metric's indexed samples        -> {samples: [...]}
//   GET  /api/v1/history?metric=&where=    the same, with change points      -> {series: [...]}
//   GET  /api/v1/compare?base=&cand=       two stored sessions               -> comparison JSON
//   POST /api/v1/sessions/<exp>/<stamp>/gate  its gate.json (push token)     -> {session, cases}
//   GET  /api/v1/gates?metric=             the gate cases of a metric        -> {cases: [...]}
//   GET  /api/v1/bisections                the index's bisections            -> {bisections: [...]}
//   POST /api/v1/bisections/<exp>/<dir>    a bisect.json (push token)        -> {bisection, steps}
//   GET  /api/v1/bisections/<exp>/<dir>    its bisect.json
//   PUT  /api/v1/kernels/<build id>/<file> X-Content-SHA256 (push token)
//   GET  /api/v1/kernels/<build id>/<file>, GET /api/v1/kernels/<build id>   -> {files: [...]}
// Errors are {"error": "..."} with a 4xx/5xx status.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "results/finding_index.h"
#include "results/index.h"
#include "results/pushed_sessions.h"
#include "util/result.h"

namespace foliolab {

inline constexpr const char* kApiPrefix = "/api/v1";
// The default upload bound of a server (a session bundle or a kernel file).
inline constexpr size_t kDefaultMaxUpload = size_t{256} << 20;

std::string samples_json(const std::vector<IndexedSample>& samples);
Result<std::vector<IndexedSample>> parse_samples_json(std::string_view text);
std::string sessions_json(const std::vector<PushedSession>& sessions);
Result<std::vector<PushedSession>> parse_sessions_json(std::string_view text);
std::string gate_cases_json(const std::vector<IndexedGateCase>& cases);
Result<std::vector<IndexedGateCase>> parse_gate_cases_json(std::string_view text);
std::string error_json(std::string_view message);
// A build id or a kernel file name a server stores: a plain name (results/session_bundle.h).
bool is_kernel_name(std::string_view name);

}  // namespace foliolab
