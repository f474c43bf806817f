#include "server/lab_faults.h"

#include <cstdio>
#include <system_error>

namespace foliolab {
namespace fs = std::filesystem;

namespace {

struct FaultReply {
  int status;
  const char* shown;  // what a 5xx says instead of its detail (nullptr: the message is shown)
};

// The one map from a failure to an HTTP status (shared/STYLE.md): what a client sent is a 4xx
// that names it; the server's own faults are a 5xx that names no detail (a database's host,
// user or name, a store's path), which goes to stderr instead.
constexpr FaultReply kFaults[] = {
    {400, nullptr},
    {401, nullptr},
    {403, nullptr},
    {404, nullptr},
    {503, "the lab's database cannot be reached; try again later"},
    {507, "the server's store is full"},
    {500, "the server cannot write its store"},
    {500, "internal error"},
};

}  // namespace

void reply_fault(HttpResponse& res, Fault fault, std::string_view message) {
  const FaultReply& f = kFaults[static_cast<int>(fault)];
  if (f.shown) {
    std::fprintf(stderr, "foliolab serve: %d: %.*s\n", f.status, static_cast<int>(message.size()),
                 message.data());
  }
  res = error_response(f.status, f.shown ? f.shown : message);
}

// A Result's kind as a fault: the client's input, the environment (the database) or a bug.
Fault fault_of(const Error& e) {
  switch (e.kind) {
    case ErrorKind::kInput:
      return Fault::kBadInput;
    case ErrorKind::kEnvironment:
      return Fault::kDatabase;
    case ErrorKind::kInternal:
      return Fault::kBug;
  }
  return Fault::kBug;
}

// A failed write under the store: full (507), or some other fault of the server's (500).
void store_failed(HttpResponse& res, const fs::path& store, const Error& e) {
  std::error_code ec;
  const auto space = fs::space(store, ec);
  const bool full = !ec && space.available < (size_t{1} << 20);
  reply_fault(res, full ? Fault::kStoreFull : Fault::kStore, e.message);
}

// A reply made elsewhere (server/lab_findings.h): its 5xx scrubbed like every other.
HttpResponse scrubbed(const LabReply& r) {
  HttpResponse res{r.status, r.body, r.type, {}};
  if (r.status >= 500) reply_fault(res, r.status == 503 ? Fault::kDatabase : Fault::kBug, r.body);
  return res;
}

}  // namespace foliolab
