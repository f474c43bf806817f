// File helpers: every stored file is written atomically (temp file, fsync, rename, fsync dir).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "util/result.h"

namespace foliolab {

Status write_file_atomic(const std::filesystem::path& path, std::string_view data);
Result<std::string> read_file(const std::filesystem::path& path);

// Cache root: $FOLIOLAB_CACHE, else $XDG_CACHE_HOME/foliolab, else ~/.cache/foliolab.
std::filesystem::path cache_root();

// An advisory lock (flock) held for the object's lifetime. By default exclusive and blocking
// until acquired; shared locks mark things in use (a kernel a session boots), and a non-waiting
// lock that could not be taken reports !locked().
enum class LockMode { kExclusive, kShared };
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& lock_file, LockMode mode = LockMode::kExclusive,
                    bool wait = true);
  ~FileLock();
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  bool locked() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// "what: strerror(errno)".
std::string fmt_errno(const std::string& what);

// UTC timestamp usable in a path: 20261130T051430Z.
std::string utc_stamp();
// UTC time in ISO 8601: 2026-11-30T05:14:30Z.
std::string utc_iso_now();

}  // namespace foliolab
