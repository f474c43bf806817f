// The host backend's restore journal: every THP knob and sysctl a host run will write, with the
// value it had, saved to disk (fsync'd) before anything changes, and written back afterwards.
// A foliolab killed mid-run (SIGKILL, power loss) leaves the journal behind, and the next start
// restores from it. One lock file keeps two foliolab processes off the host's knobs at once;
// the kernel drops it when its holder dies, so a stale journal is one whose lock is free.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/result.h"

namespace foliolab {

struct JournalEntry {
  std::string path;   // as on the host: "/sys/kernel/mm/transparent_hugepage/enabled"
  std::string value;  // what to write back: "madvise" (the bracketed choice), "511"
};

// "always [madvise] never" -> "madvise"; content without brackets comes back trimmed.
std::string knob_value(const std::string& raw);

class KnobJournal {
 public:
  // `file`: the journal on disk. `sys_root`: prefix of every knob path ("/" on a real host; a
  // fake tree in tests).
  KnobJournal(std::filesystem::path file, std::filesystem::path sys_root = "/");
  // Reads each path's current value and writes the journal durably. Refuses while a journal is
  // pending (its knobs were never restored) or when a path cannot be read.
  Result<void> save(const std::vector<std::string>& paths);
  // Writes every saved value back (last saved first) and removes the journal. A value that
  // cannot be written is an error naming it; the journal then stays for the next attempt.
  Result<std::vector<JournalEntry>> restore();
  bool pending() const;
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path host_path(const std::string& path) const;
  std::filesystem::path file_;
  std::filesystem::path root_;
};

// An exclusive flock on <dir>/host.lock, held for the lifetime of the object.
class HostLock {
 public:
  // Fails, naming the holder's pid, when another process holds it.
  static Result<HostLock> acquire(const std::filesystem::path& dir);
  HostLock(HostLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  HostLock& operator=(HostLock&&) = delete;
  ~HostLock();

 private:
  explicit HostLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// The journal file in a host state directory (<cache>/host).
std::filesystem::path journal_path(const std::filesystem::path& state_dir);

// At start: when a journal is left in `state_dir` and no live process holds the lock, restores
// it and says what it did ("restored 3 host knob(s) ..."); "" when there was nothing to do.
Result<std::string> recover_host_journal(const std::filesystem::path& state_dir,
                                         const std::filesystem::path& sys_root = "/");

}  // namespace foliolab
