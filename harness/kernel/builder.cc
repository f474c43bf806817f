#include "kernel/builder.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "kernel/tree.h"
#include "kernel/tree_sync.h"
#include "util/fs.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Bump when the way kernels are built changes in a way that changes the result.
constexpr const char* kRecipeVersion = "foliolab-kbuild-1";

struct Plan {
  SourceInfo source;
  std::optional<Series> series;
  std::vector<ConfigRequest> requests;
  std::string compiler;
  std::string compiler_version;
  std::string key;       // full cache key
  std::string tree_key;  // what the working tree must hold (source + series bytes)
  std::string config_key;  // source + arch + requests
  std::string objdir_key;  // working tree + arch + requests: names the O= directory
};

std::string fmt_duration(double s) {
  int t = static_cast<int>(s);
  return t >= 60 ? fmt::format("{}m{:02}s", t / 60, t % 60) : fmt::format("{}s", t);
}

}  // namespace

std::string describe_kernel_source(const json& meta) {
  std::string out;
  if (auto src = meta.find("source"); src != meta.end() && src->is_object()) {
    out = src->value("describe", "");
    if (out.empty()) out = src->value("location", "");
  }
  const std::string series = meta.value("series", "");
  if (!series.empty()) out += (out.empty() ? "" : " + ") + std::string("patches ") + series;
  return out;
}

void touch_last_used(const fs::path& kernel_dir) {
  (void)write_file_atomic(kernel_dir / kLastUsedFile, utc_iso_now() + "\n");
}

Result<std::string> compiler_version(ProcessRunner& runner, const std::string& compiler) {
  ProcessResult r = runner.run({.argv = {compiler, "--version"}, .capture = true});
  if (!r.ok()) return make_error(fmt::format("compiler {} is not usable: {}", compiler, r.describe()));
  return r.output.substr(0, r.output.find('\n'));
}

KernelBuilder::KernelBuilder(ProcessRunner& runner, KernelBuildOptions options)
    : runner_(runner), opt_(std::move(options)) {
  if (opt_.jobs <= 0) opt_.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!opt_.log) opt_.log = [](const std::string&) {};
}

Result<std::vector<ConfigRequest>> KernelBuilder::config_requests(const KernelSpec& spec, Arch arch) const {
  std::vector<std::string> names = {"guest-base", std::string(arch_info(arch).config_fragment)};
  for (const auto& extra : spec.config) names.push_back(extra);
  std::vector<std::vector<ConfigRequest>> fragments;
  for (const auto& name : names) {
    const fs::path file = opt_.project_root / "kernel-config" / (name + ".config");
    auto text = read_file(file);
    if (!text.ok()) return make_error(fmt::format("kernel {}: config fragment '{}' not found ({})", spec.name, name, file.string()));
    auto parsed = parse_fragment(*text, name);
    if (!parsed.ok()) return parsed.error();
    fragments.push_back(std::move(*parsed));
  }
  std::vector<ConfigRequest> inline_opts;
  for (const auto& [k, v] : spec.options) inline_opts.push_back({k, v, "experiment options"});
  fragments.push_back(std::move(inline_opts));
  return merge_requests(fragments);
}

