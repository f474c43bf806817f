// The lab server's HTTP front (Boost.Beast over Asio): connections, deadlines, framing and a
// route table, nothing about results. One I/O thread accepts and reads; handlers (database
// work) run on a bounded pool of workers, so a slow query or a slow client never stalls the
// others, and a full pool answers 503 instead of queueing without end.
//
// What a connection may cost (each bound in HttpLimits):
//   - its request head must arrive whole within `head_timeout` (a keep-alive connection's next
//     head within `idle_timeout`), at most `max_head` bytes;
//   - its body at no less than `min_body_rate` bytes/s on average after `body_grace`, at most
//     `max_upload` bytes (413 before any of it is read);
//   - the route's access is checked on the head (Authorizer) before any body byte is read: a
//     refused request is answered and its connection closed;
//   - strict framing: Content-Length with Transfer-Encoding, two Content-Lengths, a bad chunk
//     or a malformed head is a 400 and the connection is closed;
//   - at most `max_connections` open: the next one closes the connection that has waited
//     longest for a request head, or is refused when every one is busy.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "server/http_route.h"
#include "util/result.h"

namespace foliolab {

// Checks a request's head (its body not read yet): nullopt lets it go on (with `who` set),
// else the reply that refuses it. Runs on a worker.
using Authorizer = std::function<std::optional<HttpResponse>(Access, HttpRequest&)>;

// What one connection may cost, and how many there may be (the defaults: a lab's server).
struct HttpLimits {
  size_t max_head = 16 << 10;
  std::chrono::milliseconds head_timeout{10'000}, idle_timeout{30'000}, body_grace{10'000};
  size_t min_body_rate = 64 << 10;  // bytes/s, on average over a body (and a reply)
  size_t max_connections = 1024;
  int workers = 8;
  size_t queue = 64;  // requests waiting for a worker, beyond which 503
};

struct HttpFrontOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  std::filesystem::path tls_cert, tls_key;  // HTTPS when both are set
  size_t max_upload = size_t{256} << 20;
  HttpLimits limits;
};

class HttpFront {
 public:
  HttpFront(HttpFrontOptions options, std::vector<HttpRoute> routes, Authorizer authorize);
  ~HttpFront();
  HttpFront(const HttpFront&) = delete;
  HttpFront& operator=(const HttpFront&) = delete;

  // Binds the address (and loads the certificate): the port bound.
  Result<int> bind();
  // Serves until stop() (from any thread; a stop before serve() makes serve() return at once).
  Result<void> serve();
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace foliolab
