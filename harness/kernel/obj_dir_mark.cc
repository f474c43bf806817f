#include "kernel/obj_dir_mark.h"

#include <fmt/format.h>

#include <system_error>
#include <vector>

#include "util/fs.h"
#include "util/fs_ops.h"

namespace foliolab {
namespace fs = std::filesystem;

Result<void> mark_obj_dir_building(const fs::path& obj) {
  return write_file_atomic(obj / kBuildingMark, "a build runs make here\n");
}

Result<void> unmark_obj_dir(const fs::path& obj) { return remove_tree(obj / kBuildingMark); }

Result<size_t> clean_interrupted_obj_dir(const fs::path& obj) {
  const fs::path mark = obj / kBuildingMark;
  std::error_code ec;
  const fs::file_time_type marked = fs::last_write_time(mark, ec);
  if (ec) return size_t{0};  // no mark: the last make here exited by itself
  // Strictly newer: make starts writing tens of milliseconds after the mark, and a file the
  // build before left in the same clock tick is whole.
  std::vector<fs::path> written;
  for (auto it = fs::recursive_directory_iterator(obj, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    // kbuild's `source` symlink is made once per directory, never half-written.
    if (it->is_symlink(ec) || it->is_directory(ec) || it->path() == mark) continue;
    const fs::file_time_type t = it->last_write_time(ec);
    if (!ec && t > marked) written.push_back(it->path());
  }
  if (ec) return make_env_error(fmt::format("cannot walk {}: {}", obj.string(), ec.message()));
  for (const fs::path& p : written) {
    if (!fs::remove(p, ec) && ec) {
      return make_env_error(fmt::format("cannot remove {}: {}", p.string(), ec.message()));
    }
  }
  FL_TRY(unmark_obj_dir(obj));
  return written.size();
}

}  // namespace foliolab
