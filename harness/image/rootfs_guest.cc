// RootfsBuilder's second-stage way (image/second_stage.h): another arch's image with nothing of
// that arch run on the host. mmdebstrap's `extract` variant downloads and unpacks the packages
// (apt and dpkg-deb only, the host's own); the tree is packed with the .debs inside it, and a
// guest of the target arch boots on that disk and has dpkg install them, then runs the recipe's
// commands. The host then checks the file system (e2fsck) and reads dpkg's status out of it
// (debugfs): no loop device, no mount, as for the other ways.
#include <fmt/format.h>

#include <set>
#include <system_error>

#include "image/foreign_exec.h"
#include "image/rootfs_builder.h"
#include "image/second_stage.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

constexpr size_t kTail = 25;
// Room to install the packages on the disk: their unpacked size is about 3x the .debs'.
constexpr uint64_t kUnpackFactor = 3;

// The apt patterns mmdebstrap's variant (model/image_recipe.h's list) stands for beyond the
// essential set ("minbase": Priority required and apt), so the second stage installs what the
// other ways would.
std::vector<std::string> variant_patterns(const std::string& v) {
  if (v == "essential") return {};
  if (v == "apt") return {"apt"};
  if (v == "buildd") return {"?priority(required)", "apt", "build-essential"};
  if (v == "important") return {"?priority(required)", "?priority(important)", "apt"};
  if (v == "standard") {
    return {"?priority(required)", "?priority(important)", "?priority(standard)", "apt"};
  }
  return {"?priority(required)", "apt"};  // required, minbase
}

// The .deb files in `from` moved into `to`, except those named in `skip`; their bytes.
Result<uint64_t> move_debs(const fs::path& from, const fs::path& to,
                           const std::set<std::string>& skip, std::set<std::string>* moved) {
  FL_TRY(make_dirs(to));
  uint64_t bytes = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(from, ec)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".deb" || skip.count(name)) continue;
    bytes += e.file_size(ec);
    FL_TRY(rename_path(e.path(), to / name));
    if (moved) moved->insert(name);
  }
  if (ec) return make_env_error(fmt::format("reading {}: {}", from.string(), ec.message()));
  return bytes;
}

}  // namespace

// tmp/root: the essential set unpacked, every .deb under foliolab-stage2/{essential,rest}, the
// recipe's files, the script, a policy-rc.d. Returns the bytes of the .debs still to unpack.
Result<uint64_t> RootfsBuilder::unpack_for_guest(const ImageRecipe& r, Arch arch,
                                                 const fs::path& tmp) {
  const std::vector<std::string> patterns = variant_patterns(r.variant);
  const fs::path root = tmp / "root", log = tmp / "build.log", download = tmp / "download";
  const fs::path stage = root / kSecondStageDir;
  const std::string arch_opt = "--architectures=" + std::string(arch_info(arch).debian_arch);
  const std::vector<std::string> extract = {"mmdebstrap", "--mode=root", "--variant=extract",
                                            arch_opt, "--skip=cleanup/apt/cache"};
  std::vector<std::string> argv = extract;
  argv.insert(argv.end(), {"--include=?essential", r.suite, root.string()});
  FL_TRY(run_step(r, arch, "mmdebstrap (extract the essential set)", argv, log, false));
  std::set<std::string> essential;
  FL_TRY(move_debs(root / "var/cache/apt/archives", stage / "essential", {}, &essential));
  // Everything, downloaded into a tree of its own (unpacked there too, then thrown away).
  argv = extract;
  argv.push_back("--include=?essential");
  for (const std::string& p : patterns) argv.push_back("--include=" + p);
  if (!r.packages.empty()) argv.push_back("--include=" + join(r.packages, ","));
  argv.insert(argv.end(), {r.suite, download.string()});
  FL_TRY(run_step(r, arch, "mmdebstrap (download every package)", argv, log, false));
  auto rest = move_debs(download / "var/cache/apt/archives", stage / "rest", essential, nullptr);
  FL_TRY(rest);
  FL_TRY(remove_tree(download));
  FL_TRY(copy_files(r, root));
  FL_TRY(write_file_atomic(stage / "run", second_stage_script()));
  FL_TRY(write_file_atomic(root / "usr/sbin/policy-rc.d", "#!/bin/sh\nexit 101\n"));
  std::error_code ec;
  fs::permissions(root / "usr/sbin/policy-rc.d", fs::perms(0755), ec);
  if (ec) return make_env_error("chmod policy-rc.d: " + ec.message());
  return rest;
}

Result<std::string> RootfsBuilder::read_disk_status(const ImageRecipe& r, Arch arch,
                                                    const fs::path& tmp) {
  const fs::path disk = tmp / "disk.ext4", log = tmp / "build.log";
  const std::string where = fmt::format("image {} ({})", r.name, arch_info(arch).name);
  // e2fsck -fy: replays the journal the guest left and checks everything; 1 = fixed, fine.
  ProcessResult fsck = runner_.run(
      {.argv = {"e2fsck", "-f", "-y", disk.string()}, .log_path = log, .timeout = opt_.timeout});
  if (!fsck.spawn_error.empty() || fsck.signal || fsck.exit_code > 1) {
    return make_env_error(fmt::format("{}: e2fsck of the installed disk failed ({}): {}", where,
                                      fsck.describe(), tail_lines(log, kTail)));
  }
  ProcessResult cat =
      runner_.run({.argv = {"debugfs", "-R", "cat /var/lib/dpkg/status", disk.string()},
                   .capture = true,
                   .capture_limit = size_t(64) << 20,
                   .timeout = opt_.timeout});
  const size_t at = cat.output.find("Package: ");
  if (!cat.ok() || at == std::string::npos) {
    return make_env_error(fmt::format("{}: no dpkg status on the installed disk (debugfs: {}): {}",
                                      where, cat.describe(), cat.output.substr(0, 400)));
  }
  return cat.output.substr(at);
}

Result<std::string> RootfsBuilder::make_in_guest(const ImageRecipe& r, Arch arch,
                                                 const std::string& key, const fs::path& tmp,
                                                 uint64_t& mib) {
  const std::string where = fmt::format("image {} ({})", r.name, arch_info(arch).name);
  if (!opt_.second_stage) {
    return make_env_error(where + ": no guest for the second stage here (and " +
                          (host_binfmt_per_user_namespace()
                               ? "--foreign guest was asked for)"
                               : "this host kernel has no per-user-namespace binfmt_misc)"));
  }
  auto rest = unpack_for_guest(r, arch, tmp);
  FL_TRY(rest);
  auto packed = pack(r, arch, key, tmp, kUnpackFactor * *rest);
  FL_TRY(packed);
  mib = *packed;
  Result<void> st =
      opt_.second_stage->run(arch, tmp / "disk.ext4", second_stage_commands(r), tmp / "stage2");
  if (!st.ok()) {
    return in_context(fmt::format("{}: second stage in a {} guest", where, arch_info(arch).name),
                      st.error());
  }
  return read_disk_status(r, arch, tmp);
}

}  // namespace foliolab
