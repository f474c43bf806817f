// The lab server as a lab runs it: the real `foliolab serve` binary on loopback over a real
// PostgreSQL (or a SQLite file), the real `foliolab push` / `gate --server` / `history
// --server`, and faults: 8 concurrent pushers x 25 sessions while the server is SIGKILLed and
// started again, and while PostgreSQL restarts. Afterwards every session is there exactly once
// and none half-stored.
#include <fmt/format.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "results/index.h"
#include "server/lab_client.h"
#include "server/token_store.h"
#include "testing/cli_binary.h"
#include "testing/lab_fixture.h"
#include "testing/loopback_port.h"
#include "testing/source_root.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

class E2ELab : public ::testing::Test {
 protected:
  void open(LabEngine engine) {
    db_ = std::make_unique<LabDatabase>(engine, dir_.path());
    ASSERT_TRUE(db_->error().empty()) << db_->error();
    auto index = ResultIndex::open_url(db_->url());
    ASSERT_TRUE(index.ok()) << index.error().message;
    token_ = *add_token(*index, "lab1", TokenScope::kPush);
    port_ = free_loopback_port();
    url_ = "http://127.0.0.1:" + std::to_string(port_);
    serve();
  }
  // Starts `foliolab serve` and waits until it answers (a hung one fails the wait, not a slow
  // machine: the bound is generous).
  void serve() {
    pid_ = spawn_cli({"serve", "--db", db_->url(), "--listen", "127.0.0.1:" + std::to_string(port_),
                      "--store", (dir_ / "store").string()},
                     dir_ / "serve.log");
    httplib::Client c(url_);
    for (int i = 0; i < 600; ++i) {
      if (auto r = c.Get("/api/v1/sessions"); r && r->status == 200) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    FAIL() << "foliolab serve did not answer: " << tail_lines(dir_ / "serve.log", 20);
  }
  void TearDown() override {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      EXPECT_EQ(wait_exit(pid_), 0) << tail_lines(dir_ / "serve.log", 20);
    }
  }
  int64_t count(const std::string& sql) {
    auto index = ResultIndex::open_url(db_->url());
    EXPECT_TRUE(index.ok());
    auto n = index->db().query_int(sql);
    EXPECT_TRUE(n.ok()) << n.error().message;
    return n.ok() ? *n : -1;
  }

  // 8 pushers x 25 sessions; `fault` runs once, when 40 pushes are done.
  void push_under(const std::function<void()>& fault) {
    constexpr int kPushers = 8, kEach = 25;
    std::vector<std::vector<fs::path>> sessions(kPushers);
    for (int p = 0; p < kPushers; ++p) {
      for (int i = 0; i < kEach; ++i) {
        sessions[p].push_back(make_lab_session(dir_ / "results" / std::to_string(p),
                                               fmt::format("20261201T0000{:02}Z-{}", i, p), i));
      }
    }
    std::atomic<int> done{0}, failed{0};
    std::vector<std::thread> pushers;
    for (int p = 0; p < kPushers; ++p) {
      pushers.emplace_back([&, p] {
        const LabServerRef ref{.url = url_, .token = token_, .attempts = 10};
        for (const fs::path& s : sessions[p]) {
          auto out = push_session(ref, s);
          if (!out.ok()) ADD_FAILURE() << out.error().message;
          failed += !out.ok();
          ++done;
        }
      });
    }
    while (done < 40) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    fault();
    for (auto& t : pushers) t.join();
    EXPECT_EQ(failed, 0);
    // Every session exactly once, each whole: its two runs and three files.
    EXPECT_EQ(count("SELECT COUNT(*) FROM sessions"), kPushers * kEach);
    EXPECT_EQ(count("SELECT COUNT(*) FROM pushes"), kPushers * kEach);
    EXPECT_EQ(count("SELECT COUNT(*) FROM runs"), 2 * kPushers * kEach);
    EXPECT_EQ(count("SELECT COUNT(*) FROM session_files"), 3 * kPushers * kEach);
    EXPECT_EQ(count("SELECT COUNT(*) FROM sessions se WHERE (SELECT COUNT(*) FROM runs r "
                    "WHERE r.session_id = se.id) <> 2"),
              0);
  }

  ScopedTestDir dir_{"foliolab-lab-e2e"};
  std::unique_ptr<LabDatabase> db_;
  std::string token_, url_;
  int port_ = 0;
  pid_t pid_ = -1;
};

void kill_and_restart(E2ELab* t, pid_t* pid, const std::function<void()>& serve) {
  ::kill(*pid, SIGKILL);
  EXPECT_EQ(wait_exit(*pid), 128 + SIGKILL);
  (void)t;
  serve();
}

TEST_F(E2ELab, PushersSurviveServerKillPostgres) {
  open(LabEngine::kPostgres);
  push_under([&] { kill_and_restart(this, &pid_, [&] { serve(); }); });
}

TEST_F(E2ELab, PushersSurviveServerKillSqlite) {
  open(LabEngine::kSqlite);
  push_under([&] { kill_and_restart(this, &pid_, [&] { serve(); }); });
}

TEST_F(E2ELab, PushersSurvivePostgresRestart) {
  open(LabEngine::kPostgres);
  push_under([&] {
    auto st = db_->postgres()->restart();
    EXPECT_TRUE(st.ok()) << st.error().message;
  });
}

