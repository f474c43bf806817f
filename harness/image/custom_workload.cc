#include "image/custom_workload.h"

#include <fmt/format.h>

#include <sstream>

#include "kernel/kbuild.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

std::string param(const WorkloadSpec& w, const std::string& key) {
  for (const auto& [k, v] : w.params) {
    if (k == key) return v;
  }
  return {};
}

fs::path resolve(const fs::path& spec_dir, const std::string& p) {
  return fs::path(p).is_absolute() ? fs::path(p) : spec_dir / p;
}

}  // namespace

bool is_custom(const WorkloadSpec& w) { return w.name == kCustomWorkload; }

std::vector<std::string> split_args(const std::string& args) {
  std::istringstream in(args);
  std::vector<std::string> out;
  for (std::string tok; in >> tok;) out.push_back(tok);
  return out;
}

Status check_elf_arch(const std::string& bytes, Arch arch, const std::string& what) {
  if (bytes.size() < 20 || bytes.compare(0, 4,
                                         "\x7f"
                                         "ELF") != 0) {
    return make_error(fmt::format("custom workload {}: not an ELF executable", what));
  }
  const unsigned machine =
      static_cast<unsigned char>(bytes[18]) | (static_cast<unsigned char>(bytes[19]) << 8);
  const unsigned want = arch == Arch::kX86_64 ? 62 : 183;  // EM_X86_64, EM_AARCH64
  if (machine != want) {
    return make_error(fmt::format(
        "custom workload {}: built for ELF machine {}, but the guest is {} (machine {})", what,
        machine, arch_info(arch).name, want));
  }
  return {};
}

Result<std::vector<CpioEntry>> custom_workload_files(ProcessRunner& runner, const WorkloadSpec& w,
                                                     Arch arch, const fs::path& spec_dir,
                                                     const fs::path& cache) {
  if (!is_custom(w)) return std::vector<CpioEntry>{};
  const std::string source = param(w, "source");
  std::string program = param(w, "program");
  if (source.empty() == program.empty()) {
    return make_error(
        fmt::format("workload {}: custom needs exactly one of params.source (a C file) and "
                    "params.program (a static binary)",
                    w.label));
  }
  std::string binary;
  std::string what;
  if (!program.empty()) {
    for (size_t at; (at = program.find("{arch}")) != std::string::npos;) {
      program.replace(at, 6, arch_info(arch).name);
    }
    what = resolve(spec_dir, program).string();
    auto bytes = read_file(what);
    if (!bytes.ok())
      return make_error(fmt::format("custom workload {}: {}", w.label, bytes.error().message));
    binary = std::move(*bytes);
  } else {
    const fs::path src = resolve(spec_dir, source);
    what = src.string();
    const std::string cc(arch_info(arch).guest_cc);
    auto version = compiler_version(runner, cc);
    if (!version.ok()) return version.error();
    Hasher h;
    h.add("custom-1").add(*version).add(arch_info(arch).name).add_file(src);
    const fs::path out = cache / "custom" / h.hex().substr(0, 16) / arch_info(arch).name;
    if (!path_exists(out)) {
      FL_TRY(make_dirs(out.parent_path()));
      ProcessResult r = runner.run({.argv = {cc, "-static", "-O2", "-Wall", "-pthread", "-o",
                                             out.string() + ".tmp", src.string()},
                                    .capture = true});
      if (!r.ok()) {
        return make_error(fmt::format("custom workload {}: compiling {} for {} failed ({}):\n{}",
                                      w.label, src.string(), arch_info(arch).name, r.describe(),
                                      r.output));
      }
      FL_TRY(rename_path(out.string() + ".tmp", out));
    }
    auto bytes = read_file(out);
    if (!bytes.ok()) return bytes.error();
    binary = std::move(*bytes);
  }
  if (auto st = check_elf_arch(binary, arch, what); !st.ok()) return st.error();
  return std::vector<CpioEntry>{
      {"job/bin", CpioEntry::Kind::kDir, 0755, {}, 0, 0},
      {"job/bin/custom", CpioEntry::Kind::kFile, 0755, std::move(binary), 0, 0}};
}

}  // namespace foliolab
