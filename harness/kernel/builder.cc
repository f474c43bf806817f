#include "kernel/builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "kernel/guest_fragments.h"
#include "kernel/kbuild.h"
#include "kernel/kconfig.h"
#include "kernel/kernel_meta.h"
#include "kernel/obj_dir_mark.h"
#include "kernel/obj_dir_seed.h"
#include "kernel/tree.h"
#include "kernel/tree_sync.h"
#include "util/file_lock.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"
#include "util/text.h"
#include "util/time_stamp.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

// Part of every cache key and O= directory name: bump it when the same config and tree would
// build a different kernel. An x86_64 kernel with CONFIG_PVH=y keeps vmlinux only since the
// bzImage went (nothing boots it); kernels cached before keep bzImage and vmlinux and boot the
// same vmlinux, so they stay valid under the same key (load_kernel_artifact reads both).
constexpr const char* kObjdirRecipe = "foliolab-kbuild-1";

bool has_option(const std::string& dotconfig, std::string_view option) {
  if (option.empty()) return false;
  return ("\n" + dotconfig).find(fmt::format("\n{}=y\n", option)) != std::string::npos;
}

// How records name a tree: "<source> + patches <series> (cover: <subject>)".
std::string describe_tree(const KernelTree& tree) {
  KernelMeta m;
  m.source.describe = tree.source.describe();
  if (tree.series) {
    m.series = tree.series->name;
    if (tree.series->cover) m.cover_letter.subject = tree.series->cover->subject;
  }
  return m.describe_source();
}

}  // namespace

struct KernelBuilder::Plan {
  const KernelSpec* spec = nullptr;
  const ArchInfo* arch = nullptr;
  KernelTree tree;
  std::vector<ConfigRequest> requests;
  std::string compiler_version;
  std::string key;         // full cache key
  std::string config_key;  // source + arch + requests
  std::string build_id;    // first 16 hex digits of the key
  fs::path dir;            // <cache>/kernels/<build_id>
  fs::path work;           // <cache>/work/<work id>, holding tree/
  fs::path obj;            // the O= directory
  std::shared_ptr<FileLock> hold;
  std::string label() const { return fmt::format("kernel {} ({})", spec->name, arch->name); }
};

struct KernelBuilder::Job {
  Kbuild kbuild;
  fs::path staging;  // <dir>.tmp, renamed to <dir> when complete
  fs::path log;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double configure_seconds = 0;  // tinyconfig, the requests, olddefconfig (or the kept .config)
};

std::string build_time_text(double seconds) {
  const int t = static_cast<int>(seconds);
  return t >= 60 ? fmt::format("{}m{:02}s", t / 60, t % 60) : fmt::format("{}s", t);
}

void touch_last_used(const fs::path& kernel_dir) {
  (void)write_file_atomic(kernel_dir / kLastUsedFile, utc_iso_now() + "\n");
}

std::optional<KernelArtifact> load_kernel_artifact(const fs::path& dir, Arch arch,
                                                   std::string* why) {
  const ArchInfo& ai = arch_info(arch);
  const fs::path meta_file = dir / "kernel.json";
  if (!path_exists(meta_file)) return std::nullopt;
  auto meta = load_kernel_meta(meta_file);
  if (!meta.ok()) {
    if (why) *why = meta.error().message;
    return std::nullopt;
  }
  KernelArtifact art;
  art.dir = dir;
  art.build_id = dir.filename().string();
  art.arch = arch;
  art.dotconfig = dir / "config";
  art.image = dir / fs::path(ai.image_path).filename();
  const fs::path direct = ai.direct_boot_image.empty() ? fs::path() : dir / ai.direct_boot_image;
  const bool has_direct = !direct.empty() && path_exists(direct);
  if (!path_exists(art.image)) {
    if (!has_direct) return std::nullopt;
    art.image = direct;  // built since the bzImage went: vmlinux only
  }
  art.boot_image = has_direct ? direct : art.image;
  art.version = meta->version;
  art.kernel_name = meta->kernel;
  art.build_seconds = meta->build_seconds;
  art.source = meta->describe_source();
  art.cache_hit = true;
  return art;
}

KernelBuilder::KernelBuilder(ProcessRunner& runner, KernelBuildOptions options)
    : runner_(runner), opt_(std::move(options)) {
  if (opt_.jobs <= 0) {
    opt_.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  }
  if (!opt_.log) opt_.log = [](const std::string&) {};
  if (!opt_.progress) opt_.progress = [](const std::string&, double, const std::string&) {};
}

