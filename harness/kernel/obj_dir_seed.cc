#include "kernel/obj_dir_seed.h"

#include <fmt/format.h>

#include <boost/algorithm/string/replace.hpp>
#include <system_error>
#include <vector>

#include "kernel/kconfig.h"
#include "kernel/obj_dir_mark.h"
#include "util/fs.h"
#include "util/fs_ops.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

// The O= directories beside `obj` of the same source and arch ("<source>-<arch>-" or
// ".foliolab-o-<arch>-", then kObjDirKeyDigits of the config key) that a build finished in.
std::vector<fs::path> built_siblings(const fs::path& obj) {
  std::vector<fs::path> out;
  const std::string name = obj.filename().string();
  if (name.size() <= kObjDirKeyDigits) return out;
  const std::string prefix = name.substr(0, name.size() - kObjDirKeyDigits);
  auto dirs = list_dir(obj.parent_path());
  if (!dirs.ok()) return out;
  for (const fs::path& d : *dirs) {
    const std::string n = d.filename().string();
    if (n == name || n.size() != name.size() || !n.starts_with(prefix) || !is_dir(d)) continue;
    // A sibling whose last build was interrupted may hold a half-written file.
    if (path_exists(d / kConfigStampFile) && path_exists(d / "vmlinux") &&
        !path_exists(d / kBuildingMark)) {
      out.push_back(d);
    }
  }
  return out;
}

// The fewest options apart; of those, the last built (its objects are the likeliest to match
// the working tree as it is now).
std::optional<ObjDirSeed> nearest_sibling(const fs::path& obj, const std::string& dotconfig) {
  std::optional<ObjDirSeed> nearest;
  fs::file_time_type best_built{};
  for (const fs::path& sibling : built_siblings(obj)) {
    auto theirs = read_file(sibling / ".config");
    if (!theirs.ok()) continue;
    const size_t d = config_distance(dotconfig, *theirs);
    if (d > kSeedMaxDistance) continue;
    std::error_code ec;
    const fs::file_time_type built = fs::last_write_time(sibling / "vmlinux", ec);
    if (!nearest || d < nearest->distance || (d == nearest->distance && built > best_built)) {
      nearest = ObjDirSeed{.from = sibling, .distance = d};
      best_built = built;
    }
  }
  return nearest;
}

// kbuild's .cmd files name what they build relative to O=, but the tools it builds on the way
// (objtool) record their absolute output paths. In a copy of `from` they are pointed at `obj`
// and keep their times: make then finds objtool's commands unchanged and does not rebuild it,
// nor every object objtool checked (on x86_64, all of them: 640 against 3 for a THP default).
Result<void> repoint_cmd_files(const fs::path& obj, const fs::path& from) {
  const std::string old_path = from.string(), new_path = obj.string();
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(obj, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(".") || !name.ends_with(".cmd") || !it->is_regular_file(ec)) continue;
    auto text = read_file(it->path());
    if (!text.ok() || text->find(old_path) == std::string::npos) continue;
    const fs::file_time_type mtime = fs::last_write_time(it->path(), ec);
    boost::algorithm::replace_all(*text, old_path, new_path);
    FL_TRY(write_file_atomic(it->path(), *text));
    fs::last_write_time(it->path(), mtime, ec);
  }
  if (ec) return make_env_error(fmt::format("cannot walk {}: {}", obj.string(), ec.message()));
  return {};
}

}  // namespace

Result<std::optional<ObjDirSeed>> seed_from_nearest_sibling(ProcessRunner& runner,
                                                            const fs::path& obj,
                                                            const std::string& dotconfig,
                                                            const std::string& label) {
  std::optional<ObjDirSeed> seed = nearest_sibling(obj, dotconfig);
  if (!seed) return seed;
  auto stamp = read_file(obj / kConfigStampFile);
  FL_TRY(stamp);
  ProcessResult r = runner.run(
      {.argv = {"cp", "-a", (seed->from / ".").string(), obj.string()}, .capture = true});
  if (!r.ok()) {
    return make_env_error(fmt::format("{}: cannot copy {} into {}: {}\n{}", label,
                                      seed->from.string(), obj.string(), r.describe(), r.output));
  }
  FL_TRY(repoint_cmd_files(obj, seed->from));
  FL_TRY(write_file_atomic(obj / ".config", dotconfig));
  FL_TRY(write_file_atomic(obj / kConfigStampFile, *stamp));
  return seed;
}

}  // namespace foliolab
