#include "kernel/builder.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "kernel/git.h"
#include "kernel/series.h"
#include "kernel/tree_sync.h"
#include "kernel/source.h"
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

std::string series_digest(const std::optional<Series>& series) {
  Hasher h;
  if (series) {
    for (const auto& p : series->patches) h.add(p.name).add(p.text);
  }
  return h.hex();
}

// Restores the working tree to pristine + `series`. Files the previous series touched are
// restored and get a fresh mtime so that make rebuilds them in a reused O= directory.
Status reset_tree(ProcessRunner& runner, const fs::path& pristine, const fs::path& work,
                  const std::optional<Series>& series, const std::string& tree_key,
                  const std::string& source_label) {
  const fs::path tree = work / "tree";
  const fs::path state_file = work / "applied.json";
  json state;
  if (auto s = read_file(state_file); s.ok()) state = json::parse(*s, nullptr, false);
  const bool have_tree = fs::exists(tree / "Makefile") && state.is_object();
  if (have_tree && state.value("tree_key", "") == tree_key) return {};

  std::error_code ec;
  std::set<std::string> previously;
  if (have_tree) {
    for (const auto& f : state.value("files", std::vector<std::string>{})) previously.insert(f);
  } else {
    fs::remove_all(tree, ec);
    // Hard links are instant and patch replaces (never edits) the files it changes; a tree on
    // another filesystem gets a real copy.
    ProcessResult r = runner.run({.argv = {"cp", "-al", pristine.string(), tree.string()}, .capture = true});
    if (!r.ok()) {
      fs::remove_all(tree, ec);
      r = runner.run({.argv = {"cp", "-a", "--reflink=auto", pristine.string(), tree.string()}, .capture = true});
    }
    if (!r.ok()) return make_error("cannot copy the source tree: " + r.describe() + "\n" + r.output);
  }
  // Mark the tree unknown until the new series is fully applied.
  fs::remove(state_file, ec);
  for (const auto& rel : previously) {
    fs::remove(tree / rel, ec);
    if (fs::exists(pristine / rel)) {
      // A real copy (not a link): its mtime is now, and the pristine inode stays untouched.
      fs::copy_file(pristine / rel, tree / rel, ec);
      if (ec) return make_error(fmt::format("cannot restore {}: {}", rel, ec.message()));
    }
  }
  std::vector<std::string> touched(previously.begin(), previously.end());
  if (series) {
    if (auto st = apply_series(runner, tree, *series, source_label); !st.ok()) return st;
    for (const auto& p : series->patches) {
      for (auto& f : files_touched(p.text)) touched.push_back(f);
    }
  }
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  state = json{{"tree_key", tree_key}, {"files", touched}};
  return write_file_atomic(state_file, state.dump(2));
}

// Directory sources: the working tree mirrors the user's tree (only changed files copied, with a
// fresh mtime), then the series is applied. Patched files differ from the user's and are
// restored by the next sync.
Status sync_directory_tree(ProcessRunner& runner, const SourceInfo& src, const fs::path& work,
                           const std::optional<Series>& series, const std::string& source_label) {
  const fs::path tree = work / "tree";
  const fs::path state = work / "tree.index";
  fs::create_directories(tree);
  auto dst = scan_tree(tree, load_tree_index(state));
  if (!dst.ok()) return dst.error();
  std::error_code ec;
  fs::remove(state, ec);  // unknown until synced
  auto stats = sync_tree(src.location, *src.index, tree, dst->index);
  if (!stats.ok()) return stats.error();
  TreeIndex after = std::move(dst->index);
  for (const auto& rel : stats->changed) after.erase(rel);
  if (series) {
    if (auto st = apply_series(runner, tree, *series, source_label); !st.ok()) return st;
    for (const auto& p : series->patches) {
      for (const auto& f : files_touched(p.text)) after.erase(f);
    }
  }
  return save_tree_index(state, after);
}

