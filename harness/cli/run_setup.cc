#include "cli/run_setup.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "backend/kexec_experiment.h"
#include "backend/libvirt_backend.h"
#include "catalog/evidence_check.h"
#include "catalog/guest_kernel.h"
#include "catalog/validate.h"
#include "cli/timing_flag.h"
#include "kernel/builder.h"
#include "model/loader.h"
#include "runner/scheduler.h"
#include "server/lab_client.h"
#include "util/cache_root.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

std::optional<Experiment> load(const std::string& file, const Common& c,
                               const std::vector<std::string>& archs) {
  auto exp = load_experiment(file);
  if (!exp.ok()) {
    fmt::print(stderr, "error: {}\n", exp.error().message);
    return std::nullopt;
  }
  if (auto st = settle_guest_kernels(*exp); !st.ok()) {
    fmt::print(stderr, "error: {}\n", st.error().message);
    return std::nullopt;
  }
  const HostFacts host = read_host_facts();
  if (auto st = validate_project(*exp, c.root, host); !st.ok()) {
    fmt::print(stderr, "error: {}\n", st.error().message);
    return std::nullopt;
  }
  if (auto st = validate_evidence(*exp, host, cache_root()); !st.ok()) {
    fmt::print(stderr, "error: {}\n", st.error().message);
    return std::nullopt;
  }
  if (auto st = validate_backend(*exp); !st.ok()) {
    fmt::print(stderr, "error: {}\n", st.error().message);
    return std::nullopt;
  }
  if (!archs.empty()) {
    std::vector<Arch> keep;
    for (const auto& a : archs) {
      auto parsed = parse_arch(a);
      if (!parsed) {
        fmt::print(stderr, "error: --arch {}: unknown architecture (x86_64, arm64)\n", a);
        return std::nullopt;
      }
      if (std::find(exp->archs.begin(), exp->archs.end(), *parsed) != exp->archs.end())
        keep.push_back(*parsed);
    }
    exp->archs = keep;
  }
  return std::move(*exp);
}

void add_run_flags(CLI::App& app, RunFlags& f) {
  app.add_option("experiment", f.file, "experiment YAML file")->required();
  app.add_option("--arch", f.archs, "only these architectures");
  app.add_option("--shard", f.shard,
                 "run only slice K of N of the plan (K/N, 1-based; `foliolab merge` joins them)");
  std::string backends_doc = "backend (overrides machine.backend):";
  for (const auto& e : backend_table()) backends_doc += fmt::format("\n  {}: {}", e.name, e.doc);
  app.add_option("--backend", f.backend, backends_doc)->check(CLI::IsMember(backend_names()));
  app.add_option("--foreign", f.foreign,
                 "machine.image for another arch: binfmt (qemu-user in a private binfmt_misc, "
                 "Linux 6.7+), guest (unpacked here, second stage in a guest) or auto")
      ->check(CLI::IsMember({"auto", "binfmt", "guest"}));
  app.add_option("--accel", f.accel,
                 "auto | kvm | tcg (overrides machine.accel; auto: KVM only if a probe boot works)")
      ->check(CLI::IsMember({"auto", "kvm", "tcg"}));
  add_timing_flag(app, f.timing);
  app.add_option(
      "--connect", f.connect,
      fmt::format("libvirt URI (default {}) or a lab machine ssh://root@HOST for --backend kexec "
                  "(overrides machine.connect)",
                  kDefaultLibvirtUri));
  app.add_option("--hosts", f.hosts,
                 "a pool of libvirt hosts (URI[*slots],URI... or a YAML file `hosts: [{uri, "
                 "slots}]`; implies --backend libvirt) or of lab machines (ssh:// URIs, the file "
                 "with power_cycle, config, identity...; implies --backend kexec); runs go to "
                 "free slots, a lost host's runs "
                 "move to another; default -j: all slots)");
  app.add_option("--results", f.results, "results root (default: <root>/results)");
  app.add_option("--resume-dir", f.resume, "continue this results session (skips runs it has)");
  app.add_flag("--resume", f.resume_latest,
               "continue the newest results session of this experiment");
  app.add_flag("--retry-failed", f.retry, "with --resume: rerun runs that failed");
  app.add_option(
         "-j,--jobs", f.guests,
         "guests at once (default: host cores, bounded by free memory over the guest's RAM)")
      ->check(CLI::PositiveNumber);
  app.add_option("--make-jobs", f.make_jobs,
                 "parallel make jobs for kernel builds (default: all CPUs)");
  app.add_option("--repeat-until-ci", f.repeat_ci,
                 "adaptive reps: until the 95% CI of each watched timing is within this (2%)");
  app.add_flag("--quiet,-q", f.quiet, "only failures, warnings and the final report");
  app.add_flag("--verbose,-v", f.verbose, "a line as each run starts and ends");
  f.common.add(app);
}

