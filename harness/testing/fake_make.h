// Test helper: a FakeProcessRunner that plays kbuild's `make` and `<compiler> --version`
// (tuxmake's trick); everything else (patch, cp, git, tar) runs for real. tinyconfig writes a
// small .config, olddefconfig drops an option whose dependencies are unmet, vmlinux writes
// vmlinux and any other target writes bzImage and vmlinux.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "testing/fake_process_runner.h"

namespace foliolab {

class FakeMake : public FakeProcessRunner {
 public:
  FakeMake();
  std::vector<std::string> calls;              // the target of each make call
  std::vector<std::filesystem::path> objdirs;  // O= of each make call
  // A make of this target is killed (signal 9) after writing a truncated .cmd file,
  // kernel/time/.tick-sched.o.cmd, in O=.
  std::string killed_target;
};

}  // namespace foliolab
