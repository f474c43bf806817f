#include "report/plan_cost.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "util/text.h"

namespace foliolab {
namespace {

std::string duration_text(double seconds) {
  const long s = std::lround(seconds);
  if (s < 60) return fmt::format("{}s", s);
  return fmt::format("{}m{:02}s", s / 60, s % 60);
}

std::string state(bool cached) { return cached ? "cached" : "to build"; }

// "kernels: ..." (each (kernel, arch) once, small or full, cached or not), then why each full
// guest kernel is full.
std::string kernels_text(const std::vector<PlannedKernel>& kernels) {
  if (kernels.empty()) return "";
  std::vector<std::string> items;
  std::string why;
  for (const auto& k : kernels) {
    items.push_back(fmt::format("{} {} {} {} ({})", k.kernel, k.arch,
                                k.full_guest ? "full" : "small", state(k.cached), k.build_id));
    if (k.full_guest) why += fmt::format("  {} on {}: {}\n", k.kernel, k.arch, k.full_guest_why);
  }
  std::string out = "kernels: " + join(items, ", ") + "\n";
  if (!why.empty()) out += "full guest kernel (kernel-config/guest-full.config) for:\n" + why;
  return out;
}

}  // namespace

std::string plan_cost_text(const PlanCost& cost) {
  std::string out = kernels_text(cost.kernels);
  std::vector<std::string> images;
  for (const auto& i : cost.images) images.push_back(i.arch + " " + state(i.cached));
  if (!images.empty()) out += "images: " + join(images, ", ") + " (seconds each)\n";
  std::vector<std::string> disks;
  for (const auto& i : cost.rootfs) disks.push_back(i.arch + " " + state(i.cached));
  if (!disks.empty()) {
    out += "root filesystem " + cost.rootfs.front().recipe + ": " + join(disks, ", ") +
           " (mmdebstrap from Debian's archive: about a minute natively, a few under emulation)\n";
  }
  const int n = cost.to_build();
  if (cost.kernels.empty()) {
    out += "builds: no kernel (this backend runs the host's own)\n";
  } else if (n == 0) {
    out += fmt::format("builds: none (all {} kernel{} cached)\n", cost.kernels.size(),
                       cost.kernels.size() == 1 ? "" : "s");
  } else {
    out += fmt::format(
        "builds: {} kernel{}, about {} ({})\n", n, n == 1 ? "" : "s",
        duration_text(cost.builds.seconds),
        cost.builds.from_builds
            ? fmt::format("from the median of this host's {} past build{}", cost.builds.from_builds,
                          cost.builds.from_builds == 1 ? "" : "s")
            : std::string("generic, 2 cores: this host's cache holds no past build"));
  }
  const GuestEstimate& g = cost.guests;
  if (g.known > 0) {
    out += fmt::format(
        "guests: about {} for {} of the {} runs, one after another (this host's "
        "last ok run of each; -j N guests at once take less)\n",
        duration_text(g.seconds), g.known, g.runs);
  }
  if (g.adaptive) {
    const std::string warm = g.warmup ? fmt::format(" + {} warm-up", g.warmup) : "";
    out += fmt::format("reps: adaptive, {}..{}{} per run; ", g.min_reps, g.max_reps, warm);
    out += g.known > 0 ? fmt::format("worst case, every run to {}: about {} for those {} runs\n",
                                     g.max_reps, duration_text(g.worst_seconds), g.known)
                       : fmt::format(
                             "worst case, every run to {}: up to {:.3g}× the time of {} "
                             "reps each\n",
                             g.max_reps,
                             static_cast<double>(g.warmup + g.max_reps) /
                                 static_cast<double>(g.warmup + g.min_reps),
                             g.min_reps);
  }
  return out;
}

}  // namespace foliolab
