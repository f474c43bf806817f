#include "image/rootfs_builder.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <system_error>

#include "image/foreign_exec.h"
#include "image/second_stage.h"
#include "kernel/kbuild.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"
#include "util/text.h"
#include "util/time_stamp.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

constexpr const char* kRootfsRecipe = "foliolab-rootfs-1";
constexpr int kImageSchema = 1;
constexpr size_t kRootfsLogTail = 25;
// ext4's own metadata (inode tables, journal) and the rounding of small files to 4 KiB blocks.
constexpr double kExt4Overhead = 1.25;
constexpr uint64_t kExt4MinimumMib = 64;

std::string item_name(const ImageRecipe& r, Arch arch, const std::string& key) {
  return fmt::format("rootfs-{}-{}-{}", arch_info(arch).name, r.name, key);
}

fs::path recipe_dir(const ImageRecipe& r) {
  return fs::absolute(r.file).parent_path().lexically_normal();
}

fs::path file_source(const ImageRecipe& r, const ImageRecipe::File& f) {
  const fs::path from(f.from);
  return (from.is_absolute() ? from : recipe_dir(r) / from).lexically_normal();
}

// 8-4-4-4-12 hex digits from a hash: the file system's UUID, the same for the same key.
std::string uuid_from(const std::string& hex) {
  return fmt::format("{}-{}-{}-{}-{}", hex.substr(0, 8), hex.substr(8, 4), hex.substr(12, 4),
                     hex.substr(16, 4), hex.substr(20, 12));
}

// Bytes the files under `root` take on disk, each inode once.
uint64_t used_bytes(const fs::path& root) {
  uint64_t total = 0;
  std::set<std::pair<dev_t, ino_t>> seen;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0) continue;
    if (!seen.insert({st.st_dev, st.st_ino}).second) continue;
    total += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  return total;
}

