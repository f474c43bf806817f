// The lab server's one map from a failure to an HTTP reply (shared/STYLE.md: one status map,
// as LNT's abort_with_error): what a client sent is a 4xx whose JSON error names it; the
// server's own faults are a 5xx that names no detail (a database's host, user or name, a store's
// path): the detail goes to stderr, the server's log.
#pragma once

#include <filesystem>
#include <string_view>

#include "server/http_front.h"
#include "server/lab_findings.h"
#include "util/result.h"

namespace foliolab {

enum class Fault { kBadInput, kNoToken, kDenied, kNotFound, kDatabase, kStoreFull, kStore, kBug };

// `res` made the fault's reply (a 5xx logged, its message replaced by a plain one).
void reply_fault(HttpResponse& res, Fault fault, std::string_view message);
// A Result's kind as a fault: the client's input (400), the environment (503) or a bug (500).
Fault fault_of(const Error& e);
// A failed write under the store: full (507), or another fault of the server's (500).
void store_failed(HttpResponse& res, const std::filesystem::path& store, const Error& e);
// A reply made by server/lab_findings.h, its 5xx scrubbed like every other.
HttpResponse scrubbed(const LabReply& reply);

}  // namespace foliolab