namespace {

// --hosts: the pool, and the backend its hosts take (libvirt, or kexec for ssh:// machines).
Result<void> choose_pool(const RunFlags& f, Experiment& exp, BackendChoice& choice) {
  if (!f.connect.empty()) {
    return make_error("--connect and --hosts: list the host in --hosts instead");
  }
  auto hosts = load_hosts(f.hosts);
  if (!hosts.ok()) return hosts.error();
  auto kind = pool_backend_name(*hosts);
  if (!kind.ok()) return make_error("--hosts " + f.hosts + ": " + kind.error().message);
  if (!f.backend.empty() && f.backend != *kind) {
    return make_error(fmt::format("--hosts is a pool of {}: it cannot go with --backend {}",
                                  *kind == "kexec" ? "lab machines (kexec)" : "libvirt hosts",
                                  f.backend));
  }
  choice.hosts = std::move(*hosts);
  exp.machine.backend = *kind;
  exp.machine.connect.clear();
  return {};
}

// backend kexec: its refusals, its fragments and those of the pool's hosts (checked again like
// the experiment's own), and its warnings.
Result<void> settle_kexec(const RunFlags& f, Experiment& exp, const BackendChoice& choice) {
  std::vector<PoolHost> hosts = choice.hosts;
  if (hosts.empty() && !choice.connect.empty()) {
    hosts.push_back({.uri = choice.connect,
                     .loc = f.connect.empty() ? exp.machine.connect_loc : SourceLoc{"--connect"}});
  }
  auto warnings = settle_kexec_experiment(exp, hosts);
  if (!warnings.ok()) return warnings.error();
  for (const std::string& w : *warnings) fmt::print(stderr, "warning: {}\n", w);
  return validate_project(exp, f.common.root, read_host_facts());
}

}  // namespace

Result<BackendChoice> choose_backend(const RunFlags& f, Experiment& exp) {
  if (!f.accel.empty()) exp.machine.accel = *parse_accel_choice(f.accel);
  apply_timing_flag(f.timing, exp);
  if (!f.backend.empty()) exp.machine.backend = f.backend;
  if (!f.connect.empty()) exp.machine.connect = f.connect;
  BackendChoice choice;
  if (!f.hosts.empty()) FL_TRY(choose_pool(f, exp, choice));
  const std::string& connect = exp.machine.connect;
  if (!connect.empty() && is_lab_uri(connect) && exp.machine.backend != "kexec") {
    return make_error("--connect " + connect + ": a lab machine needs --backend kexec");
  }
  if (!connect.empty() && !is_lab_uri(connect) && exp.machine.backend != "libvirt") {
    return make_error("--connect " + connect + ": a libvirt URI needs --backend libvirt");
  }
  choice.name = exp.machine.backend;
  choice.connect = connect;
  if (choice.name == "kexec") FL_TRY(settle_kexec(f, exp, choice));
  return choice;
}

Result<void> settle_pool_kernels(const Common& c, const std::string& hosts, Experiment& exp) {
  if (hosts.empty() && exp.machine.backend != "kexec") return {};
  RunFlags f;
  f.common = c;
  f.hosts = hosts;
  auto choice = choose_backend(f, exp);
  if (!choice.ok()) return choice.error();
  return {};
}

