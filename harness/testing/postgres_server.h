// A real PostgreSQL for tests: initdb and pg_ctl from Debian's postgresql-15 in a temporary
// folder, on a free loopback port, as an unprivileged user (root runs them as `postgres`
// through runuser: initdb refuses root). Each database() is a new, empty database.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace foliolab {

class PostgresServer {
 public:
  // Starts a server in `dir` (created; removed by the destructor after the server stops).
  static Result<std::unique_ptr<PostgresServer>> start(const std::filesystem::path& dir);
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // postgresql://foliolab@127.0.0.1:PORT/NAME, created empty.
  Result<std::string> database(const std::string& name);
  Result<void> restart();  // pg_ctl restart -m fast: every connection is cut
  Result<void> stop();
  int port() const { return port_; }

 private:
  PostgresServer(std::filesystem::path dir, int port) : dir_(std::move(dir)), port_(port) {}
  Result<void> pg_ctl(const std::vector<std::string>& args);
  std::filesystem::path dir_;
  int port_;
  bool running_ = false;
};

// The directory of initdb and pg_ctl (/usr/lib/postgresql/<version>/bin), or "" when absent.
std::filesystem::path postgres_bin_dir();

}  // namespace foliolab