Result<std::vector<ConfigRequest>> KernelBuilder::config_requests(const KernelSpec& spec,
                                                                  Arch arch) const {
  const std::vector<std::string> names = kernel_fragments(spec, arch);
  std::vector<std::vector<ConfigRequest>> fragments;
  const SearchPath places(opt_.project, opt_.data_root);
  for (const auto& name : names) {
    const fs::path rel = fs::path("kernel-config") / (name + ".config");
    const auto file = places.find(rel);
    if (!file)
      return make_error(fmt::format("kernel {}: config fragment '{}' not found (no {})", spec.name,
                                    name, places.searched(rel)));
    auto text = read_file(file->path);
    FL_TRY(text);
    auto parsed = parse_fragment(*text, name);
    if (!parsed.ok()) return parsed.error();
    fragments.push_back(std::move(*parsed));
  }
  std::vector<ConfigRequest> inline_opts;
  for (const auto& [k, v] : spec.options) inline_opts.push_back({k, v, "experiment options"});
  fragments.push_back(std::move(inline_opts));
  return merge_requests(fragments);
}

Result<KernelBuilder::Plan> KernelBuilder::plan(const KernelSpec& spec, Arch arch) {
  Plan plan{.spec = &spec, .arch = &arch_info(arch)};
  const ArchInfo& ai = *plan.arch;
  auto kt = resolve_kernel_tree(runner_, spec, SearchPath(opt_.project, opt_.data_root),
                                opt_.spec_dir, opt_.cache);
  if (!kt.ok()) return kt.error();
  plan.tree = std::move(*kt);
  auto requests = config_requests(spec, arch);
  if (!requests.ok()) return requests.error();
  plan.requests = std::move(*requests);
  auto cv = compiler_version(runner_, std::string(ai.kernel_cc));
  if (!cv.ok()) return cv.error();
  plan.compiler_version = *cv;
  auto config_hash = [&](const std::string& source_name) {
    Hasher h;
    h.add(kObjdirRecipe).add(source_name).add(ai.name).add(plan.compiler_version);
    for (const auto& r : plan.requests) h.add(r.option).add(r.value);
    return h.hex();
  };
  const SourceInfo& source = plan.tree.source;
  plan.config_key = config_hash(source.id);
  plan.key = Hasher().add(plan.config_key).add(plan.tree.tree_key).hex();
  plan.build_id = plan.key.substr(0, 16);
  plan.dir = opt_.cache / "kernels" / plan.build_id;
  plan.work = opt_.cache / "work" / source.work_id;
  // Directory and git sources: O= is a direct subfolder of the tree, so kbuild uses srctree=..
  // and every path it hands the compiler is relative: ccache hits across working trees (a copy
  // of a tree, a git checkout of the same release) wherever the content matches. The O=
  // directory belongs to the working tree (not to one content of it), so an edited directory
  // source or another git ref rebuilds only what changed. Tarball sources keep their O= folders
  // in <cache>/build (absolute paths), where their incremental state already is.
  plan.obj = source.kind == SourceKind::kTarball
                 ? opt_.cache / "build" /
                       fmt::format("{}-{}-{}", source.id, ai.name,
                                   plan.config_key.substr(0, kObjDirKeyDigits))
                 : plan.work / "tree" /
                       fmt::format("{}{}-{}", kBuildDirPrefix, ai.name,
                                   config_hash(source.work_id).substr(0, kObjDirKeyDigits));
  return plan;
}

std::optional<KernelArtifact> KernelBuilder::load_cached(const Plan& plan) const {
  std::string why;
  auto art = load_kernel_artifact(plan.dir, plan.arch->arch, &why);
  if (!art) {
    if (!why.empty()) {
      opt_.log(fmt::format("{}: the cached copy is not usable ({}); building it again",
                           plan.label(), why));
    }
    return std::nullopt;
  }
  art->kernel_name = plan.spec->name;
  // The series as this spec names it: the same patches may have been built from another form.
  art->source = describe_tree(plan.tree);
  art->hold = plan.hold;
  touch_last_used(art->dir);
  return art;
}

Result<KernelLookup> KernelBuilder::lookup(const KernelSpec& spec, Arch arch) {
  auto plan = this->plan(spec, arch);
  if (!plan.ok()) return plan.error();
  return KernelLookup{.build_id = plan->build_id,
                      .cached = load_kernel_artifact(plan->dir, arch).has_value()};
}

