#include "backend/knob_journal.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

const std::string kEnabled = "/sys/kernel/mm/transparent_hugepage/enabled";
const std::string k64k = "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled";
const std::string kScan = "/sys/kernel/mm/transparent_hugepage/khugepaged/pages_to_scan";
const std::string kOvercommit = "/proc/sys/vm/overcommit_memory";

// A fake sysfs/procfs tree: plain files holding what the kernel's files read as. (A real knob
// file shows "[choice]" after a write; a plain file shows what was written: both read back to
// the same knob_value.)
struct JournalHost {
  fs::path dir = fresh_test_dir("foliolab-journal");
  fs::path sys = dir / "root";
  fs::path state = dir / "state";
  JournalHost() {
    set(kEnabled, "always [madvise] never\n");
    set(k64k, "always inherit madvise [never]\n");
    set(kScan, "4096\n");
    set(kOvercommit, "0\n");
  }
  void set(const std::string& path, const std::string& text) const {
    ASSERT_TRUE(write_file_atomic(sys / fs::path(path).relative_path(), text).ok());
  }
  std::string value(const std::string& path) const {
    return knob_value(*read_file(sys / fs::path(path).relative_path()));
  }
};

TEST(KnobJournalTest, KnobValueIsTheBracketedChoiceOrTheTrimmedText) {
  EXPECT_EQ(knob_value("always [madvise] never\n"), "madvise");
  EXPECT_EQ(knob_value("always within_size advise [never] deny force"), "never");
  EXPECT_EQ(knob_value("  511\n"), "511");
  EXPECT_EQ(knob_value("4096\t87380\n"), "4096\t87380");
}

// util/text.h's trim: \v and \f are whitespace too (the journal's own trim dropped only
// space, tab, CR and LF).
TEST(KnobJournalTest, KnobValueTrimsAllAsciiWhitespace) {
  EXPECT_EQ(knob_value("\f511 \v\n"), "511");
}

TEST(KnobJournalTest, SaveWritesTheOldValuesAndRestorePutsThemBack) {
  JournalHost h;
  KnobJournal j(journal_path(h.state), h.sys);
  ASSERT_TRUE(j.save({kEnabled, k64k, kScan, kOvercommit}).ok());
  ASSERT_TRUE(j.pending());
  const std::string journal = *read_file(j.file());
  EXPECT_THAT(journal, HasSubstr("\"madvise\""));
  EXPECT_THAT(journal, HasSubstr(k64k));
  // What the agent would do on the host.
  h.set(kEnabled, "always");
  h.set(k64k, "always");
  h.set(kScan, "8");
  h.set(kOvercommit, "1");
  auto restored = j.restore();
  ASSERT_TRUE(restored.ok()) << restored.error().message;
  EXPECT_EQ(restored->size(), 4u);
  EXPECT_EQ(h.value(kEnabled), "madvise");
  EXPECT_EQ(h.value(k64k), "never");
  EXPECT_EQ(h.value(kScan), "4096");
  EXPECT_EQ(h.value(kOvercommit), "0");
  EXPECT_FALSE(j.pending());
}

TEST(KnobJournalTest, SaveRefusesWhileAJournalIsPendingAndWhenAKnobIsMissing) {
  JournalHost h;
  KnobJournal j(journal_path(h.state), h.sys);
  auto missing = j.save({kEnabled, "/sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled"});
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr("hugepages-16kB/enabled"));
  EXPECT_FALSE(j.pending());  // nothing was changed, nothing to restore
  ASSERT_TRUE(j.save({kEnabled}).ok());
  auto again = j.save({kEnabled});
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.error().message, HasSubstr("never restored"));
}

TEST(KnobJournalTest, AKnobThatCannotBeWrittenBackKeepsTheJournal) {
  JournalHost h;
  KnobJournal j(journal_path(h.state), h.sys);
  ASSERT_TRUE(j.save({kEnabled, kScan}).ok());
  h.set(kEnabled, "always");
  fs::remove(h.sys / fs::path(kScan).relative_path());  // the knob vanished (a directory now)
  fs::create_directories(h.sys / fs::path(kScan).relative_path());
  auto restored = j.restore();
  ASSERT_FALSE(restored.ok());
  EXPECT_THAT(restored.error().message, HasSubstr("pages_to_scan"));
  EXPECT_THAT(restored.error().message, HasSubstr("journal kept"));
  EXPECT_TRUE(j.pending());
  EXPECT_EQ(h.value(kEnabled), "madvise");  // the others were restored all the same
}

// A foliolab SIGKILLed between save and restore: its lock dies with it, its journal stays, and
// the next start restores and says so.
TEST(KnobJournalTest, RecoveryAfterAKilledHolderRestoresAndSaysSo) {
  JournalHost h;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = HostLock::acquire(h.state);
    KnobJournal j(journal_path(h.state), h.sys);
    if (!lock.ok() || !j.save({kEnabled, k64k}).ok()) ::_exit(1);
    h.set(kEnabled, "never");
    h.set(k64k, "always");
    ::kill(::getpid(), SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  ASSERT_EQ(h.value(kEnabled), "never");
  auto msg = recover_host_journal(h.state, h.sys);
  ASSERT_TRUE(msg.ok()) << msg.error().message;
  EXPECT_THAT(*msg, HasSubstr("restored 2 host knob(s)"));
  EXPECT_THAT(*msg, HasSubstr(std::to_string(child)));
  EXPECT_EQ(h.value(kEnabled), "madvise");
  EXPECT_EQ(h.value(k64k), "never");
  EXPECT_FALSE(fs::exists(journal_path(h.state)));
  auto nothing = recover_host_journal(h.state, h.sys);
  ASSERT_TRUE(nothing.ok());
  EXPECT_EQ(*nothing, "");
}

// A journal whose owner is alive is its owner's to restore.
TEST(KnobJournalTest, RecoveryLeavesALiveHoldersJournalAlone) {
  JournalHost h;
  auto lock = HostLock::acquire(h.state);
  ASSERT_TRUE(lock.ok());
  KnobJournal j(journal_path(h.state), h.sys);
  ASSERT_TRUE(j.save({kEnabled}).ok());
  h.set(kEnabled, "never");
  auto msg = recover_host_journal(h.state, h.sys);
  ASSERT_TRUE(msg.ok());
  EXPECT_EQ(*msg, "");
  EXPECT_EQ(h.value(kEnabled), "never");
  auto second = HostLock::acquire(h.state);
  ASSERT_FALSE(second.ok());
  EXPECT_THAT(second.error().message, HasSubstr(fmt::format("pid {}", ::getpid())));
  ASSERT_TRUE(j.restore().ok());
}

}  // namespace
}  // namespace foliolab
