// One kbuild invocation's argv and environment, shared by the kernel builder and the kselftest
// builder: `make -C <tree> O=<objdir> ARCH=<arch> [CC=<cc>] [CROSS_COMPILE=<prefix>] <targets>`,
// the architecture's facts taken from ArchInfo only.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/arch.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

class Kbuild {
 public:
  Kbuild(Arch arch, std::filesystem::path tree, std::filesystem::path objdir);

  // Compile with the arch's kernel compiler (CC=), through ccache (its files in `ccache_dir`)
  // when `use_ccache`, in kbuild's reproducible-build environment stamped with `build_id`.
  Kbuild& with_compiler(bool use_ccache, const std::filesystem::path& ccache_dir,
                        const std::string& build_id);

  std::vector<std::string> argv(const std::vector<std::string>& targets) const;
  const std::map<std::string, std::string>& env() const { return env_; }
  bool ccache() const { return ccache_; }
  // What a human types in the tree to repeat the build of `targets` ("cd <tree> && make ...").
  std::string reproduce(const std::vector<std::string>& targets) const;

 private:
  const ArchInfo& arch_;
  std::filesystem::path tree_;
  std::filesystem::path objdir_;
  std::string cc_;  // "" : kbuild's own choice (make headers needs no compiler)
  bool ccache_ = false;
  std::map<std::string, std::string> env_;
};

// First line of `<compiler> --version`, or an error if the compiler is missing.
Result<std::string> compiler_version(ProcessRunner& runner, const std::string& compiler);

}  // namespace foliolab
