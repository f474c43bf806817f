#include "backend/record_listener.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace foliolab {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// How long a new connection may take to greet before it is refused.
constexpr std::chrono::seconds kGreetingTimeout{5};

int ms_until(Clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t - Clock::now()).count();
  return ms <= 0 ? 0 : static_cast<int>(std::min<long long>(ms, 1000 * 1000));
}

std::string peer_name(const sockaddr_in& a) {
  char ip[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
  return fmt::format("{}:{}", ip, ntohs(a.sin_port));
}

bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// Reads the greeting line; what came after it is left in `rest`. "" when it greeted with
// `nonce`, else why not.
std::string read_greeting(int fd, const std::string& nonce, Clock::time_point deadline,
                          std::string& rest) {
  const Clock::time_point until = std::min(deadline, Clock::now() + kGreetingTimeout);
  std::string got;
  char buf[256];
  while (got.find('\n') == std::string::npos) {
    if (got.size() > 128) return "no FOLIOLAB-RECORDS greeting";
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    const int ms = ms_until(until);
    if (ms == 0 || poll(&p, 1, ms) <= 0) return "no greeting in time";
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return "closed before greeting";
    got.append(buf, static_cast<size_t>(n));
  }
  const size_t nl = got.find('\n');
  rest = got.substr(nl + 1);
  const std::string line = got.substr(0, nl);
  const std::string want = std::string(kRecordGreeting) + " ";
  if (!line.starts_with(want)) return "no FOLIOLAB-RECORDS greeting";
  if (!same_secret(line.substr(want.size()), nonce)) return "a nonce that is not this run's";
  return "";
}

Result<void> write_all(int fd, const char* p, size_t n, const fs::path& file) {
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      return make_env_error(fmt::format("cannot write {}: {}", file.string(), strerror(errno)));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return {};
}

// Copies the stream into `out` until EOF or the deadline.
Result<void> copy_stream(int conn, std::string first, int out, const fs::path& file,
                         Clock::time_point deadline, uint64_t max_bytes, ReceivedRecords& got) {
  if (first.size() > max_bytes) {
    got.over_limit = true;
    return {};
  }
  FL_TRY(write_all(out, first.data(), first.size(), file));
  got.bytes += first.size();
  char buf[65536];
  for (;;) {
    pollfd p{.fd = conn, .events = POLLIN, .revents = 0};
    const int ms = ms_until(deadline);
    if (ms == 0) return {};
    const int r = poll(&p, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return {};
    const ssize_t n = read(conn, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // EOF, or a reset: the agent is gone either way
      got.closed = n == 0;
      return {};
    }
    if (got.bytes + static_cast<uint64_t>(n) > max_bytes) {
      got.over_limit = true;
      return {};
    }
    FL_TRY(write_all(out, buf, static_cast<size_t>(n), file));
    got.bytes += static_cast<uint64_t>(n);
  }
}

}  // namespace

Result<std::string> local_address_towards(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (const int rc = getaddrinfo(host.c_str(), "9", &hints, &found); rc != 0 || !found) {
    return make_env_error(fmt::format("{}: cannot resolve to IPv4: {}", host, gai_strerror(rc)));
  }
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in local{};
  socklen_t len = sizeof local;
  const bool ok = fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0;
  const std::string why = ok ? "" : strerror(errno);
  freeaddrinfo(found);
  if (fd >= 0) close(fd);
  if (!ok) return make_env_error(fmt::format("{}: no route from this machine: {}", host, why));
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &local.sin_addr, text, sizeof text);
  return std::string(text);
}

Result<std::string> make_run_nonce() {
  unsigned char raw[16];
  if (getrandom(raw, sizeof raw, 0) != static_cast<ssize_t>(sizeof raw)) {
    return make_env_error(fmt::format("getrandom: {}", strerror(errno)));
  }
  std::string hex;
  for (unsigned char c : raw) hex += fmt::format("{:02x}", c);
  return hex;
}

Result<RecordListener> RecordListener::open(const std::string& address, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1) {
    return make_error(fmt::format("record channel: '{}' is not an IPv4 address", address));
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return make_env_error(fmt::format("socket: {}", strerror(errno)));
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 8) != 0) {
    const std::string why = strerror(errno);
    close(fd);
    return make_env_error(
        fmt::format("record channel: cannot listen on {}:{}: {}", address, port, why));
  }
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return RecordListener(fd, ntohs(a.sin_port));
}

RecordListener::RecordListener(RecordListener&& other) noexcept
    : fd_(other.fd_), port_(other.port_) {
  other.fd_ = -1;
}

RecordListener::~RecordListener() {
  if (fd_ >= 0) close(fd_);
}

Result<ReceivedRecords> RecordListener::receive(const std::string& nonce, const fs::path& records,
                                                Clock::time_point connect_by,
                                                Clock::time_point deadline) {
  ReceivedRecords got;
  connect_by = std::min(connect_by, deadline);
  for (;;) {
    pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
    const int ms = ms_until(connect_by);
    if (ms == 0) return got;
    const int r = poll(&p, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return got;
    sockaddr_in peer{};
    socklen_t len = sizeof peer;
    const int conn = accept4(fd_, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
    if (conn < 0) continue;
    std::string rest;
    const std::string why = read_greeting(conn, nonce, deadline, rest);
    if (!why.empty()) {
      got.refused.push_back(fmt::format("{}: {}", peer_name(peer), why));
      close(conn);
      continue;
    }
    got.connected = true;
    got.peer = peer_name(peer);
    const int out = ::open(records.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
      close(conn);
      return make_env_error(fmt::format("cannot create {}: {}", records.string(), strerror(errno)));
    }
    Result<void> copied =
        copy_stream(conn, std::move(rest), out, records, deadline, max_bytes_, got);
    close(conn);
    if (fsync(out) != 0 && copied.ok()) {
      copied =
          make_env_error(fmt::format("cannot write {}: {}", records.string(), strerror(errno)));
    }
    close(out);
    if (!copied.ok()) return copied.error();
    return got;
  }
}

}  // namespace foliolab
