// The record channel of a run on a lab machine (the kexec backend): the agent, PID 1 of the
// kexec'ed kernel, connects back over TCP, sends "FOLIOLAB-RECORDS <nonce>\n" with the nonce of
// its run's job, then the framed records of docs/guest-protocol.md. A connection whose first line
// is anything else (another run's agent, a port scanner) is closed and named; only the run's own
// stream reaches records.bin, byte for byte. Plain POSIX sockets and poll(): one listener, one
// stream at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "util/result.h"

namespace foliolab {

inline constexpr const char* kRecordGreeting = "FOLIOLAB-RECORDS";

// The address of this machine's interface that routes to `host` (IPv4; a UDP connect sends
// nothing): where the record listener of a run on that machine binds unless told otherwise, so
// that it listens on that one interface (loopback for a machine reached at 127.0.0.1), not on all.
Result<std::string> local_address_towards(const std::string& host);

// A random nonce for one run: 32 hex digits from the kernel's random source.
Result<std::string> make_run_nonce();

struct ReceivedRecords {
  bool connected = false;            // the run's agent connected with its nonce
  bool closed = false;               // ... and closed its end (it reported all it had)
  uint64_t bytes = 0;                // written into the records file
  bool over_limit = false;           // ... and was cut at max_bytes (the rest unread)
  std::string peer;                  // "10.0.2.15:40312"
  std::vector<std::string> refused;  // "127.0.0.1:51234: no FOLIOLAB-RECORDS greeting"
};

class RecordListener {
 public:
  // Listens on `address` ("0.0.0.0", "127.0.0.1") at `port` (0: any free port).
  static Result<RecordListener> open(const std::string& address, uint16_t port);
  RecordListener(RecordListener&& other) noexcept;
  RecordListener& operator=(RecordListener&&) = delete;
  RecordListener(const RecordListener&) = delete;
  ~RecordListener();

  uint16_t port() const { return port_; }
  // Bounds what one stream may write into the records file (default 1 GiB; a run's records are
  // tens of kB, a monitored one a few MB).
  void set_max_bytes(uint64_t n) { max_bytes_ = n; }

  // Until `connect_by` (at the latest `deadline`): takes the first connection that greets with
  // `nonce`; then copies the rest of its stream into `records` (created) until the agent closes
  // it or `deadline` passes. Others are refused. An error is this machine's (the records file
  // cannot be written).
  Result<ReceivedRecords> receive(const std::string& nonce, const std::filesystem::path& records,
                                  std::chrono::steady_clock::time_point connect_by,
                                  std::chrono::steady_clock::time_point deadline);

 private:
  RecordListener(int fd, uint16_t port) : fd_(fd), port_(port) {}
  int fd_ = -1;
  uint16_t port_ = 0;
  uint64_t max_bytes_ = uint64_t{1} << 30;
};

}  // namespace foliolab
