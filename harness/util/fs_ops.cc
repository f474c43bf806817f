#include "util/fs_ops.h"

#include <fmt/format.h>

#include <algorithm>

namespace foliolab {
namespace fs = std::filesystem;

namespace {

Result<void> failed(std::string_view what, const fs::path& p, const std::error_code& ec) {
  return make_env_error(fmt::format("cannot {} {}: {}", what, p.string(), ec.message()));
}

}  // namespace

Result<void> make_dirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return failed("create directory", dir, ec);
  return {};
}

Result<void> copy_file_over(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    return make_env_error(
        fmt::format("cannot copy {} to {}: {}", from.string(), to.string(), ec.message()));
  }
  return {};
}

Result<void> rename_path(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) {
    return make_env_error(
        fmt::format("cannot rename {} to {}: {}", from.string(), to.string(), ec.message()));
  }
  return {};
}

Result<void> remove_tree(const fs::path& p) {
  std::error_code ec;
  fs::remove_all(p, ec);
  if (ec) return failed("remove", p, ec);
  return {};
}

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

Result<std::vector<fs::path>> list_dir(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    out.push_back(it->path());
  }
  if (ec) return failed("list directory", dir, ec).error();
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace foliolab
