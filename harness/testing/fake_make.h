// Test helper: a ProcessRunner that fakes `make` and `<compiler> --version` (tuxmake's trick) and
// runs everything else (patch, cp, git, tar) for real.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/fs.h"
#include "util/process.h"

namespace foliolab {

class FakeMake : public ProcessRunner {
 public:
  ProcessResult run(const ProcessSpec& spec) override {
    const auto& a = spec.argv;
    ProcessResult r;
    if (a[0].ends_with("gcc") && a.size() == 2) {
      r.exit_code = 0;
      r.output = "gcc (Fake) 12.2.0\n";
      return r;
    }
    if (a[0] != "make") return real_.run(spec);
    calls.push_back(a.back());
    std::filesystem::path obj;
    for (const auto& arg : a) {
      if (arg.rfind("O=", 0) == 0) obj = arg.substr(2);
    }
    objdirs.push_back(obj);
    r.exit_code = 0;
    if (a.back() == "tinyconfig") {
      (void)write_file_atomic(obj / ".config", "CONFIG_64BIT=y\n# CONFIG_NUMA is not set\n");
    } else if (a.back() == "olddefconfig") {
      // Drops an option whose dependencies are unmet, as kconfig would.
      auto cfg = read_file(obj / ".config");
      std::string out;
      for (size_t pos = 0, nl; pos < cfg->size(); pos = nl + 1) {
        nl = cfg->find('\n', pos);
        std::string line = cfg->substr(pos, nl - pos);
        if (line != "CONFIG_NUMA_EMU=y") out += line + "\n";
      }
      (void)write_file_atomic(obj / ".config", out);
    } else {
      (void)write_file_atomic(obj / "arch/x86/boot/bzImage", "kernel");
      (void)write_file_atomic(obj / "vmlinux", "elf with a PVH note");
    }
    return r;
  }
  std::vector<std::string> calls;
  std::vector<std::filesystem::path> objdirs;  // O= of each make call
  RealProcessRunner real_;
};

}  // namespace foliolab
