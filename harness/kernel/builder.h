// Kernel builds, cached by content. The cache key covers the source identity, every patch's
// diff as applied (not its name or mail headers: a series as a quilt folder, format-patch files
// or an mbox is one kernel), every fragment's bytes, inline options, arch and compiler version,
// so a second request with nothing changed never invokes make.
//
// Speed: all builds of one source happen in one working tree at a fixed path
// (<cache>/work/<work id>/tree: a hard-link copy of a tarball's pristine tree, a synced copy of a
// user's directory, or a git checkout shared by all refs of a repository) with one O= directory
// per (tree, arch, config). Switching patch series, editing a directory source or switching git
// refs rewrites only the files that differ, with a fresh mtime, so make rebuilds just what
// differs; ccache covers the rest. Directory and git trees keep O= inside the tree (relative
// compiler paths, ccache shared between trees); tarball trees keep it in <cache>/build.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel/kconfig.h"
#include "model/arch.h"
#include "model/experiment.h"
#include "util/file_lock.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct KernelArtifact {
  std::string build_id;       // first 16 hex digits of the cache key
  std::filesystem::path dir;  // <cache>/kernels/<build_id>
  // The kernel's image file: bzImage / Image; for an x86_64 kernel with CONFIG_PVH=y built
  // since the bzImage went, vmlinux (the only image it keeps, see boot_image).
  std::filesystem::path image;
  // What QEMU boots: on x86_64 with CONFIG_PVH=y vmlinux (PVH direct boot: no decompressor, no
  // real-mode setup; the hello record comes about 1.4x sooner under TCG), else `image`. Kernels
  // cached before that keep bzImage and vmlinux; those cached before vmlinux was kept boot
  // their bzImage.
  std::filesystem::path boot_image;
  std::filesystem::path dotconfig;
  std::string version;      // "6.12.117"
  std::string kernel_name;  // KernelSpec::name
  // Where it came from, for run records and reports: "git /src/linux @ 1a2b3c4d5e6f (ref
  // my-branch) + patches v1..v2 (...)".
  std::string source;
  // A shared lock on <cache>/kernels/<build_id>.lock while any copy of the artifact lives:
  // `cache gc` does not remove a kernel a running foliolab holds.
  std::shared_ptr<FileLock> hold;
  Arch arch = Arch::kX86_64;
  bool cache_hit = false;
  double build_seconds = 0;
};

struct KernelBuildOptions {
  std::filesystem::path data_root;  // foliolab's data: holds kernel-config/ and patches/
  // The experiment's project (model/project.h): its kernel-config/ and patches/ come first.
  std::filesystem::path project;
  std::filesystem::path spec_dir;  // relative source paths resolve here
  std::filesystem::path cache;     // cache root
  int jobs = 0;                    // 0: number of online CPUs
  bool use_ccache = true;
  // The builder never prints: lines for humans go to `log`, and about once a second during make
  // `progress` gets what ("building k x86_64"), seconds so far and make's last line (the CLI
  // shows them; see runner/status.h). Either may be empty.
  std::function<void(const std::string&)> log;
  std::function<void(const std::string&, double, const std::string&)> progress;
  // A lab's shared kernels (`run --server`, wired by the CLI): asked for a kernel the cache
  // lacks before anything is unpacked or built (true: it wrote <cache>/kernels/<build id>
  // whole), and told of each kernel a run uses (to upload what the server lacks). Either may be
  // empty; a failure of either is logged and the build goes on as without them.
  std::function<Result<bool>(const std::string& build_id, const std::filesystem::path& dir)> fetch;
  std::function<Result<void>(const std::string& build_id, const std::filesystem::path& dir)> share;
};

// Whether a (kernel, arch) is in the cache (KernelBuilder::lookup).
struct KernelLookup {
  std::string build_id;
  bool cached = false;
};

// A kernel this cache holds, as its kernel.json says: what `plan` estimates new builds from.
struct PastKernelBuild {
  std::string arch;  // ArchInfo::name
  double build_seconds = 0;
  bool full_guest = false;  // built from guest-full (its config requests say so)
};

class KernelBuilder {
 public:
  KernelBuilder(ProcessRunner& runner, KernelBuildOptions options);
  Result<KernelArtifact> build(const KernelSpec& spec, Arch arch);
  // What build() would find: the cache key and whether the kernel is cached. Builds nothing,
  // changes no kernel in the cache (a directory or git source is hashed as build() would; a
  // commit range or an mbox is written out under the work folder, as build() reads it).
  Result<KernelLookup> lookup(const KernelSpec& spec, Arch arch);

  // The requests (fragments in order + inline options) that `spec` asks for on `arch`.
  Result<std::vector<ConfigRequest>> config_requests(const KernelSpec& spec, Arch arch) const;

 private:
  struct Plan;
  struct Job;
  // build() = plan -> (cache hit) -> configure -> (seed a new O= directory) -> kbuild -> publish.
  Result<Plan> plan(const KernelSpec& spec, Arch arch);
  std::optional<KernelArtifact> load_cached(const Plan& plan) const;
  // load_cached after the lab server's copy was fetched (KernelBuildOptions::fetch), if any.
  std::optional<KernelArtifact> fetched(const Plan& plan) const;
  // build() but for KernelBuildOptions::share.
  Result<KernelArtifact> find_or_build(const KernelSpec& spec, Arch arch);
  // KernelSpec::build_id: that build from the cache, or an error saying it is gone.
  Result<KernelArtifact> load_pinned(const KernelSpec& spec, Arch arch) const;
  Result<Job> start(const Plan& plan, const std::filesystem::path& pristine);
  Result<std::string> configure(const Plan& plan, const Job& job);  // the final .config
  Result<void> seed_obj_dir(const Plan& plan, const std::string& dotconfig);
  Result<void> kbuild(const Plan& plan, const Job& job, const std::string& target);
  Result<KernelArtifact> publish(const Plan& plan, const Job& job, const std::string& target);
  Result<void> make(const Plan& plan, const Job& job, const std::vector<std::string>& targets,
                    const std::string& what);
  ProcessRunner& runner_;
  KernelBuildOptions opt_;
};

// The kernel cached in `dir` as its files say (image, boot image, config), or nullopt when its
// kernel.json or image is missing; a kernel.json that cannot be read (damaged, a newer schema)
// is also a miss, its reason in `why`.
std::optional<KernelArtifact> load_kernel_artifact(const std::filesystem::path& dir, Arch arch,
                                                   std::string* why = nullptr);

// Every kernel of `cache` whose kernel.json reads, with how long its build took.
std::vector<PastKernelBuild> past_kernel_builds(const std::filesystem::path& cache);

// A build's duration as the builder's log lines say it: "7s", "12m03s".
std::string build_time_text(double seconds);

// A kernel folder's stamp of its last use (build or cache hit): cache gc evicts by it.
inline constexpr const char* kLastUsedFile = "last-used";
void touch_last_used(const std::filesystem::path& kernel_dir);

}  // namespace foliolab