// Git sources: one working tree per repository. Switching commits rewrites the files that differ
// between them plus those the previous series touched.
Status checkout_git_tree(ProcessRunner& runner, const SourceInfo& src, const fs::path& work,
                         const std::optional<Series>& series, const std::string& source_label) {
  const fs::path tree = work / "tree";
  const fs::path state_file = work / "checkout.json";
  GitRepo repo(runner, src.location);
  json state;
  if (auto s = read_file(state_file); s.ok()) state = json::parse(*s, nullptr, false);
  const bool have_tree = fs::exists(tree / "Makefile") && state.is_object() && state.contains("commit");
  std::error_code ec;
  fs::remove(state_file, ec);  // unknown until done
  if (!have_tree) {
    fs::remove_all(tree, ec);
    if (auto st = repo.extract(src.git_commit, {}, tree, work); !st.ok()) return st;
  } else {
    std::set<std::string> redo;
    for (const auto& f : state.value("files", std::vector<std::string>{})) redo.insert(f);
    const std::string old = state.value("commit", "");
    if (old != src.git_commit) {
      auto changed = repo.changed_paths(old, src.git_commit);
      if (!changed.ok()) return changed.error();
      redo.insert(changed->begin(), changed->end());
    }
    if (!redo.empty()) {
      auto files = repo.files_of(src.git_commit);
      if (!files.ok()) return files.error();
      const std::set<std::string> present(files->begin(), files->end());
      std::vector<std::string> fetch;
      for (const auto& rel : redo) {
        fs::remove(tree / rel, ec);
        if (present.count(rel)) fetch.push_back(rel);
      }
      if (!fetch.empty()) {
        if (auto st = repo.extract(src.git_commit, fetch, tree, work); !st.ok()) return st;
      }
    }
  }
  std::vector<std::string> touched;
  if (series) {
    if (auto st = apply_series(runner, tree, *series, source_label); !st.ok()) return st;
    for (const auto& p : series->patches) {
      for (auto& f : files_touched(p.text)) touched.push_back(f);
    }
  }
  return write_file_atomic(state_file, json{{"commit", src.git_commit}, {"files", touched}}.dump(2));
}

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
  auto source = identify_source(runner_, spec, opt_.spec_dir, opt_.cache);
  if (!source.ok()) return make_error(fmt::format("kernel {}: {}", spec.name, source.error().message));
  plan.source = *source;
  if (!spec.patches_range.empty()) {
    fs::path repo = plan.source.location;
    if (!spec.patches_repo.empty()) {
      repo = fs::path(spec.patches_repo).is_absolute() ? fs::path(spec.patches_repo) : opt_.spec_dir / spec.patches_repo;
    } else if (!spec.source_git) {
      return make_error(fmt::format("kernel {}: commit range '{}' needs a repository (`repo:` or a git source)",
                                    spec.name, spec.patches_range));
    }
    auto series = GitRepo(runner_, repo).commit_range(spec.patches_range, opt_.cache / "work" / plan.source.work_id / "ranges");
    if (!series.ok()) return make_error(fmt::format("kernel {}: {}", spec.name, series.error().message));
    plan.series = std::move(*series);
  } else if (!spec.patches.empty()) {
    auto series = load_series(opt_.project_root / "patches" / spec.patches);
    if (!series.ok()) return series.error();
    plan.series = std::move(*series);
  }
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
  plan.tree_key = Hasher().add(plan.source.id).add(series_digest(plan.series)).hex();
  plan.key = Hasher().add(plan.config_key).add(plan.tree_key).hex();

  KernelArtifact art;
  art.build_id = plan.key.substr(0, 16);
  art.dir = opt_.cache / "kernels" / art.build_id;
  art.image = art.dir / fs::path(ai.image_path).filename();
  art.dotconfig = art.dir / "config";
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
  Status prepared;
  switch (plan.source.kind) {
    case SourceKind::kTarball:
      prepared = reset_tree(runner_, *pristine, work, plan.series, plan.tree_key, plan.source.label);
      break;
    case SourceKind::kDirectory:
      prepared = sync_directory_tree(runner_, plan.source, work, plan.series, plan.source.label);
      break;
    case SourceKind::kGit:
      prepared = checkout_git_tree(runner_, plan.source, work, plan.series, plan.source.label);
      break;
  }
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
