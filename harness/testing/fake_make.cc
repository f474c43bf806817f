#include "testing/fake_make.h"

#include "util/fs.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

// As kconfig would: drops an option whose dependencies are unmet.
void olddefconfig(const fs::path& obj) {
  auto cfg = read_file(obj / ".config");
  std::string out;
  for (size_t pos = 0, nl; pos < cfg->size(); pos = nl + 1) {
    nl = cfg->find('\n', pos);
    std::string line = cfg->substr(pos, nl - pos);
    if (line != "CONFIG_NUMA_EMU=y") out += line + "\n";
  }
  (void)write_file_atomic(obj / ".config", out);
}

}  // namespace

FakeMake::FakeMake() {
  on([](const std::vector<std::string>& a) { return a[0].ends_with("gcc") && a.size() == 2; },
     [](const ProcessSpec&) { return ok("gcc (Fake) 12.2.0\n"); });
  on(program("make"), [this](const ProcessSpec& spec) {
    const std::string target = spec.argv.back();
    const fs::path obj = arg_value(spec.argv, "O=");
    calls.push_back(target);
    objdirs.push_back(obj);
    if (target == killed_target) {
      (void)write_file_atomic(obj / "kernel/time/.tick-sched.o.cmd", "savedcmd_kernel/time/ti");
      ProcessResult killed;
      killed.signal = 9;
      return killed;
    }
    if (target == "tinyconfig") {
      (void)write_file_atomic(obj / ".config", "CONFIG_64BIT=y\n# CONFIG_NUMA is not set\n");
    } else if (target == "olddefconfig") {
      olddefconfig(obj);
    } else {
      if (target != "vmlinux") (void)write_file_atomic(obj / "arch/x86/boot/bzImage", "kernel");
      (void)write_file_atomic(obj / "vmlinux", "elf with a PVH note");
    }
    return ok();
  });
}

}  // namespace foliolab
