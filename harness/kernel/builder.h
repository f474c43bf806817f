// Kernel builds, cached by content. The cache key covers the source identity, every patch's
// bytes, every fragment's bytes, inline options, arch and compiler version, so a second request
// with nothing changed never invokes make.
//
// Speed: all builds of one source happen in one working tree at a fixed path
// (<cache>/work/<source>/tree, a hard-link copy of the pristine tree) with one O= directory per
// (source, arch, config). Switching patch series restores only the files the previous series
// touched and gives them a fresh mtime, so make rebuilds just what differs; ccache (keyed on the
// fixed path) covers the rest. Kernel paths end up in the objects (-fmacro-prefix-map), which is
// why a fixed tree path matters.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "kernel/kconfig.h"
#include "model/arch.h"
#include "model/experiment.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct KernelArtifact {
  std::string build_id;            // first 16 hex digits of the cache key
  std::filesystem::path dir;       // <cache>/kernels/<build_id>
  std::filesystem::path image;     // bzImage / Image
  // What QEMU boots: on x86_64 with CONFIG_PVH=y the kept vmlinux (PVH direct boot: no
  // decompressor, no real-mode setup; about half the time to the agent's hello under TCG),
  // else `image`. Kernels cached before vmlinux was kept boot their bzImage.
  std::filesystem::path boot_image;
  std::filesystem::path dotconfig;
  std::string version;             // "6.12.117"
  std::string kernel_name;         // KernelSpec::name
  Arch arch = Arch::kX86_64;
  bool cache_hit = false;
  double build_seconds = 0;
};

struct KernelBuildOptions {
  std::filesystem::path project_root;  // holds kernel-config/ and patches/
  std::filesystem::path spec_dir;      // relative source paths resolve here
  std::filesystem::path cache;         // cache root
  int jobs = 0;                        // 0: number of online CPUs
  bool use_ccache = true;
  std::function<void(const std::string&)> log;  // progress lines for humans
  // Called about once a second during make: what, seconds so far, make's last line. When set,
  // the builder prints nothing itself (the CLI's status display shows it).
  std::function<void(const std::string&, double, const std::string&)> progress;
};

class KernelBuilder {
 public:
  KernelBuilder(ProcessRunner& runner, KernelBuildOptions options);
  Result<KernelArtifact> build(const KernelSpec& spec, Arch arch);

  // The requests (fragments in order + inline options) that `spec` asks for on `arch`.
  Result<std::vector<ConfigRequest>> config_requests(const KernelSpec& spec, Arch arch) const;

 private:
  ProcessRunner& runner_;
  KernelBuildOptions opt_;
};

// First line of `<compiler> --version`, or an error if the compiler is missing.
Result<std::string> compiler_version(ProcessRunner& runner, const std::string& compiler);

}  // namespace foliolab