std::vector<PastKernelBuild> past_kernel_builds(const fs::path& cache) {
  std::vector<PastKernelBuild> out;
  auto dirs = list_dir(cache / "kernels");
  if (!dirs.ok()) return out;
  for (const fs::path& dir : *dirs) {
    auto meta = load_kernel_meta(dir / "kernel.json");
    if (!meta.ok() || meta->build_seconds <= 0) continue;
    const bool full = std::any_of(
        meta->config_requests.begin(), meta->config_requests.end(),
        [](const std::string& r) { return r.ends_with(fmt::format("({})", kFullGuestFragment)); });
    out.push_back({meta->arch, meta->build_seconds, full});
  }
  return out;
}

Result<KernelArtifact> KernelBuilder::load_pinned(const KernelSpec& spec, Arch arch) const {
  const fs::path dir = opt_.cache / "kernels" / spec.build_id;
  auto hold = std::make_shared<FileLock>(dir.string() + ".lock", LockMode::kShared);
  std::string why;
  auto art = load_kernel_artifact(dir, arch, &why);
  if (!art) {
    return make_error(fmt::format(
        "kernel {}: build {} is not in the cache {} any more{}: it cannot be booted again as it "
        "was",
        spec.name, spec.build_id, dir.string(), why.empty() ? "" : " (" + why + ")"));
  }
  art->kernel_name = spec.name;
  art->hold = std::move(hold);
  touch_last_used(art->dir);
  return *art;
}

Result<KernelArtifact> KernelBuilder::build(const KernelSpec& spec, Arch arch) {
  auto art = find_or_build(spec, arch);
  if (art.ok() && opt_.share) {
    if (auto st = opt_.share(art->build_id, art->dir); !st.ok()) {
      opt_.log(fmt::format("kernel {} for {}: not shared with the lab server: {}", spec.name,
                           arch_info(arch).name, st.error().message));
    }
  }
  return art;
}

Result<KernelArtifact> KernelBuilder::find_or_build(const KernelSpec& spec, Arch arch) {
  if (!spec.build_id.empty()) return load_pinned(spec, arch);
  auto plan = this->plan(spec, arch);
  if (!plan.ok()) return plan.error();
  plan->hold = std::make_shared<FileLock>(plan->dir.string() + ".lock", LockMode::kShared);
  if (auto hit = load_cached(*plan)) return *hit;
  if (auto hit = fetched(*plan)) return *hit;
  auto pristine = prepare_pristine(runner_, plan->tree.source, opt_.cache);
  if (!pristine.ok()) return pristine.error();
  FL_TRY(make_dirs(plan->work));
  FileLock lock(plan->work.string() + ".lock");
  if (auto hit = load_cached(*plan)) return *hit;  // built by another foliolab while we waited
  auto cleaned = clean_interrupted_obj_dir(plan->obj);
  if (!cleaned.ok()) return in_context(plan->label(), cleaned.error());
  if (*cleaned > 0) {
    opt_.log(
        fmt::format("{}: the last build in {} was interrupted; removed the {} file(s) it was "
                    "writing, which make writes again",
                    plan->label(), plan->obj.string(), *cleaned));
  }
  const bool new_obj = !path_exists(plan->obj / ".config");
  auto job = start(*plan, *pristine);
  if (!job.ok()) return job.error();
  opt_.log(fmt::format("building kernel {} for {} (build id {}, log {})", spec.name,
                       plan->arch->name, plan->build_id, job->log.string()));
  const auto configuring = std::chrono::steady_clock::now();
  auto config = configure(*plan, *job);
  if (!config.ok()) return config.error();
  if (new_obj) FL_TRY(seed_obj_dir(*plan, *config));
  job->configure_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - configuring).count();
  // PVH kernels boot vmlinux: compressing it into a bzImage would be wasted time.
  const ArchInfo& ai = *plan->arch;
  const std::string target(has_option(*config, ai.direct_boot_option) ? ai.direct_boot_image
                                                                      : ai.image_target);
  FL_TRY(kbuild(*plan, *job, target));
  return publish(*plan, *job, target);
}

std::optional<KernelArtifact> KernelBuilder::fetched(const Plan& plan) const {
  if (!opt_.fetch) return std::nullopt;
  auto got = opt_.fetch(plan.build_id, plan.dir);
  if (!got.ok()) {
    opt_.log(fmt::format("{}: not from the lab server: {}", plan.label(), got.error().message));
    return std::nullopt;
  }
  if (!*got) return std::nullopt;
  opt_.log(fmt::format("kernel {} for {} (build id {}) from the lab server", plan.spec->name,
                       plan.arch->name, plan.build_id));
  return load_cached(plan);
}