// Reads a complete image's image.json into `art`; false for none, or a damaged one (rebuilt).
bool read_image(RootfsArtifact& art, const fs::path& dir) {
  auto text = read_file(dir / "image.json");
  if (!text.ok() || !path_exists(dir / "disk.ext4")) return false;
  try {
    const auto j = nlohmann::json::parse(*text);
    if (j.at("schema").get<int>() != kImageSchema) return false;
    art.image_id = j.at("image_id").get<std::string>();
    art.packages = j.at("manifest").size();
    art.build_seconds = j.value("build_seconds", 0.0);
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

bool use_cached(RootfsArtifact& art, const fs::path& dir) {
  if (!read_image(art, dir)) return false;
  art.disk = dir / "disk.ext4";
  art.cache_hit = true;
  (void)write_file_atomic(dir / "last-used", utc_iso_now() + "\n");
  return true;
}

// Whether `text` has `phrase` followed by the end of a word (so "stress" is not "stress-ngg").
bool says(const std::string& text, const std::string& phrase) {
  for (size_t at = text.find(phrase); at != std::string::npos; at = text.find(phrase, at + 1)) {
    const size_t end = at + phrase.size();
    if (end == text.size() || std::isspace(static_cast<unsigned char>(text[end]))) return true;
  }
  return false;
}

// The package a failed mmdebstrap could not find, as the recipe wrote it: apt says "Unable to
// locate package X", "Package 'X' has no installation candidate" or "Package X is not
// available".
std::optional<size_t> missing_package(const ImageRecipe& r, const std::string& log_tail) {
  for (size_t i = 0; i < r.packages.size(); ++i) {
    const std::string& p = r.packages[i];
    if (says(log_tail, "Unable to locate package " + p) ||
        log_tail.find("Package '" + p + "' has no installation candidate") != std::string::npos ||
        log_tail.find("Package " + p + " is not available") != std::string::npos) {
      return i;
    }
  }
  return std::nullopt;
}

}  // namespace

const char* way_name(RootfsBuilder::Way w) {
  switch (w) {
    case RootfsBuilder::Way::kNative:
      return "native";
    case RootfsBuilder::Way::kBinfmt:
      return "qemu-user in a private binfmt_misc";
    case RootfsBuilder::Way::kGuest:
      return "unpacked here, second stage in a guest";
  }
  return "?";
}

Manifest installed_packages(std::string_view status) {
  Manifest out;
  std::string package, version;
  bool installed = false;
  auto flush = [&] {
    if (installed && !package.empty()) out.emplace_back(package, version);
    package.clear();
    version.clear();
    installed = false;
  };
  for (std::string_view line : split_lines(status)) {
    if (line.empty()) {
      flush();
    } else if (line.starts_with("Package: ")) {
      package = std::string(trim(line.substr(9)));
    } else if (line.starts_with("Version: ")) {
      version = std::string(trim(line.substr(9)));
    } else if (line.starts_with("Status: ")) {
      installed = line.ends_with(" installed") && line.find("install ok") != std::string::npos;
    }
  }
  flush();
  std::sort(out.begin(), out.end());
  return out;
}

uint64_t rootfs_disk_mib(uint64_t used, uint64_t free_mib) {
  const uint64_t files_mib = static_cast<uint64_t>(static_cast<double>(used) * kExt4Overhead) >> 20;
  return std::max(kExt4MinimumMib, files_mib + free_mib + 1);
}

RootfsBuilder::RootfsBuilder(ProcessRunner& runner, RootfsBuildOptions options)
    : runner_(runner), opt_(std::move(options)) {}

Result<std::string> RootfsBuilder::key(const ImageRecipe& r, Arch arch) {
  auto mmdebstrap = compiler_version(runner_, "mmdebstrap");
  if (!mmdebstrap.ok()) {
    return make_env_error(
        "building Debian images needs mmdebstrap (Debian package mmdebstrap; scripts/setup.sh "
        "installs it): " +
        mmdebstrap.error().message);
  }
  Hasher h;
  h.add(kRootfsRecipe).add(arch_info(arch).name).add(*mmdebstrap);
  // The second stage's way makes another image (its own script, dpkg in a guest): another key.
  if (way(arch) == Way::kGuest) h.add("second stage in a guest").add(second_stage_script());
  auto text = read_file(r.file);
  if (!text.ok()) return make_env_error("cannot read " + r.file);
  h.add(*text);
  for (const ImageRecipe::File& f : r.files) {
    const fs::path from = file_source(r, f);
    if (!fs::is_regular_file(from)) {
      return make_error(fmt::format("{}: files: {}: no such file", f.loc.str(), from.string()));
    }
    h.add(f.to).add_file(from);
  }
  return h.hex().substr(0, 16);
}

Result<RootfsLookup> RootfsBuilder::lookup(const ImageRecipe& r, Arch arch) {
  auto k = key(r, arch);
  FL_TRY(k);
  RootfsArtifact seen;
  return RootfsLookup{.key = *k,
                      .cached = read_image(seen, opt_.cache / "images" / item_name(r, arch, *k))};
}

RootfsBuilder::Way RootfsBuilder::way(Arch arch) const {
  if (arch == host_arch()) return Way::kNative;
  switch (opt_.foreign) {
    case ForeignPath::kBinfmt:
      return Way::kBinfmt;
    case ForeignPath::kGuest:
      return Way::kGuest;
    case ForeignPath::kAuto:
      break;
  }
  return host_binfmt_per_user_namespace() ? Way::kBinfmt : Way::kGuest;
}

Result<void> RootfsBuilder::run_step(const ImageRecipe& r, Arch arch, const std::string& what,
                                     std::vector<std::string> argv, const fs::path& log,
                                     bool emulate) {
  if (emulate && arch != host_arch()) argv = foreign_exec_argv(opt_.self_exe, arch, argv);
  // In / with PWD=/: the host's working directory means nothing inside the chroot (the kernel's
  // build printed `cd: can't cd to /work/main` for each make with the host's PWD).
  ProcessResult res = runner_.run({.argv = argv,
                                   .cwd = "/",
                                   .env = {{"LC_ALL", "C.UTF-8"},
                                           {"PWD", "/"},
                                           {"DEBIAN_FRONTEND", "noninteractive"},
                                           {"PATH", "/usr/sbin:/usr/bin:/sbin:/bin"}},
                                   .log_path = log,
                                   .timeout = opt_.timeout});
  if (res.ok()) return {};
  const std::string tail = tail_lines(log, kRootfsLogTail);
  const std::string where = fmt::format("image {} ({})", r.name, arch_info(arch).name);
  if (auto i = missing_package(r, tail)) {
    return make_error(fmt::format("{}: packages[{}]: Debian {} has no package '{}' for {}",
                                  r.package_locs[*i].str(), *i, r.suite, r.packages[*i],
                                  arch_info(arch).debian_arch));
  }
  return make_env_error(fmt::format("{}: {} failed ({}); {} ends:\n{}", where, what, res.describe(),
                                    log.string(), tail));
}

Result<void> RootfsBuilder::copy_files(const ImageRecipe& r, const fs::path& root) {
  for (const ImageRecipe::File& f : r.files) {
    const fs::path to = root / fs::path(f.to).relative_path();
    FL_TRY(make_dirs(to.parent_path()));
    FL_TRY(copy_file_over(file_source(r, f), to));
  }
  return {};
}

// mmdebstrap into `root`, then the recipe's files and commands.
Result<void> RootfsBuilder::populate(const ImageRecipe& r, Arch arch, const fs::path& root,
                                     const fs::path& log) {
  const ArchInfo& a = arch_info(arch);
  FL_TRY(run_step(r, arch, "mmdebstrap",
                  {"mmdebstrap", "--mode=root", "--variant=" + r.variant,
                   "--architectures=" + std::string(a.debian_arch),
                   "--include=" + join(r.packages, ","), r.suite, root.string()},
                  log));
  FL_TRY(copy_files(r, root));
  for (size_t i = 0; i < r.commands.size(); ++i) {
    std::vector<std::string> argv = {"chroot", root.string()};
    argv.insert(argv.end(), r.commands[i].begin(), r.commands[i].end());
    FL_TRY(run_step(r, arch, fmt::format("commands[{}] `{}`", i, format_argv(r.commands[i])), argv,
                    log));
  }
  return {};
}

namespace {

// The image id: the recipe key and every installed package's version.
std::string image_id_of(const std::string& key, const Manifest& manifest) {
  Hasher id;
  id.add(key);
  for (const auto& [p, v] : manifest) id.add(p).add(v);
  return id.hex().substr(0, 16);
}

nlohmann::json image_meta(const ImageRecipe& r, Arch arch, const std::string& key,
                          const Manifest& manifest, uint64_t mib, const RootfsArtifact& art,
                          const char* made) {
  nlohmann::json pkgs = nlohmann::json::array();
  for (const auto& [p, v] : manifest) pkgs.push_back({{"package", p}, {"version", v}});
  return {{"schema", kImageSchema},
          {"kind", "rootfs"},
          {"recipe", r.name},
          {"recipe_key", key},
          {"image_id", art.image_id},
          {"arch", arch_info(arch).name},
          {"suite", r.suite},
          {"variant", r.variant},
          {"made", made},
          {"requested", r.packages},
          {"manifest", pkgs},
          {"disk_mib", mib},
          {"built", utc_iso_now()},
          {"build_seconds", art.build_seconds}};
}

}  // namespace

// tmp/root packed into tmp/disk.ext4 (the tree is removed either way): its size in MiB.
Result<uint64_t> RootfsBuilder::pack(const ImageRecipe& r, Arch arch, const std::string& key,
                                     const fs::path& tmp, uint64_t extra_bytes) {
  const fs::path root = tmp / "root", log = tmp / "build.log";
  const uint64_t mib = rootfs_disk_mib(used_bytes(root) + extra_bytes, r.free_mb);
  ProcessResult mkfs =
      runner_.run({.argv = {"mkfs.ext4", "-q", "-F", "-t", "ext4", "-L", "foliolab-root", "-U",
                            uuid_from(key + key), "-E", "root_owner=0:0", "-d", root.string(),
                            (tmp / "disk.ext4").string(), fmt::format("{}M", mib)},
                   .log_path = log,
                   .timeout = opt_.timeout});
  (void)remove_tree(root);
  if (mkfs.ok()) return mib;
  (void)remove_tree(tmp / "disk.ext4");
  return make_env_error(fmt::format("image {} ({}): mkfs.ext4 -d of {} MiB failed ({}): {}", r.name,
                                    arch_info(arch).name, mib, mkfs.describe(),
                                    tail_lines(log, kRootfsLogTail)));
}

// The recipe built in tmp (emptied first): the tree, its manifest, the disk and image.json.
Result<void> RootfsBuilder::make(const ImageRecipe& r, Arch arch, const std::string& key,
                                 const fs::path& tmp, RootfsArtifact& art) {
  const auto started = std::chrono::steady_clock::now();
  FL_TRY(remove_tree(tmp));
  FL_TRY(make_dirs(tmp));
  uint64_t mib = 0;
  auto status = way(arch) == Way::kGuest ? make_in_guest(r, arch, key, tmp, mib)
                                         : make_on_host(r, arch, key, tmp, mib);
  if (!status.ok()) {
    (void)remove_tree(tmp / "root");  // keep the log for a look, never the half-built tree
    (void)remove_tree(tmp / "disk.ext4");
    return status.error();
  }
  const Manifest manifest = installed_packages(*status);
  art.image_id = image_id_of(key, manifest);
  art.packages = manifest.size();
  art.build_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return write_file_atomic(
      tmp / "image.json",
      image_meta(r, arch, key, manifest, mib, art, way_name(way(arch))).dump(2));
}

Result<std::string> RootfsBuilder::make_on_host(const ImageRecipe& r, Arch arch,
                                                const std::string& key, const fs::path& tmp,
                                                uint64_t& mib) {
  const fs::path root = tmp / "root";
  FL_TRY(populate(r, arch, root, tmp / "build.log"));
  auto status = read_file(root / "var/lib/dpkg/status");
  if (!status.ok()) {
    return make_env_error(fmt::format("image {} ({}): mmdebstrap left no dpkg status: {}", r.name,
                                      arch_info(arch).name, status.error().message));
  }
  auto packed = pack(r, arch, key, tmp);
  FL_TRY(packed);
  mib = *packed;
  return status;
}

Result<RootfsArtifact> RootfsBuilder::build(const ImageRecipe& r, Arch arch) {
  auto k = key(r, arch);
  FL_TRY(k);
  const std::string name = item_name(r, arch, *k);
  const fs::path dir = opt_.cache / "images" / name;
  RootfsArtifact art{.recipe = r.name, .dir = dir};
  FL_TRY(make_dirs(opt_.cache / "images"));
  art.hold = std::make_shared<FileLock>(dir.string() + ".use.lock", LockMode::kShared);
  if (use_cached(art, dir)) return art;
  FileLock lock(dir.string() + ".lock");
  if (use_cached(art, dir)) return art;
  // Whatever an interrupted build left is never taken: make() starts from an empty tmp.
  const fs::path tmp = opt_.cache / "tmp" / name;
  FL_TRY(remove_tree(dir));
  FL_TRY(make(r, arch, *k, tmp, art));
  FL_TRY(rename_path(tmp, dir));
  art.disk = dir / "disk.ext4";
  (void)write_file_atomic(dir / "last-used", utc_iso_now() + "\n");
  return art;
}

}  // namespace foliolab