Result<KernelArtifact> KernelBuilder::build(const KernelSpec& spec, Arch arch) {
  const ArchInfo& ai = arch_info(arch);
  Plan plan;
  auto kt = resolve_kernel_tree(runner_, spec, opt_.project_root, opt_.spec_dir, opt_.cache);
  if (!kt.ok()) return kt.error();
  plan.source = kt->source;
  plan.series = kt->series;
  auto requests = config_requests(spec, arch);
  if (!requests.ok()) return requests.error();
  plan.requests = std::move(*requests);
  plan.compiler = std::string(ai.cross_prefix) + "gcc";
  auto cv = compiler_version(runner_, plan.compiler);
  if (!cv.ok()) return cv.error();
  plan.compiler_version = *cv;

  auto config_hash = [&](const std::string& source_name) {
    Hasher h;
    h.add(kRecipeVersion).add(source_name).add(ai.name).add(plan.compiler_version);
    for (const auto& r : plan.requests) h.add(r.option).add(r.value);
    return h.hex();
  };
  plan.config_key = config_hash(plan.source.id);
  // The O= directory belongs to the working tree (not to one content of it), so that an edited
  // directory source or another git ref rebuilds only what changed.
  plan.objdir_key = config_hash(plan.source.work_id);
  plan.tree_key = kt->tree_key;
  plan.key = Hasher().add(plan.config_key).add(plan.tree_key).hex();

  KernelArtifact art;
  art.build_id = plan.key.substr(0, 16);
  art.dir = opt_.cache / "kernels" / art.build_id;
  art.image = art.dir / fs::path(ai.image_path).filename();
  art.dotconfig = art.dir / "config";
  art.boot_image = art.image;
  // x86_64 kernels with a PVH entry point boot from vmlinux directly.
  const fs::path pvh_image = arch == Arch::kX86_64 ? art.dir / "vmlinux" : fs::path();
  if (!pvh_image.empty() && fs::exists(pvh_image)) art.boot_image = pvh_image;
  art.kernel_name = spec.name;
  art.arch = arch;
  const fs::path meta_file = art.dir / "kernel.json";
  art.hold = std::make_shared<FileLock>(art.dir.string() + ".lock", LockMode::kShared);
  auto load_hit = [&]() -> bool {
    auto meta = read_file(meta_file);
    if (!meta.ok() || !fs::exists(art.image)) return false;
    json j = json::parse(*meta, nullptr, false);
    if (!j.is_object()) return false;
    art.version = j.value("version", "");
    // Kernels cached before the Makefile parser was fixed say "6.12.117NAME = Baby Opossum Posse"
    // (an empty EXTRAVERSION ran on into the NAME line).
    if (auto bad = art.version.find("NAME ="); bad != std::string::npos) art.version.resize(bad);
    art.build_seconds = j.value("build_seconds", 0.0);
    art.boot_image = !pvh_image.empty() && fs::exists(pvh_image) ? pvh_image : art.image;
    art.source = describe_kernel_source(j);
    art.cache_hit = true;
    touch_last_used(art.dir);
    return true;
  };
  if (load_hit()) return art;

  auto pristine = prepare_pristine(runner_, plan.source, opt_.cache);
  if (!pristine.ok()) return pristine.error();
  const fs::path work = opt_.cache / "work" / plan.source.work_id;
  FileLock lock(work.string() + ".lock");
  if (load_hit()) return art;  // built by another foliolab while we waited
  fs::create_directories(work);
  touch_last_used(work);
  const Status prepared = checkout_kernel_tree(runner_, *kt, *pristine, work);
  if (!prepared.ok()) return make_error(fmt::format("kernel {} ({}): {}", spec.name, ai.name, prepared.error().message));
  const fs::path tree = work / "tree";
  // Directory and git sources: O= is a direct subfolder of the tree, so kbuild uses srctree=.. and
  // every path it hands the compiler is relative: ccache hits across working trees (a copy of a
  // tree, a git checkout of the same release) wherever the content matches. Tarball sources keep
  // their O= folders in <cache>/build (absolute paths), where their incremental state already is.
  const fs::path obj =
      plan.source.kind == SourceKind::kTarball
          ? opt_.cache / "build" / fmt::format("{}-{}-{}", plan.source.id, ai.name, plan.config_key.substr(0, 12))
          : tree / fmt::format("{}{}-{}", kBuildDirPrefix, ai.name, plan.objdir_key.substr(0, 12));
  fs::create_directories(obj);
  fs::create_directories(art.dir.parent_path());
  const fs::path staging = art.dir.string() + ".tmp";
  std::error_code ec;
  fs::remove_all(staging, ec);
  fs::create_directories(staging);
  const fs::path log = staging / "build.log";

  std::string cc = plan.compiler;
  const bool ccache = opt_.use_ccache && !find_program("ccache").empty();
  if (ccache) cc = "ccache " + cc;
  std::vector<std::string> make_base = {"make", "-C", tree.string(), "O=" + obj.string(),
                                        "ARCH=" + std::string(ai.kernel_arch), "CC=" + cc};
  if (!ai.cross_prefix.empty()) make_base.push_back("CROSS_COMPILE=" + std::string(ai.cross_prefix));
  std::map<std::string, std::string> env = {
      {"KBUILD_BUILD_USER", "foliolab"}, {"KBUILD_BUILD_HOST", "foliolab"},
      {"KBUILD_BUILD_TIMESTAMP", "foliolab-" + art.build_id},
      {"CCACHE_DIR", (opt_.cache / "ccache").string()}, {"CCACHE_MAXSIZE", "8G"},
      // Belt and braces for the relative paths above: nothing absolute under the tree and no
      // working directory in the hash.
      {"CCACHE_BASEDIR", tree.string()}, {"CCACHE_NOHASHDIR", "1"}};
  auto make = [&](std::vector<std::string> extra, const std::string& what) -> Status {
    std::vector<std::string> argv = make_base;
    argv.insert(argv.end(), extra.begin(), extra.end());
    std::string last_line;
    const bool tty = ::isatty(STDERR_FILENO);
    ProcessSpec ps{.argv = argv, .env = env, .log_path = log};
    ps.on_line = [&](std::string_view line) { last_line = std::string(line.substr(0, 60)); };
    ps.on_tick = [&](std::chrono::milliseconds t) {
      const double s = t.count() / 1000.0;
      if (opt_.progress) {
        opt_.progress(fmt::format("{} {} {}", what, spec.name, ai.name), s, last_line);
      } else if (tty) {
        fmt::print(stderr, "\r\033[K  {} {} {}: {} {}", what, spec.name, ai.name, fmt_duration(s), last_line);
      } else if (static_cast<int>(s) % 60 == 0 && s >= 60) {
        fmt::print(stderr, "  {} {} {}: still running after {}\n", what, spec.name, ai.name, fmt_duration(s));
      }
    };
    (void)write_file_atomic(staging / "last-command.txt", format_argv(argv) + "\n");
    ProcessResult r = runner_.run(ps);
    if (tty && !opt_.progress) fmt::print(stderr, "\r\033[K");
    if (!r.ok()) {
      return make_error(fmt::format("kernel {} ({}): `{}` failed ({}). Last lines of {}:\n{}",
                                    spec.name, ai.name, fmt::join(extra, " "), r.describe(), log.string(),
                                    tail_lines(log, 25)));
    }
    return {};
  };
  const auto t0 = std::chrono::steady_clock::now();
  opt_.log(fmt::format("building kernel {} for {} (build id {}, log {})", spec.name, ai.name, art.build_id,
                       log.string()));
  if (auto st = make({"tinyconfig"}, "configuring"); !st.ok()) return st.error();
  auto tiny = read_file(obj / ".config");
  if (!tiny.ok()) return tiny.error();
  if (auto st = write_file_atomic(obj / ".config", apply_requests(*tiny, plan.requests)); !st.ok()) return st.error();
  if (auto st = make({"olddefconfig"}, "configuring"); !st.ok()) return st.error();
  auto final_config = read_file(obj / ".config");
  if (!final_config.ok()) return final_config.error();
  if (auto bad = verify_config(plan.requests, *final_config); !bad.empty()) {
    return make_error(fmt::format(
        "kernel {} ({}): {} requested config option(s) did not survive olddefconfig (unmet dependencies?):\n{}",
        spec.name, ai.name, bad.size(), describe_mismatches(bad)));
  }
  if (auto st = make({fmt::format("-j{}", opt_.jobs), std::string(ai.image_target)}, "building"); !st.ok()) {
    return st.error();
  }
  art.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto version = tree_kernel_version(tree);
  art.version = version.ok() ? *version : "";
  fs::copy_file(obj / ai.image_path, staging / art.image.filename(), fs::copy_options::overwrite_existing, ec);
  if (ec) return make_error(fmt::format("cannot copy the kernel image: {}", ec.message()));
  fs::copy_file(obj / ".config", staging / "config", fs::copy_options::overwrite_existing, ec);
  if (!pvh_image.empty() && ("\n" + *final_config).find("\nCONFIG_PVH=y\n") != std::string::npos) {
    fs::copy_file(obj / "vmlinux", staging / "vmlinux", fs::copy_options::overwrite_existing, ec);
    if (ec) return make_error(fmt::format("cannot copy vmlinux (PVH boot image): {}", ec.message()));
    art.boot_image = pvh_image;
  }
  json meta = {
      {"schema", 1},
      {"build_id", art.build_id},
      {"cache_key", plan.key},
      {"kernel", spec.name},
      {"arch", ai.name},
      {"version", art.version},
      {"source", {{"id", plan.source.id},
                  {"location", plan.source.location.string()},
                  {"describe", plan.source.describe()},
                  {"git_ref", plan.source.git_ref},
                  {"git_commit", plan.source.git_commit},
                  {"git_dirty", plan.source.git_dirty},
                  {"work_id", plan.source.work_id}}},
      {"series", plan.series ? plan.series->name : ""},
      {"patches", json::array()},
      {"config_requests", json::array()},
      {"compiler", plan.compiler_version},
      {"ccache", ccache},
      {"build_seconds", art.build_seconds},
      {"reproduce", fmt::format("cd {} && {} {} -j{} {}", tree.string(), "make", fmt::join(std::vector<std::string>(make_base.begin() + 3, make_base.end()), " "), opt_.jobs, ai.image_target)},
  };
  if (plan.series) {
    for (const auto& p : plan.series->patches) meta["patches"].push_back({{"name", p.name}, {"sha256", sha256_hex(p.text)}});
  }
  for (const auto& r : plan.requests) meta["config_requests"].push_back(r.option + "=" + r.value + " (" + r.origin + ")");
  if (auto st = write_file_atomic(staging / "kernel.json", meta.dump(2)); !st.ok()) return st.error();
  fs::remove_all(art.dir, ec);
  fs::rename(staging, art.dir, ec);
  if (ec) return make_error(fmt::format("cannot publish {}: {}", art.dir.string(), ec.message()));
  art.source = describe_kernel_source(meta);
  touch_last_used(art.dir);
  opt_.log(fmt::format("built kernel {} for {} in {}", spec.name, ai.name, fmt_duration(art.build_seconds)));
  return art;
}

}  // namespace foliolab