// Host B gates its candidate against the baseline host A pushed, through the server; history
// reads the server's index. The CLI as a user runs it, relative paths from B's folder.
TEST_F(E2ELab, GateAgainstAnotherHostsBaseline) {
  open(LabEngine::kPostgres);
  const fs::path a = dir_ / "host-a", b = dir_ / "host-b";
  make_lab_session(a / "results", "20261201T000000Z", 0, "lab-a");
  ProcessResult push = run_cli({"push", "results/quickstart/20261201T000000Z", "--server", url_}, a,
                               dir_ / "cli.log");
  EXPECT_NE(push.exit_code, 0) << "a push without a token must be refused";
  const fs::path token = a / "token";
  ASSERT_TRUE(write_file_atomic(token, token_ + "\n").ok());
  fs::permissions(token, fs::perms::owner_read | fs::perms::owner_write);
  push = run_cli(
      {"push", "results/quickstart/20261201T000000Z", "--server", url_, "--token-file", "token"}, a,
      dir_ / "cli.log");
  ASSERT_EQ(push.exit_code, 0) << push.output;

  make_lab_session(b / "results", "20261202T000000Z", 0, "lab-b");
  make_lab_session(b / "results", "20261203T000000Z", 300, "lab-b");  // 64K faults moved
  ProcessResult same = run_cli({"gate", "results/quickstart/20261202T000000Z", "--baseline",
                                "latest", "--server", url_, "--cache", "cache"},
                               b, dir_ / "cli.log");
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_NE(same.output.find("quickstart/20261201T000000Z"), std::string::npos) << same.output;
  EXPECT_NE(same.output.find("keeps no verdict of this gate (no push token given)"),
            std::string::npos)
      << same.output;
  // With B's push token the gate stores its candidate and verdicts on the server.
  ASSERT_TRUE(write_file_atomic(b / "token", token_ + "\n").ok());
  fs::permissions(b / "token", fs::perms::owner_read | fs::perms::owner_write);
  ProcessResult moved = run_cli(
      {"gate", "results/quickstart/20261203T000000Z", "--baseline", "quickstart/20261201T000000Z",
       "--server", url_, "--cache", "cache", "--token-file", "token"},
      b, dir_ / "cli.log");
  EXPECT_EQ(moved.exit_code, 1) << moved.output;
  EXPECT_NE(moved.output.find("the verdicts on quickstart/20261203T000000Z are stored"),
            std::string::npos)
      << moved.output;

  // compare: A's pushed session against B's local candidate (64K mTHP: 1025 -> 1325 faults).
  ProcessResult compare = run_cli({"compare", "quickstart/20261201T000000Z",
                                   "results/quickstart/20261203T000000Z", "--server", url_},
                                  b, dir_ / "cli.log");
  EXPECT_EQ(compare.exit_code, 0) << compare.output;
  EXPECT_NE(compare.output.find("faults"), std::string::npos) << compare.output;
  EXPECT_NE(compare.output.find("regressed"), std::string::npos) << compare.output;

  ProcessResult history = run_cli(
      {"history", "faults", "--server", url_, "--where", "knobs=64K mTHP"}, b, dir_ / "cli.log");
  EXPECT_EQ(history.exit_code, 0) << history.output;
  EXPECT_NE(history.output.find("1025"), std::string::npos) << history.output;
  // The gate's column: B's candidate failed on the 64K series.
  EXPECT_NE(history.output.find("gate"), std::string::npos) << history.output;
  EXPECT_NE(history.output.find("FAIL"), std::string::npos) << history.output;
}

// Two hosts (two cache folders), one server: host A runs the quickstart and shares its kernels
// (built or found in its cache); host B, with an empty cache, runs the same quickstart and
// builds no kernel: it fetches both from the server. Both sessions land on the server.
TEST_F(E2ELab, SecondHostRunsTheQuickstartBuildingNoKernel) {
  open(LabEngine::kSqlite);
  const fs::path token = dir_ / "token";
  ASSERT_TRUE(write_file_atomic(token, token_ + "\n").ok());
  fs::permissions(token, fs::perms::owner_read | fs::perms::owner_write);
  ProcessResult a = run_cli({"run", "experiments/quickstart.yaml", "--server", url_, "--token-file",
                             token.string(), "--results", (dir_ / "a-results").string()},
                            kSourceRoot, dir_ / "host-a.log");
  ASSERT_EQ(a.exit_code, 0) << tail_lines(dir_ / "host-a.log", 40);
  EXPECT_NE(a.output.find("pushed: "), std::string::npos) << a.output;
  const fs::path b_cache = dir_ / "b-cache";
  ProcessResult b = run_cli(
      {"run", "experiments/quickstart.yaml", "--server", url_, "--token-file", token.string(),
       "--cache", b_cache.string(), "--results", (dir_ / "b-results").string()},
      kSourceRoot, dir_ / "host-b.log");
  ASSERT_EQ(b.exit_code, 0) << tail_lines(dir_ / "host-b.log", 40);
  EXPECT_EQ(b.output.find("building kernel"), std::string::npos) << b.output;
  EXPECT_NE(b.output.find("from the lab server"), std::string::npos) << b.output;
  int kernels = 0;
  for (const auto& e : fs::directory_iterator(b_cache / "kernels")) {
    kernels += fs::exists(e.path() / "kernel.json");
  }
  EXPECT_EQ(kernels, 2);  // x86_64 and arm64
  EXPECT_EQ(count("SELECT COUNT(*) FROM sessions"), 2);
}

}  // namespace
}  // namespace foliolab
