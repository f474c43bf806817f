#include "util/process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include <chrono>
#include <fstream>
#include <thread>

#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(Process, CapturesOutputAndExitStatusWithoutAShell) {
  RealProcessRunner r;
  // The argument holds shell syntax; passed as argv it stays literal.
  auto res = r.run({.argv = {"printf", "%s|", "a b", "$(echo no)"}, .capture = true});
  EXPECT_TRUE(res.ok()) << res.describe();
  EXPECT_EQ(res.output, "a b|$(echo no)|");
  auto fail = r.run({.argv = {"sh", "-c", "exit 3"}, .capture = true});
  EXPECT_EQ(fail.exit_code, 3);
  EXPECT_EQ(fail.describe(), "exit status 3");
}

TEST(Process, StdinIsNullUnlessASpecNamesAFile) {
  RealProcessRunner r;
  auto none = r.run({.argv = {"cat"}, .capture = true});
  EXPECT_TRUE(none.ok()) << none.describe();
  EXPECT_EQ(none.output, "");
  const fs::path file = fs::temp_directory_path() / ("foliolab-stdin-" + std::to_string(getpid()));
  ASSERT_TRUE(write_file_atomic(file, "from the file\n").ok());
  auto fed = r.run({.argv = {"cat"}, .stdin_path = file, .capture = true});
  fs::remove(file);
  EXPECT_TRUE(fed.ok()) << fed.describe();
  EXPECT_EQ(fed.output, "from the file\n");
}

// A descriptor the harness leaked (opened without O_CLOEXEC) does not reach a child: mmdebstrap's
// apt hooks write to the next free descriptor from dash, which refuses `>&11`.
TEST(Process, OnlyStdinStdoutAndStderrCrossExec) {
  const int leaked = ::dup2(::open("/dev/null", O_RDONLY), 57);
  ASSERT_EQ(leaked, 57);
  RealProcessRunner r;
  auto res = r.run({.argv = {"ls", "/proc/self/fd"}, .capture = true});
  ::close(leaked);
  ASSERT_TRUE(res.ok()) << res.describe();
  EXPECT_NE(res.output.find("2\n"), std::string::npos) << res.output;
  EXPECT_EQ(res.output.find("57"), std::string::npos) << res.output;
}

TEST(Process, MissingProgramIsASpawnError) {
  RealProcessRunner r;
  auto res = r.run({.argv = {"foliolab-no-such-program"}});
  EXPECT_FALSE(res.ok());
  EXPECT_NE(res.spawn_error.find("not found"), std::string::npos);
}

TEST(Process, DeadlineSendsTermThenKillToAChildThatIgnoresTerm) {
  RealProcessRunner r;
  const auto t0 = std::chrono::steady_clock::now();
  auto res = r.run({.argv = {"sh", "-c", "trap '' TERM; echo up; while :; do sleep 1; done"},
                    .capture = true,
                    .timeout = 300ms,
                    .kill_grace = 300ms});
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(res.timed_out);
  EXPECT_EQ(res.signal, SIGKILL);
  EXPECT_EQ(res.output, "up\n");  // output before the deadline is kept
  EXPECT_LT(took, 5s);
}

TEST(Process, AGrandchildHoldingThePipeDoesNotHoldTheRunOpen) {
  RealProcessRunner r;
  const fs::path pidfile =
      fs::temp_directory_path() / ("foliolab-grandchild-" + std::to_string(::getpid()));
  const auto t0 = std::chrono::steady_clock::now();
  auto res = r.run(
      {.argv = {"sh", "-c", "sleep 30 & echo $! > \"$0\"; echo parent done", pidfile.string()},
       .capture = true,
       .timeout = 20s});
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(res.ok()) << res.describe();
  EXPECT_LT(took, 5s);
  auto pid = read_file(pidfile);
  ASSERT_TRUE(pid.ok());
  // The process group is cleaned up: the sleeper is gone (or a zombie waiting for whoever
  // adopted it to reap it).
  const pid_t sleeper = std::stoi(*pid);
  for (int i = 0; i < 50 && process_alive(sleeper); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(process_alive(sleeper));
  fs::remove(pidfile);
}

// SIGKILL of foliolab cannot be caught, yet its child (PR_SET_PDEATHSIG) and the child's own
// children (the reaper kills the process group) must die with it.
TEST(Process, ChildAndGrandchildDieWhenTheHarnessIsKilled) {
  const fs::path pidfile =
      fs::temp_directory_path() / ("foliolab-orphans-" + std::to_string(::getpid()));
  fs::remove(pidfile);
  const pid_t harness = ::fork();
  ASSERT_GE(harness, 0);
  if (harness == 0) {
    RealProcessRunner r;
    // A "make" that starts a long "compiler" and waits for it.
    r.run({.argv = {"sh", "-c", "sleep 600 & echo $$ $! > \"$0.tmp\" && mv \"$0.tmp\" \"$0\"; wait",
                    pidfile.string()}});
    ::_exit(0);
  }
  pid_t child = 0, grandchild = 0;
  for (int i = 0; i < 3000 && child == 0; ++i) {  // until the shell wrote its pids (30 s at most)
    if (auto text = read_file(pidfile); text.ok())
      std::sscanf(text->c_str(), "%d %d", &child, &grandchild);
    if (child == 0) std::this_thread::sleep_for(10ms);
  }
  ASSERT_GT(child, 0);
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(process_alive(child));
  EXPECT_TRUE(process_alive(grandchild));
  ASSERT_EQ(::kill(harness, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(harness, &status, 0), harness);
  // Death is immediate; the bound only keeps a broken build from hanging the test.
  for (int i = 0; i < 3000 && (process_alive(child) || process_alive(grandchild)); ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(process_alive(child)) << "the harness's child outlived it";
  EXPECT_FALSE(process_alive(grandchild)) << "the child's own child outlived the harness";
  if (process_alive(grandchild)) ::kill(grandchild, SIGKILL);
  if (process_alive(child)) ::kill(child, SIGKILL);
  fs::remove(pidfile);
}

TEST(Process, LogFileGetsEverythingAndTailShowsTheEnd) {
  RealProcessRunner r;
  const fs::path log = fs::temp_directory_path() / ("foliolab-log-" + std::to_string(::getpid()));
  fs::remove(log);
  auto res = r.run({.argv = {"sh", "-c", "for i in 1 2 3 4 5; do echo line$i; done; echo err >&2"},
                    .log_path = log});
  EXPECT_TRUE(res.ok());
  EXPECT_EQ(tail_lines(log, 2), "line5\nerr\n");
  fs::remove(log);
}

TEST(Process, FormatArgvQuotesForHumans) {
  EXPECT_EQ(format_argv({"qemu", "-append", "console=ttyS0 panic=-1", "it's"}),
            "qemu -append 'console=ttyS0 panic=-1' 'it'\\''s'");
}

}  // namespace
}  // namespace foliolab
