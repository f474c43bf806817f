#include "testing/postgres_server.h"

#include <fmt/format.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include "results/sql.h"
#include "testing/loopback_port.h"
#include "util/process.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

constexpr const char* kUser = "postgres";  // the unprivileged account root runs the server as

// argv as the unprivileged user when this process is root.
std::vector<std::string> as_user(std::vector<std::string> argv) {
  if (::geteuid() != 0) return argv;
  argv.insert(argv.begin(), {"runuser", "-u", kUser, "--"});
  return argv;
}

Result<void> run(const std::vector<std::string>& argv, const fs::path& log) {
  RealProcessRunner runner;
  ProcessSpec spec{.argv = as_user(argv), .log_path = log, .timeout = std::chrono::seconds(120)};
  const ProcessResult r = runner.run(spec);
  if (!r.ok()) {
    return make_env_error(
        fmt::format("{}: {}; {}", format_argv(argv), r.describe(), tail_lines(log, 10)));
  }
  return {};
}

}  // namespace

fs::path postgres_bin_dir() {
  std::error_code ec;
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    if (fs::exists(e.path() / "bin" / "initdb", ec)) found.push_back(e.path() / "bin");
  }
  std::sort(found.begin(), found.end());
  return found.empty() ? fs::path() : found.back();
}

Result<std::unique_ptr<PostgresServer>> PostgresServer::start(const fs::path& dir) {
  const fs::path bin = postgres_bin_dir();
  if (bin.empty()) {
    return make_env_error("no PostgreSQL server (initdb): install postgresql-15 (setup.sh --test)");
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (::geteuid() == 0) {
    const passwd* pw = ::getpwnam(kUser);
    if (!pw) return make_env_error(fmt::format("no user '{}' to run PostgreSQL as", kUser));
    if (::chown(dir.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      return make_env_error(fmt::format("cannot chown {} to {}", dir.string(), kUser));
    }
  }
  const int port = free_loopback_port();
  std::unique_ptr<PostgresServer> s(new PostgresServer(dir, port));
  FL_TRY(run({(bin / "initdb").string(), "-D", (dir / "data").string(), "-U", "foliolab",
              "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"},
             dir / "initdb.log"));
  FL_TRY(s->pg_ctl(
      {"start", "-w", "-o",
       fmt::format("-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off", port, dir.string())}));
  s->running_ = true;
  return s;
}

Result<void> PostgresServer::pg_ctl(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {(postgres_bin_dir() / "pg_ctl").string(), "-D",
                                   (dir_ / "data").string(), "-l", (dir_ / "server.log").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, dir_ / "pg_ctl.log");
}

Result<std::string> PostgresServer::database(const std::string& name) {
  const std::string base = fmt::format("postgresql://foliolab@127.0.0.1:{}/", port_);
  auto db = SqlDb::open(base + "postgres", 0);
  if (!db.ok()) return db.error();
  // Two statements apart: CREATE DATABASE cannot run inside the block a multi-statement makes.
  FL_TRY(db->exec(fmt::format("DROP DATABASE IF EXISTS \"{}\"", name)));
  FL_TRY(db->exec(fmt::format("CREATE DATABASE \"{}\"", name)));
  return base + name;
}

Result<void> PostgresServer::restart() { return pg_ctl({"restart", "-w", "-m", "fast"}); }

Result<void> PostgresServer::stop() {
  if (!running_) return {};
  running_ = false;
  return pg_ctl({"stop", "-w", "-m", "immediate"});
}

PostgresServer::~PostgresServer() {
  (void)stop();
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

}  // namespace foliolab