Result<KernelBuilder::Job> KernelBuilder::start(const Plan& plan, const fs::path& pristine) {
  touch_last_used(plan.work);
  const Result<void> prepared = checkout_kernel_tree(runner_, plan.tree, pristine, plan.work);
  if (!prepared.ok()) return in_context(plan.label(), prepared.error());
  FL_TRY(make_dirs(plan.obj));
  FL_TRY(make_dirs(plan.dir.parent_path()));
  const fs::path staging = plan.dir.string() + ".tmp";
  FL_TRY(remove_tree(staging));
  FL_TRY(make_dirs(staging));
  Job job{.kbuild = Kbuild(plan.arch->arch, plan.work / "tree", plan.obj),
          .staging = staging,
          .log = staging / "build.log"};
  const bool ccache = opt_.use_ccache && !find_program("ccache").empty();
  job.kbuild.with_compiler(ccache, opt_.cache / "ccache", plan.build_id);
  return job;
}

Result<void> KernelBuilder::make(const Plan& plan, const Job& job,
                                 const std::vector<std::string>& targets, const std::string& what) {
  const std::vector<std::string> argv = job.kbuild.argv(targets);
  const std::string label = fmt::format("{} {} {}", what, plan.spec->name, plan.arch->name);
  std::string last_line;
  ProcessSpec ps{.argv = argv, .env = job.kbuild.env(), .log_path = job.log};
  ps.on_line = [&](std::string_view line) { last_line = std::string(line.substr(0, 60)); };
  ps.on_tick = [&](std::chrono::milliseconds t) {
    opt_.progress(label, t.count() / 1000.0, last_line);
  };
  (void)write_file_atomic(job.staging / "last-command.txt", format_argv(argv) + "\n");
  FL_TRY(mark_obj_dir_building(plan.obj));
  ProcessResult r = runner_.run(ps);
  // Killed (a timeout, Ctrl-C) or never started, make may have left a half-written file: the
  // mark stays and the next build removes what this one wrote (kernel/obj_dir_mark.h).
  if (r.spawn_error.empty() && !r.timed_out && !r.cancelled && r.signal == 0) {
    FL_TRY(unmark_obj_dir(plan.obj));
  }
  if (!r.ok()) {
    return make_error(fmt::format("{}: `{}` failed ({}). Last lines of {}:\n{}", plan.label(),
                                  fmt::join(targets, " "), r.describe(), job.log.string(),
                                  tail_lines(job.log, 25)));
  }
  return {};
}

// tinyconfig, the requests, olddefconfig, then every request verified. The O= directory keeps
// the .config of its last build (the requests are the same for every kernel that shares it:
// they are part of its name), so when the tree's Kconfig inputs are what configured it and the
// .config is the one that configuring left, it is used as it is: no kconfig run, and make does
// not sync the configuration again (about 10 s of a bisection step's 20 on 2 cores).
Result<std::string> KernelBuilder::configure(const Plan& plan, const Job& job) {
  const fs::path dotconfig = plan.obj / ".config";
  const fs::path stamp_file = plan.obj / kConfigStampFile;
  auto inputs = kconfig_inputs_digest(plan.work / "tree", kBuildDirPrefix);
  if (!inputs.ok()) return inputs.error();
  const std::string configured_by = Hasher().add(plan.config_key).add(*inputs).hex();
  if (auto stamp = read_file(stamp_file); stamp.ok()) {
    const std::vector<std::string_view> lines = split_lines(*stamp);
    auto kept = read_file(dotconfig);
    if (lines.size() == 2 && lines[0] == configured_by && kept.ok() &&
        lines[1] == sha256_hex(*kept) && verify_config(plan.requests, *kept).empty()) {
      opt_.log(fmt::format("{}: the Kconfig inputs are unchanged; reusing {}", plan.label(),
                           dotconfig.string()));
      return *kept;
    }
  }
  FL_TRY(remove_tree(stamp_file));
  FL_TRY(make(plan, job, {"tinyconfig"}, "configuring"));
  auto tiny = read_file(dotconfig);
  if (!tiny.ok()) return tiny.error();
  FL_TRY(write_file_atomic(dotconfig, apply_requests(*tiny, plan.requests)));
  FL_TRY(make(plan, job, {"olddefconfig"}, "configuring"));
  auto final_config = read_file(dotconfig);
  if (!final_config.ok()) return final_config.error();
  if (auto bad = verify_config(plan.requests, *final_config); !bad.empty()) {
    return make_error(
        fmt::format("{}: {} requested config option(s) did not survive olddefconfig "
                    "(unmet dependencies?):\n{}",
                    plan.label(), bad.size(), describe_mismatches(bad)));
  }
  FL_TRY(write_file_atomic(stamp_file, configured_by + "\n" + sha256_hex(*final_config) + "\n"));
  return final_config;
}

