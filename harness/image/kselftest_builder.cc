#include "image/kselftest_builder.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "catalog/kselftest_catalog.h"
#include "image/custom_workload.h"
#include "kernel/kbuild.h"
#include "kernel/tree.h"
#include "util/file_lock.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Bump when the way the programs are built changes what they are.
constexpr const char* kRecipe = "foliolab-kselftest-1";
const std::vector<std::string> kKselftestCflags = {"-static", "-Wall", "-O2", "-U_FORTIFY_SOURCE"};
const std::vector<std::string> kLibs = {"-lrt", "-lpthread", "-lm"};

std::string first_lines(const std::string& text, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < n && at != std::string::npos; ++i) {
    at = text.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  return text.substr(0, at == std::string::npos ? text.size() : at);
}

// The cache key of one build: the recipe, the tree, the arch, the compiler and every program's
// sources and flags.
std::string recipe_key(const std::string& tree_key, std::string_view arch,
                       const std::string& compiler) {
  Hasher h;
  h.add(kRecipe).add(tree_key).add(arch).add(compiler);
  for (const auto& f : kKselftestCflags) h.add(f);
  for (const auto& f : kLibs) h.add(f);
  for (const auto& p : kselftest_programs()) {
    h.add(p.dir).add(p.name);
    for (const auto& helper : p.helpers) h.add(helper);
    for (const auto& flag : p.cflags) h.add(flag);
  }
  return h.hex().substr(0, 16);
}

// A published build in build.dir: its manifest's `missing` into build; false when there is none.
bool load_cached(KselftestBuild& build) {
  auto text = read_file(build.dir / "manifest.json");
  if (!text.ok()) return false;
  const json j = json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("missing") || !j["missing"].is_object()) return false;
  for (const auto& [name, why] : j["missing"].items())
    build.missing[name] = why.is_string() ? why.get<std::string>() : "";
  build.cache_hit = true;
  return true;
}

std::string manifest_json(const KselftestBuild& build, const std::string& tree_key,
                          std::string_view arch, const std::string& compiler) {
  json missing = json::object();
  for (const auto& [name, why] : build.missing) missing[name] = why;
  const json j = {{"schema", 1},
                  {"tree_key", tree_key},
                  {"arch", arch},
                  {"compiler", compiler},
                  {"missing", missing}};
  return j.dump(2);
}

}  // namespace

std::vector<std::string> kselftest_compile_argv(const std::string& cc, const fs::path& tree,
                                                const fs::path& uapi, const fs::path& gen,
                                                const std::string& dir, const std::string& program,
                                                const std::vector<std::string>& helpers,
                                                const fs::path& out) {
  const fs::path mm = tree / dir;
  std::vector<std::string> argv = {cc};
  argv.insert(argv.end(), kKselftestCflags.begin(), kKselftestCflags.end());
  argv.insert(argv.end(),
              {"-I", gen.string(), "-I", tree.string(), "-isystem", (uapi / "include").string(),
               "-isystem", (tree / "tools/include/uapi").string()});
  argv.push_back((mm / (program + ".c")).string());
  for (const auto& h : helpers) argv.push_back((mm / h).string());
  argv.insert(argv.end(), kLibs.begin(), kLibs.end());
  argv.insert(argv.end(), {"-o", out.string()});
  return argv;
}

KselftestBuilder::KselftestBuilder(ProcessRunner& runner, KselftestBuildOptions options)
    : runner_(runner), opt_(std::move(options)) {}

Result<void> KselftestBuilder::compile_all(const fs::path& tree, Arch arch, const fs::path& out,
                                           KselftestBuild& build) {
  const ArchInfo& ai = arch_info(arch);
  const fs::path log = out / "build.log";
  // `make headers` (what headers_install copies, with rsync, which Debian lacks by default)
  // leaves the UAPI headers in <O=>/usr/include; it needs no .config, and O= keeps the tree clean.
  const fs::path uapi = out / "obj" / "usr";
  const std::vector<std::string> make = Kbuild(arch, tree, out / "obj").argv({"headers"});
  ProcessResult r = runner_.run({.argv = make, .log_path = log, .capture = true});
  if (!r.ok()) {
    return make_error(fmt::format("kselftest-mm ({}): `{}` failed ({}):\n{}", ai.name,
                                  format_argv(make), r.describe(), first_lines(r.output, 30)));
  }
  std::error_code ec;
  const fs::path gen = out / "gen";
  FL_TRY(make_dirs(gen));
  // The Makefile's check_config.sh writes this; foliolab links no liburing (cow's io_uring
  // tests are then compiled out, as on a host without liburing).
  if (auto st = write_file_atomic(gen / "local_config.h", "// No liburing support found\n");
      !st.ok())
    return st;
  for (const auto& p : kselftest_programs()) {
    const std::string name(p.name), dir(p.dir);
    if (!path_exists(tree / dir / (name + ".c"))) {
      auto version = tree_kernel_version(tree);
      build.missing[name] = fmt::format("{}/{}.c is not in this tree (Linux {})", dir, name,
                                        version.ok() ? *version : "?");
      continue;
    }
    std::vector<std::string> helpers(p.helpers.begin(), p.helpers.end());
    auto argv = kselftest_compile_argv(std::string(ai.guest_cc), tree, uapi, gen, dir, name,
                                       helpers, out / name);
    argv.insert(argv.begin() + 1, p.cflags.begin(), p.cflags.end());
    r = runner_.run({.argv = argv, .log_path = log, .capture = true});
    if (!r.ok()) {
      build.missing[name] = fmt::format("does not build for {} ({}): {}", ai.name, r.describe(),
                                        first_lines(r.output, 12));
    }
  }
  fs::remove_all(gen, ec);
  fs::remove_all(out / "obj", ec);
  return {};
}

