#include "kernel/kbuild.h"

#include <fmt/format.h>

namespace foliolab {
namespace fs = std::filesystem;

Kbuild::Kbuild(Arch arch, fs::path tree, fs::path objdir)
    : arch_(arch_info(arch)), tree_(std::move(tree)), objdir_(std::move(objdir)) {}

Kbuild& Kbuild::with_compiler(bool use_ccache, const fs::path& ccache_dir,
                              const std::string& build_id) {
  ccache_ = use_ccache;
  cc_ = (ccache_ ? "ccache " : "") + std::string(arch_.kernel_cc);
  env_ = {{"KBUILD_BUILD_USER", "foliolab"},
          {"KBUILD_BUILD_HOST", "foliolab"},
          {"KBUILD_BUILD_TIMESTAMP", "foliolab-" + build_id},
          {"CCACHE_DIR", ccache_dir.string()},
          {"CCACHE_MAXSIZE", "8G"},
          // Belt and braces for relative compiler paths: nothing absolute under the tree and no
          // working directory in the hash.
          {"CCACHE_BASEDIR", tree_.string()},
          {"CCACHE_NOHASHDIR", "1"},
          // A miss costs little: depend mode takes the headers from the compiler's own .d file
          // instead of running the preprocessor first; the inode cache hashes each header once
          // per build, not once per object; objects are stored as they are. A cold small arm64
          // kernel (-j2): 126 s by gcc alone, 188 s through plain ccache, 132.5 s so
          // (docs/kernels.md). The price: no preprocessed-output hits, so a kernel that differs
          // in an option recompiles what includes autoconf.h (nearly all of it for an mm option).
          {"CCACHE_DEPEND", "1"},
          {"CCACHE_INODECACHE", "1"},
          {"CCACHE_NOCOMPRESS", "1"}};
  return *this;
}

std::vector<std::string> Kbuild::argv(const std::vector<std::string>& targets) const {
  std::vector<std::string> out = {"make", "-C", tree_.string(), "O=" + objdir_.string(),
                                  "ARCH=" + std::string(arch_.kernel_arch)};
  if (!cc_.empty()) out.push_back("CC=" + cc_);
  if (!arch_.cross_prefix.empty())
    out.push_back("CROSS_COMPILE=" + std::string(arch_.cross_prefix));
  out.insert(out.end(), targets.begin(), targets.end());
  return out;
}

std::string Kbuild::reproduce(const std::vector<std::string>& targets) const {
  const std::vector<std::string> all = argv(targets);
  return fmt::format("cd {} && make {}", tree_.string(),
                     fmt::join(all.begin() + 3, all.end(), " "));
}

Result<std::string> compiler_version(ProcessRunner& runner, const std::string& compiler) {
  ProcessResult r = runner.run({.argv = {compiler, "--version"}, .capture = true});
  if (!r.ok()) {
    return make_env_error(fmt::format("compiler {} is not usable: {}", compiler, r.describe()));
  }
  return r.output.substr(0, r.output.find('\n'));
}

}  // namespace foliolab
