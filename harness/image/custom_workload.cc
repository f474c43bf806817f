#include "image/custom_workload.h"

#include <fmt/format.h>

#include <sstream>

#include "image/custom_workload_build.h"
#include "util/fs.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

std::string param(const WorkloadSpec& w, const std::string& key) {
  for (const auto& [k, v] : w.params) {
    if (k == key) return v;
  }
  return {};
}

}  // namespace

bool is_custom(const WorkloadSpec& w) { return w.name == kCustomWorkload; }

std::vector<std::string> split_args(const std::string& args) {
  std::istringstream in(args);
  std::vector<std::string> out;
  for (std::string tok; in >> tok;) out.push_back(tok);
  return out;
}

Result<void> check_elf_arch(const std::string& bytes, Arch arch, const std::string& what) {
  if (bytes.size() < 20 || bytes.compare(0, 4,
                                         "\x7f"
                                         "ELF") != 0) {
    return make_error(fmt::format("custom workload {}: not an ELF executable", what));
  }
  const unsigned machine =
      static_cast<unsigned char>(bytes[18]) | (static_cast<unsigned char>(bytes[19]) << 8);
  const unsigned want = arch_info(arch).elf_machine;
  if (machine != want) {
    return make_error(fmt::format(
        "custom workload {}: built for ELF machine {}, but the guest is {} (machine {})", what,
        machine, arch_info(arch).name, want));
  }
  return check_elf_static(bytes, what);
}

Result<void> check_elf_static(const std::string& bytes, const std::string& what) {
  auto u16 = [&](size_t at) {
    return static_cast<unsigned>(static_cast<unsigned char>(bytes[at]) |
                                 (static_cast<unsigned char>(bytes[at + 1]) << 8));
  };
  if (bytes.size() < 64 || bytes[4] != 2 || bytes[5] != 1) return {};  // ELF64 little-endian
  uint64_t phoff = 0;
  for (int i = 7; i >= 0; --i) phoff = (phoff << 8) | static_cast<unsigned char>(bytes[32 + i]);
  const unsigned entsize = u16(54), count = u16(56);
  for (unsigned i = 0; i < count && entsize >= 4; ++i) {
    const uint64_t at = phoff + static_cast<uint64_t>(i) * entsize;
    if (at + 4 > bytes.size()) break;
    if (u16(at) == 3 && u16(at + 2) == 0) {  // PT_INTERP
      return make_error(fmt::format(
          "custom workload {}: dynamically linked (it names an ELF interpreter); the guest has "
          "no shared libraries: link it -static",
          what));
    }
  }
  return {};
}

namespace {

// The binary from `program:`, `source:` or `build:` (exactly one).
Result<std::string> custom_binary(const CustomBuildContext& c, const WorkloadSpec& w,
                                  std::string* what) {
  std::vector<std::string> sources = w.sources;
  if (sources.empty() && !param(w, "source").empty()) sources = {param(w, "source")};
  std::string program = param(w, "program");
  const bool build = !w.build.command.empty();
  if (!sources.empty() + !program.empty() + build != 1) {
    return make_error(fmt::format(
        "workload {}: custom needs exactly one of params.source (C files), params.program (a "
        "static binary) and params.build (a build command)",
        w.label));
  }
  Result<fs::path> path = fs::path();
  if (!program.empty()) {
    for (size_t at; (at = program.find("{arch}")) != std::string::npos;) {
      program.replace(at, 6, arch_info(c.arch).name);
    }
    path = resolve_spec_path(c.spec_dir, program);
    *what = path->string();
  } else if (build) {
    path = run_custom_build(c, w.build);
    *what = "build output " + w.build.output;
  } else {
    path = compile_custom_sources(c, sources);
    *what = join(sources, ", ");
  }
  FL_TRY(path);
  auto bytes = read_file(*path);
  if (!bytes.ok())
    return make_error(fmt::format("custom workload {}: {}", w.label, bytes.error().message));
  return std::move(*bytes);
}

}  // namespace

Result<std::vector<CpioEntry>> custom_workload_files(ProcessRunner& runner, const WorkloadSpec& w,
                                                     Arch arch, const fs::path& spec_dir,
                                                     const fs::path& cache) {
  if (!is_custom(w)) return std::vector<CpioEntry>{};
  std::string what;
  auto binary = custom_binary({runner, arch, spec_dir, cache, w.label}, w, &what);
  FL_TRY(binary);
  if (auto st = check_elf_arch(*binary, arch, what); !st.ok()) return st.error();
  return std::vector<CpioEntry>{
      {"job/bin", CpioEntry::Kind::kDir, 0755, {}, 0, 0},
      {"job/bin/custom", CpioEntry::Kind::kFile, 0755, std::move(*binary), 0, 0}};
}

}  // namespace foliolab
