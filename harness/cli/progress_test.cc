#include "cli/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace foliolab::cli {
namespace {

// The renderers write to a FILE*; a memory stream captures exactly what a CI log would get.
struct Capture {
  char* buf = nullptr;
  size_t len = 0;
  std::FILE* f = open_memstream(&buf, &len);
  std::string text() {
    std::fflush(f);
    return std::string(buf, len);
  }
  ~Capture() {
    std::fclose(f);
    std::free(buf);
  }
};

TEST(LineStatus, OneLinePerEventWithProgressCounts) {
  Capture c;
  LineStatus s(c.f, Verbosity::kNormal);
  s.planned(3, 1);
  s.note("accel x86_64: tcg (auto: /dev/kvm: No such file or directory)");
  s.run_started("x86_64.k.a.fault.1");
  s.run_finished("x86_64.k.a.fault.1", true, "ok (1.2s, tcg)");
  s.run_finished("x86_64.k.b.fault.2", false, "timed-out: guest did not finish within 20s");
  EXPECT_EQ(c.text(),
            "1 of 3 runs kept from before\n"
            "accel x86_64: tcg (auto: /dev/kvm: No such file or directory)\n"
            "  [2/3] x86_64.k.a.fault.1: ok (1.2s, tcg)\n"
            "  [3/3] x86_64.k.b.fault.2: timed-out: guest did not finish within 20s\n");
}

TEST(LineStatus, QuietKeepsOnlyFailuresAndWarnings) {
  Capture c;
  LineStatus s(c.f, Verbosity::kQuiet);
  s.planned(2, 0);
  s.note("accel x86_64: tcg");
  s.note("warning: index not updated");
  s.run_finished("a", true, "ok");
  s.run_finished("b", false, "failed: panic");
  s.build_progress("building k x86_64", 120, "CC mm/huge_memory.o");
  EXPECT_EQ(c.text(), "warning: index not updated\n  [2/2] b: failed: panic\n");
}

TEST(LineStatus, KernelBuildSaysItIsAliveOnceAMinute) {
  Capture c;
  LineStatus s(c.f, Verbosity::kNormal);
  for (double t : {1.0, 30.0, 61.0, 62.0, 119.0, 121.0})
    s.build_progress("building k x86_64", t, "CC x.o");
  EXPECT_EQ(c.text(),
            "  building k x86_64: still running after 1:01\n  building k x86_64: still running "
            "after 2:01\n");
}

TEST(TerminalStatus, BlockShowsCountsRunningGuestsAndBuild) {
  Capture c;
  TerminalStatus s(c.f, Verbosity::kNormal);
  s.planned(4, 1);
  s.run_started("x86_64.k.a.fault.1");
  s.run_started("arm64.k.a.fault.2");
  s.run_finished("x86_64.k.a.fault.1", false, "failed: Kernel panic");
  const std::string block = s.block();
  EXPECT_EQ(block.substr(0, block.find(" · elapsed")), "[2/4] running 1 · failed 1");
  EXPECT_NE(block.find(" arm64.k.a.fault.2"), std::string::npos) << block;  // with its time so far
  EXPECT_EQ(block.find("x86_64.k.a.fault.1"), std::string::npos) << block;  // finished: not running
  s.build_progress("building k arm64", 75, "CC mm/memory.o");
  EXPECT_NE(s.block().find("\n  building k arm64 1:15 CC mm/memory.o"), std::string::npos)
      << s.block();
  // The failure scrolled above the block, which is redrawn in place (cursor up, clear).
  const std::string out = c.text();
  EXPECT_NE(out.find("  x86_64.k.a.fault.1: failed: Kernel panic\n"), std::string::npos);
  EXPECT_NE(out.find("\033[2F\033[J"), std::string::npos);
}

}  // namespace
}  // namespace foliolab::cli
