#include "runner/plan_cost.h"

#include <algorithm>
#include <set>
#include <utility>

#include "catalog/guest_kernel.h"
#include "catalog/repeat_plan.h"
#include "kernel/guest_fragments.h"
#include "util/text.h"

namespace foliolab {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

BuildEstimate estimate_builds(const std::vector<PlannedKernel>& kernels,
                              const std::vector<PastKernelBuild>& past) {
  BuildEstimate out;
  std::set<std::string> counted;  // a build id once: the same patches in two forms build once
  for (const PlannedKernel& k : kernels) {
    if (k.cached || !counted.insert(k.build_id).second) continue;
    std::vector<double> same_kind, same_arch, any;
    for (const auto& p : past) {
      any.push_back(p.build_seconds);
      if (p.arch != k.arch) continue;
      same_arch.push_back(p.build_seconds);
      if (p.full_guest == k.full_guest) same_kind.push_back(p.build_seconds);
    }
    const std::vector<double>& basis = !same_kind.empty()   ? same_kind
                                       : !same_arch.empty() ? same_arch
                                                            : any;
    const double generic = k.full_guest ? kGenericFullKernelSeconds : kGenericSmallKernelSeconds;
    out.seconds += basis.empty() ? generic : median(basis);
    out.from_builds = std::max(out.from_builds, static_cast<int>(basis.size()));
  }
  return out;
}

GuestEstimate estimate_guests(const std::vector<Run>& runs, ResultIndex* index,
                              const Experiment* exp) {
  GuestEstimate out{.runs = static_cast<int>(runs.size())};
  if (exp && exp->adaptive) {
    out.adaptive = true;
    out.min_reps = exp->repeat;
    out.max_reps = exp->adaptive->max;
    out.warmup = exp->warmup;
  }
  if (!index) return out;
  for (const Run& run : runs) {
    auto seconds = index->last_run_seconds(run.id);
    if (!seconds.ok() || !*seconds) continue;
    out.seconds += **seconds;
    ++out.known;
    if (!out.adaptive) continue;
    // A run that watches no timing metric does its minimum.
    const int most = repeat_plan(*exp, run).max;
    auto reps = index->last_run_reps(run.id);
    const int then = reps.ok() && *reps ? std::max(**reps, 1) : out.min_reps;
    out.worst_seconds += **seconds * std::max(1.0, static_cast<double>(out.warmup + most) /
                                                       static_cast<double>(out.warmup + then));
  }
  return out;
}

Result<PlanCost> plan_cost(const Experiment& exp, const std::vector<Run>& runs,
                           KernelBuilder& kernels, ImageBuilder& images, bool needs_kernel,
                           const std::vector<PastKernelBuild>& past, ResultIndex* index,
                           RootfsPlan rootfs) {
  PlanCost cost;
  std::set<std::pair<size_t, Arch>> kernels_seen;
  std::set<Arch> archs_seen;
  for (const Run& run : runs) {
    const std::string arch(arch_info(run.arch).name);
    if (needs_kernel && kernels_seen.insert({run.kernel, run.arch}).second) {
      const KernelSpec& spec = exp.kernels[run.kernel];
      auto found = kernels.lookup(spec, run.arch);
      if (!found.ok()) return found.error();
      const bool full = is_full_guest(spec, run.arch);
      std::string why;
      if (full) {
        const std::vector<std::string> reasons = full_guest_reasons(exp, run.arch);
        why = reasons.empty() ? std::string("guest: full") : join(reasons, "; ");
      }
      cost.kernels.push_back({spec.name, arch, found->build_id, found->cached, full, why});
    }
    if (archs_seen.insert(run.arch).second) {
      auto found = images.lookup(run.arch);
      if (!found.ok()) return found.error();
      cost.images.push_back({arch, found->image_id, found->cached});
      if (rootfs.builder && rootfs.recipe) {
        auto disk = rootfs.builder->lookup(*rootfs.recipe, run.arch);
        if (!disk.ok()) return disk.error();
        cost.rootfs.push_back({arch, disk->key, disk->cached, rootfs.recipe->name});
      }
    }
  }
  cost.builds = estimate_builds(cost.kernels, past);
  cost.guests = estimate_guests(runs, index, &exp);
  return cost;
}

}  // namespace foliolab