Result<KselftestBuild> KselftestBuilder::build(const KernelSpec& kernel, Arch arch) {
  const ArchInfo& ai = arch_info(arch);
  auto tree = resolve_kernel_tree(runner_, kernel, SearchPath(opt_.project, opt_.data_root),
                                  opt_.spec_dir, opt_.cache);
  if (!tree.ok()) return tree.error();
  auto cc_version = compiler_version(runner_, std::string(ai.guest_cc));
  if (!cc_version.ok()) return cc_version.error();
  KselftestBuild build;
  build.dir = opt_.cache / "kselftest" / recipe_key(tree->tree_key, ai.name, *cc_version) / ai.name;
  if (load_cached(build)) return build;
  FL_TRY(make_dirs(build.dir.parent_path()));
  FileLock out_lock(build.dir.string() + ".lock");
  if (load_cached(build)) return build;

  auto pristine = prepare_pristine(runner_, tree->source, opt_.cache);
  if (!pristine.ok()) return pristine.error();
  // Our own checkout: the kernel builder's holds its lock for a whole kernel build.
  const fs::path work = opt_.cache / "work" / (tree->source.id + "-selftests");
  FileLock tree_lock(work.string() + ".lock");
  if (auto st = checkout_kernel_tree(runner_, *tree, *pristine, work); !st.ok()) {
    return in_context(fmt::format("kselftest-mm ({})", ai.name), st.error());
  }
  const fs::path staging = build.dir.string() + ".tmp";
  FL_TRY(remove_tree(staging));
  FL_TRY(make_dirs(staging));
  if (auto st = compile_all(work / "tree", arch, staging, build); !st.ok()) return st.error();
  if (auto st = write_file_atomic(staging / "manifest.json",
                                  manifest_json(build, tree->tree_key, ai.name, *cc_version));
      !st.ok())
    return st.error();
  FL_TRY(remove_tree(build.dir));
  if (auto st = rename_path(staging, build.dir); !st.ok()) {
    return in_context("cannot publish " + build.dir.string(), st.error());
  }
  return build;
}

Result<std::vector<CpioEntry>> KselftestBuilder::job_files(const WorkloadSpec& w,
                                                           const KernelSpec& kernel, Arch arch) {
  if (!runs_tree_programs(w)) return std::vector<CpioEntry>{};
  auto selection = tree_program_selection(w);
  if (!selection.ok())
    return make_error(fmt::format("workload {}: {}", w.label, selection.error().message));
  auto build = this->build(kernel, arch);
  if (!build.ok()) return build.error();
  std::vector<CpioEntry> out = {{"job/kselftest", CpioEntry::Kind::kDir, 0755, {}, 0, 0}};
  for (const auto& name : *selection) {
    if (auto it = build->missing.find(name); it != build->missing.end()) {
      return make_error(
          fmt::format("workload {}: {} {} is not available from kernel {}'s tree for {}: {}",
                      w.label, is_kselftest(w) ? "mm selftest" : "program", name, kernel.name,
                      arch_info(arch).name, it->second));
    }
    auto bytes = read_file(build->dir / name);
    if (!bytes.ok()) return bytes.error();
    if (auto st = check_elf_arch(*bytes, arch, (build->dir / name).string()); !st.ok())
      return st.error();
    std::string args;
    for (const auto& a : find_kselftest_program(name)->args) args += std::string(a) + "\n";
    out.push_back({"job/kselftest/" + name, CpioEntry::Kind::kFile, 0755, std::move(*bytes), 0, 0});
    out.push_back(
        {"job/kselftest/" + name + ".args", CpioEntry::Kind::kFile, 0644, std::move(args), 0, 0});
  }
  return out;
}

}  // namespace foliolab
