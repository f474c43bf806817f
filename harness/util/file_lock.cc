#include "util/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <system_error>

namespace foliolab {
namespace fs = std::filesystem;

FileLock::FileLock(const fs::path& lock_file, LockMode mode, bool wait) {
  std::error_code ec;
  fs::create_directories(lock_file.parent_path(), ec);
  fd_ = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  const int op = (mode == LockMode::kShared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB);
  if (fd_ >= 0 && ::flock(fd_, op) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace foliolab
