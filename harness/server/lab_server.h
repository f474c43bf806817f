// `foliolab serve`: a lab's results in one place. An HTTP server (server/http_front.h: one I/O
// thread, a bounded pool of workers, deadlines for slow clients) over one index (results/sql.h:
// PostgreSQL for a lab, a SQLite file for one machine): the JSON API of server/lab_api.h, a
// dashboard (server/dashboard.h, no external assets) and a store of built kernels by build id. Each
// request opens its own connection, so a database restart costs the requests in flight, never the
// server.
//
// Pushing and kernel uploads need a push token; reading needs a read (or push) token unless
// `open_read`; the token is checked on the request head, before any body is read. Bodies over
// `max_upload` get 413 before they are read; a push is checked whole (results/session_bundle.h,
// and every record's identity against the bundle's) and stored in one transaction, so a bad,
// partial or interrupted upload changes nothing. Errors are JSON; a 5xx names no detail (the
// database's address, a path): those go to stderr.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "server/http_front.h"
#include "util/result.h"

namespace foliolab {

struct LabServerOptions {
  std::string db;                  // postgresql://… or a SQLite file
  std::string host = "127.0.0.1";  // loopback unless told
  int port = 8470;                 // 0: any free port
  bool open_read = true;           // reads need no token
  size_t max_upload = size_t{256} << 20;
  std::filesystem::path store;  // kernels/<build id>/<file>, sessions/ (the view cache)
  // HTTPS directly when both are set (else plain HTTP, for a reverse proxy in front).
  std::filesystem::path tls_cert, tls_key;
  HttpLimits limits;  // deadlines and caps for clients (tests make them short)
};

class LabServer {
 public:
  explicit LabServer(LabServerOptions options);
  ~LabServer();
  LabServer(const LabServer&) = delete;
  LabServer& operator=(const LabServer&) = delete;

  // Opens (migrating) the index once and binds the address: the port bound.
  Result<int> bind();
  // Serves until stop() (from another thread or a signal handler's thread).
  Result<void> serve();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace foliolab
