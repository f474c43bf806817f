#include "image/image_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "image/cpio.h"
#include "kernel/kbuild.h"
#include "util/file_lock.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"
#include "util/time_stamp.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

constexpr const char* kImageRecipe = "foliolab-image-1";
const std::vector<std::string> kGuestCflags = {"-static", "-O2",     "-g0",     "-std=gnu11",
                                               "-Wall",   "-Wextra", "-Werror", "-pthread"};

std::vector<fs::path> sorted_files(const fs::path& dir, const std::vector<std::string>& exts) {
  std::vector<fs::path> out;
  if (!is_dir(dir)) return out;
  auto files = list_dir(dir);
  if (!files.ok()) return out;
  for (const auto& f : *files) {
    std::error_code ec;
    if (!fs::is_regular_file(f, ec)) continue;
    if (std::find(exts.begin(), exts.end(), f.extension().string()) != exts.end()) out.push_back(f);
  }
  return out;
}

// A cached image is used as it is; its last use is stamped for `cache gc`.
bool use_cached(ImageArtifact& art, const fs::path& dir) {
  if (!path_exists(art.cpio)) return false;
  art.cache_hit = true;
  (void)write_file_atomic(dir / "last-used", utc_iso_now() + "\n");
  return true;
}

}  // namespace

ImageBuilder::ImageBuilder(ProcessRunner& runner, fs::path data_root, fs::path cache)
    : runner_(runner), root_(std::move(data_root)), cache_(std::move(cache)) {}

Result<std::string> ImageBuilder::compile(Arch arch, const std::vector<fs::path>& sources,
                                          const fs::path& out, const fs::path& log) {
  std::vector<std::string> argv = {std::string(arch_info(arch).guest_cc)};
  argv.insert(argv.end(), kGuestCflags.begin(), kGuestCflags.end());
  argv.push_back("-I" + (root_ / "workloads").string());
  for (const auto& s : sources) argv.push_back(s.string());
  argv.insert(argv.end(), {"-o", out.string()});
  ProcessResult r = runner_.run({.argv = argv, .log_path = log, .capture = true});
  if (!r.ok()) {
    return make_error(fmt::format("compiling {} for {} failed ({}):\n{}", out.filename().string(),
                                  arch_info(arch).name, r.describe(), r.output));
  }
  return read_file(out);
}

Result<ImageBuilder::Key> ImageBuilder::key(Arch arch) {
  const ArchInfo& ai = arch_info(arch);
  Key k{.agent_sources = sorted_files(root_ / "images" / "agent", {".c"}),
        .workload_sources = sorted_files(root_ / "workloads", {".c"})};
  auto agent_headers = sorted_files(root_ / "images" / "agent", {".h"});
  // The .def files too: each program includes its own as its argument table.
  auto workload_headers = sorted_files(root_ / "workloads", {".h", ".def"});
  if (k.agent_sources.empty())
    return make_error("no guest agent sources in " + (root_ / "images/agent").string());
  auto cc_version = compiler_version(runner_, std::string(ai.guest_cc));
  if (!cc_version.ok()) return cc_version.error();
  Hasher h;
  h.add(kImageRecipe).add(ai.name).add(*cc_version);
  for (const auto& f : kGuestCflags) h.add(f);
  for (const auto* group :
       {&k.agent_sources, &agent_headers, &k.workload_sources, &workload_headers}) {
    for (const auto& f : *group) h.add(f.filename().string()).add_file(f);
  }
  k.compiler = *cc_version;
  k.image_id = h.hex().substr(0, 16);
  k.dir = cache_ / "images" / fmt::format("{}-{}", ai.name, k.image_id);
  return k;
}

Result<ImageLookup> ImageBuilder::lookup(Arch arch) {
  auto k = key(arch);
  if (!k.ok()) return k.error();
  return ImageLookup{.image_id = k->image_id, .cached = path_exists(k->dir / "initramfs.cpio")};
}

Result<ImageArtifact> ImageBuilder::build(Arch arch) {
  auto k = key(arch);
  if (!k.ok()) return k.error();
  const auto& agent_sources = k->agent_sources;
  const auto& workload_sources = k->workload_sources;
  const fs::path dir = k->dir;
  ImageArtifact art;
  art.image_id = k->image_id;
  art.cpio = dir / "initramfs.cpio";
  art.hold = std::make_shared<FileLock>(dir.string() + ".use.lock", LockMode::kShared);
  for (const auto& w : workload_sources) art.workloads.push_back(w.stem().string());
  if (use_cached(art, dir)) return art;
  FileLock lock(dir.string() + ".lock");
  if (use_cached(art, dir)) return art;
  FL_TRY(make_dirs(dir));
  const fs::path log = dir / "build.log";
  std::vector<CpioEntry> entries = {
      {"dev", CpioEntry::Kind::kDir, 0755, {}, 0, 0},
      // The kernel opens /dev/console for init before anything mounts devtmpfs.
      {"dev/console", CpioEntry::Kind::kCharDev, 0600, {}, 5, 1},
      {"proc", CpioEntry::Kind::kDir, 0755, {}, 0, 0},
      {"sys", CpioEntry::Kind::kDir, 0755, {}, 0, 0},
      {"tmp", CpioEntry::Kind::kDir, 01777, {}, 0, 0},
      {"job", CpioEntry::Kind::kDir, 0755, {}, 0, 0},
      {"workloads", CpioEntry::Kind::kDir, 0755, {}, 0, 0},
  };
  auto agent = compile(arch, agent_sources, dir / "init", log);
  if (!agent.ok()) return agent.error();
  entries.push_back({"init", CpioEntry::Kind::kFile, 0755, std::move(*agent), 0, 0});
  for (const auto& w : workload_sources) {
    auto bin = compile(arch, {w}, dir / w.stem(), log);
    if (!bin.ok()) return bin.error();
    entries.push_back(
        {"workloads/" + w.stem().string(), CpioEntry::Kind::kFile, 0755, std::move(*bin), 0, 0});
  }
  auto cpio = write_cpio(entries);
  if (!cpio.ok()) return cpio.error();
  nlohmann::json manifest = {{"schema", 1},
                             {"image_id", art.image_id},
                             {"arch", arch_info(arch).name},
                             {"compiler", k->compiler},
                             {"workloads", art.workloads}};
  if (auto st = write_file_atomic(dir / "manifest.json", manifest.dump(2)); !st.ok())
    return st.error();
  if (auto st = write_file_atomic(art.cpio, *cpio); !st.ok()) return st.error();
  return art;
}

std::vector<CpioEntry> job_entries(const std::string& job_text,
                                   const std::vector<CpioEntry>& extra) {
  std::vector<CpioEntry> entries = {{"job", CpioEntry::Kind::kDir, 0755, {}, 0, 0},
                                    {"job/job.txt", CpioEntry::Kind::kFile, 0644, job_text, 0, 0}};
  entries.insert(entries.end(), extra.begin(), extra.end());
  return entries;
}

Result<void> write_run_initrd(const fs::path& base_cpio, const std::string& job_text,
                              const fs::path& out, const std::vector<CpioEntry>& extra) {
  auto base = read_file(base_cpio);
  if (!base.ok()) return base.error();
  auto job = write_cpio(job_entries(job_text, extra));
  if (!job.ok()) return job.error();
  std::string bytes = std::move(*base);
  bytes.resize((bytes.size() + 3) / 4 * 4, '\0');  // each archive starts 4-byte aligned
  bytes += *job;
  return write_file_atomic(out, bytes);
}

}  // namespace foliolab
