#include "backend/kexec_experiment.h"

#include <fmt/format.h>

#include <algorithm>

#include "backend/ssh_target.h"

namespace foliolab {

namespace {

Error refused(const SourceLoc& at, const std::string& what, const std::string& why) {
  return make_error(fmt::format("{}: {}: not with machine.backend kexec: {}", at.str(), what, why));
}

Result<void> check_prepare(const std::vector<PrepareStep>& steps) {
  for (const PrepareStep& p : steps) {
    if (is_churn(p)) {
      return refused(p.loc, "prepare fragment method churn",
                     "its files go to a scratch disk made for the run, which a lab machine "
                     "cannot be given (methods thpscale and unusable work in memory)");
    }
  }
  return {};
}

// machine.connect's (or --connect's) place for a message; a hosts file's machines were checked
// where they were read.
std::string where(const PoolHost& h) {
  if (h.loc.line > 0) return h.loc.str() + ": machine.connect: ";
  return h.loc.file.empty() ? "" : h.loc.file + ": ";
}

// Each machine's ssh:// URI (parse_ssh_uri's refusals), and the IPv4 addresses its records
// need when ssh reaches it over IPv6.
Result<void> check_machines(const std::vector<PoolHost>& hosts) {
  for (const PoolHost& h : hosts) {
    auto t = parse_ssh_uri(h.uri);
    if (!t.ok()) return make_error(where(h) + t.error().message);
    if (t->ipv6 && (h.lab.listen.empty() || h.lab.report_address.empty())) {
      return make_error(where(h) + h.uri +
                        ": a lab machine at an IPv6 address needs listen and report_address "
                        "(IPv4) from a hosts file (--hosts): the run's kernel sends its records "
                        "over IPv4");
    }
  }
  return {};
}

void add_fragment(KernelSpec& k, const std::string& name, const SourceLoc& at) {
  if (std::find(k.config.begin(), k.config.end(), name) != k.config.end()) return;
  k.config.push_back(name);
  k.config_locs.resize(k.config.size() - 1);
  k.config_locs.push_back(at);
}

}  // namespace

Result<std::vector<std::string>> settle_kexec_experiment(Experiment& exp,
                                                         const std::vector<PoolHost>& hosts) {
  const MachineSpec& m = exp.machine;
  FL_TRY(check_machines(hosts));
  if (!m.image.empty()) {
    return refused(m.image_loc, "machine.image " + m.image,
                   "the run's kernel boots the initramfs (the agent, the workloads and the job); "
                   "a lab machine gets no root filesystem disk");
  }
  if (m.swap.type == SwapSpec::Type::kDisk) {
    return refused(m.swap.loc, "machine.swap type disk",
                   "the swap disk is a file QEMU attaches; on a lab machine use type zram");
  }
  FL_TRY(check_prepare(exp.state.prepare));
  for (const KnobSet& ks : exp.knob_sets) FL_TRY(check_prepare(ks.prepare));
  const SourceLoc backend_at = m.backend_loc.line > 0 ? m.backend_loc : SourceLoc{exp.file, 0, 0};
  std::vector<std::string> warnings;
  for (KernelSpec& k : exp.kernels) {
    add_fragment(k, kKexecFragment, backend_at);
    for (const PoolHost& h : hosts) {
      for (size_t i = 0; i < h.lab.config.size(); ++i) {
        add_fragment(k, h.lab.config[i],
                     i < h.lab.config_locs.size() ? h.lab.config_locs[i] : backend_at);
      }
    }
  }
  for (const PoolHost& h : hosts) {
    if (h.lab.power_cycle.empty()) {
      warnings.push_back(fmt::format(
          "lab machine {} has no power_cycle: a run whose kernel hangs there leaves it down, "
          "and the pool goes on without it",
          h.uri));
    }
  }
  return warnings;
}

}  // namespace foliolab
