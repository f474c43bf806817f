#include "util/fs.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace foliolab {
namespace fs = std::filesystem;

Result<void> write_file_atomic(const fs::path& path, std::string_view data) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  // A name of this call's own: writers of one path in many threads (a server's concurrent
  // uploads) must not share a temporary file; the last rename wins, each file whole.
  static std::atomic<uint64_t> serial{0};
  const fs::path tmp =
      path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(++serial);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(fmt_errno("cannot create " + tmp.string()));
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      std::string msg = fmt_errno("cannot write " + tmp.string());
      ::close(fd);
      ::unlink(tmp.c_str());
      return make_error(msg);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return make_error(fmt_errno("cannot flush " + tmp.string()));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string msg = fmt_errno("cannot rename to " + path.string());
    ::unlink(tmp.c_str());
    return make_error(msg);
  }
  int dfd =
      ::open(path.has_parent_path() ? path.parent_path().c_str() : ".", O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

Result<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(fmt_errno("cannot read " + path.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string fmt_errno(const std::string& what) { return what + ": " + std::strerror(errno); }
}  // namespace foliolab