namespace {

// Guests at once: -j, else all the pool's slots, else as many as cores and memory allow; one
// for a backend that runs one run at a time (which the status is told).
int guests_at_once(const RunFlags& f, const MadeBackend& made, const Experiment& exp,
                   RunStatus& status) {
  const BackendEntry& entry = *made.entry;
  int parallel = !entry.needs.parallel ? 1
                 : f.guests > 0        ? f.guests
                 : made.pool           ? made.pool->slots()
                                       : default_guest_jobs(exp.machine.memory_mb);
  if (parallel > 1) status.note(fmt::format("{} guests at once (-j)", parallel));
  if (f.guests > 1 && !entry.needs.parallel) {
    status.note(
        fmt::format("backend {} runs one run at a time (-j {} ignored)", entry.name, f.guests));
  }
  return parallel;
}

KernelBuildOptions kernel_build_options(const RunFlags& f, const Experiment& exp,
                                        RunStatus* shown) {
  KernelBuildOptions o{
      .data_root = f.common.root,
      .project = exp.project,
      .spec_dir = exp.dir,
      .cache = f.common.cache,
      .jobs = f.make_jobs,
      .log = [shown](const std::string& line) { shown->note(line); },
      .progress = [shown](const std::string& what, double s,
                          const std::string& last) { shown->build_progress(what, s, last); }};
  auto ref = f.server.empty() ? Result<LabServerRef>(make_error(""))
                              : lab_server_ref(f.server, f.token_file);
  if (!ref.ok()) return o;  // run --server checked the reference before the session
  o.fetch = [server = *ref](const std::string& id, const fs::path& dir) {
    return fetch_kernel(server, id, dir);
  };
  o.share = [server = *ref](const std::string& id, const fs::path& dir) {
    return push_kernel(server, id, dir);
  };
  return o;
}

void print_pool_usage(const PoolBackend& pool) {
  for (const PoolHostUse& u : pool.usage()) {
    fmt::print(stderr, "host {} ({} slot{}): {} run{}{}\n", u.uri, u.slots, u.slots == 1 ? "" : "s",
               u.runs, u.runs == 1 ? "" : "s", u.lost ? "; lost: " + u.lost_why : "");
  }
}

}  // namespace

Result<std::unique_ptr<RunContext>> RunContext::open(const RunFlags& f, const BackendChoice& choice,
                                                     const Experiment& exp) {
  if (auto restored = recover_interrupted_runs(f.common.cache); !restored.ok()) {
    return restored.error();
  } else if (!restored->empty()) {
    fmt::print(stderr, "{}\n", *restored);
  }
  std::unique_ptr<RunContext> c(new RunContext(f));
  // A status block redrawn in place on a terminal, plain lines in CI logs.
  c->status_ = make_status(stderr, f.verbosity());
  std::vector<std::string> warnings;
  auto made = make_backend(choice, c->proc_, f.common.cache, warnings);
  for (const auto& w : warnings) fmt::print(stderr, "warning: {}\n", w);
  if (!made.ok()) return made.error();
  c->made_ = std::move(*made);
  auto index = ResultIndex::open(f.results);
  if (index.ok()) {
    c->index_.emplace(std::move(*index));
  } else {
    fmt::print(stderr, "warning: runs will not be indexed: {}\n", index.error().message);
  }
  c->jobs_ = guests_at_once(f, c->made_, exp, *c->status_);
  return c;
}

Result<SessionSummary> RunContext::run(const Experiment& exp, const std::vector<Run>& runs,
                                       RunnerOptions opt) {
  opt.data_root = flags_.common.root;
  opt.results_root = flags_.results;
  opt.index = index_ ? &*index_ : nullptr;
  opt.needs = made_.entry->needs;
  opt.jobs = jobs_;
  opt.status = status_.get();
  BuildingArtifactProvider artifacts(proc_, kernel_build_options(flags_, exp, status_.get()),
                                     *parse_foreign_path(flags_.foreign));
  return ExperimentRunner(artifacts, *made_.backend, opt).run(exp, runs);
}

void RunContext::finish() {
  status_.reset();
  if (made_.pool) print_pool_usage(*made_.pool);
}

}  // namespace foliolab::cli