// A new O= directory (a config not built from this source and arch before) becomes a copy of
// the nearest built sibling (kernel/obj_dir_seed.h); build() holds the work tree's lock.
Result<void> KernelBuilder::seed_obj_dir(const Plan& plan, const std::string& dotconfig) {
  FL_TRY(mark_obj_dir_building(plan.obj));  // a copy cut short is removed by the next build
  auto seed = seed_from_nearest_sibling(runner_, plan.obj, dotconfig, plan.label());
  if (!seed.ok()) return seed.error();
  FL_TRY(unmark_obj_dir(plan.obj));
  if (!*seed) return {};
  opt_.log(fmt::format("{}: {} seeded from {} ({} option(s) apart): make rebuilds what they reach",
                       plan.label(), plan.obj.filename().string(),
                       (*seed)->from.filename().string(), (*seed)->distance));
  return {};
}

Result<void> KernelBuilder::kbuild(const Plan& plan, const Job& job, const std::string& target) {
  return make(plan, job, {fmt::format("-j{}", opt_.jobs), target}, "building");
}

Result<KernelArtifact> KernelBuilder::publish(const Plan& plan, const Job& job,
                                              const std::string& target) {
  const ArchInfo& ai = *plan.arch;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - job.start).count();
  const fs::path built = target == ai.image_target ? fs::path(ai.image_path) : fs::path(target);
  FL_TRY(copy_file_over(plan.obj / built, job.staging / built.filename()));
  FL_TRY(copy_file_over(plan.obj / ".config", job.staging / "config"));
  const fs::path tree = plan.work / "tree";
  auto version = tree_kernel_version(tree);
  const SourceInfo& src = plan.tree.source;
  KernelMeta meta{.build_id = plan.build_id,
                  .cache_key = plan.key,
                  .kernel = plan.spec->name,
                  .arch = std::string(ai.name),
                  .version = version.ok() ? *version : "",
                  .source = {.id = src.id,
                             .location = src.location.string(),
                             .describe = src.describe(),
                             .git_ref = src.git_ref,
                             .git_commit = src.git_commit,
                             .git_dirty = src.git_dirty,
                             .work_id = src.work_id},
                  .series = plan.tree.series ? plan.tree.series->name : "",
                  .compiler = plan.compiler_version,
                  .ccache = job.kbuild.ccache(),
                  .build_seconds = seconds,
                  .reproduce = job.kbuild.reproduce({fmt::format("-j{}", opt_.jobs), target})};
  if (const auto& series = plan.tree.series) {
    meta.series_form = series_form_name(series->form);
    for (const auto& p : series->patches) {
      meta.patches.push_back({p.name, sha256_hex(p.text), p.subject});
    }
    if (series->cover) {
      meta.cover_letter = {series->cover->subject, series->cover->file, series->cover->sha256};
    }
  }
  for (const auto& r : plan.requests) {
    meta.config_requests.push_back(r.option + "=" + r.value + " (" + r.origin + ")");
  }
  FL_TRY(write_file_atomic(job.staging / "kernel.json", meta.to_json().dump(2)));
  FL_TRY(remove_tree(plan.dir));
  if (auto st = rename_path(job.staging, plan.dir); !st.ok()) {
    return in_context("cannot publish " + plan.dir.string(), st.error());
  }
  auto art = load_kernel_artifact(plan.dir, ai.arch);
  if (!art) {
    return make_internal_error(
        fmt::format("{}: {} is incomplete after publishing", plan.label(), plan.dir.string()));
  }
  art->cache_hit = false;
  art->kernel_name = plan.spec->name;
  art->hold = plan.hold;
  touch_last_used(art->dir);
  opt_.log(fmt::format("built kernel {} for {} in {} (configuring {:.1f}s)", plan.spec->name,
                       ai.name, build_time_text(seconds), job.configure_seconds));
  return *art;
}

}  // namespace foliolab
