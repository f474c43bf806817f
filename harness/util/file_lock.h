// An advisory lock (flock) on a file, held for the object's lifetime.
#pragma once

#include <filesystem>

namespace foliolab {

// By default exclusive and blocking until acquired; shared locks mark things in use (a kernel a
// session boots), and a non-waiting lock that could not be taken reports !locked().
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

}  // namespace foliolab
