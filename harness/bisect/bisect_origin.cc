#include "bisect/bisect_origin.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "bisect/gate_rerun.h"
#include "results/store.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

// Whether `head`'s patches are the first ones of `all`'s, by content.
bool extends(const KernelMeta& head, const KernelMeta& all) {
  if (head.patches.size() > all.patches.size()) return false;
  for (size_t i = 0; i < head.patches.size(); ++i) {
    if (head.patches[i].sha256 != all.patches[i].sha256) return false;
  }
  return true;
}

std::string what(const KernelMeta& k) {
  return fmt::format("{} ({})", k.build_id, k.describe_source());
}

}  // namespace

std::string BisectOrigin::flag() const {
  if (series.empty()) return "--range " + range;
  return good_patches ? fmt::format("--series {} --good-patches {}", series, good_patches)
                      : "--series " + series;
}

Result<BisectOrigin> bisect_origin(const KernelMeta& good, const KernelMeta& bad) {
  if (good.build_id == bad.build_id) {
    return make_error(fmt::format(
        "both sides booted kernel {}: what moved is not the kernel (knobs, workload, host?), "
        "there is nothing to bisect",
        what(good)));
  }
  if (good.arch != bad.arch) {
    return make_error(fmt::format("the kernels are of two arches ({}, {})", good.arch, bad.arch));
  }
  if (good.config_requests != bad.config_requests) {
    return make_error(fmt::format(
        "kernels {} and {} ask for other config options ({} against {}): a bisection walks "
        "patches or commits under one config",
        good.build_id, bad.build_id, fmt::join(good.config_requests, " "),
        fmt::join(bad.config_requests, " ")));
  }
  if (good.source.id == bad.source.id) {
    if (bad.series.empty() || bad.patches.size() == good.patches.size() || !extends(good, bad)) {
      return make_error(fmt::format(
          "kernels {} and {} share a source tree but the later one's patches do not extend the "
          "earlier one's ({} patches, then {}): nothing for --series to walk",
          what(good), what(bad), good.patches.size(), bad.patches.size()));
    }
    return BisectOrigin{.series = bad.series, .good_patches = good.patches.size()};
  }
  const bool git = !good.source.git_commit.empty() && !bad.source.git_commit.empty();
  if (git && good.source.location == bad.source.location && good.patches.empty() &&
      bad.patches.empty()) {
    return BisectOrigin{.range = good.source.git_commit + ".." + bad.source.git_commit};
  }
  return make_error(fmt::format(
      "kernels {} and {} come from other sources: bisect walks one source with a series added, "
      "or two commits of one git source without patches",
      what(good), what(bad)));
}

Result<BisectOrigin> bisect_origin(const RunRecord& good, const RunRecord& bad,
                                   const fs::path& cache) {
  auto meta = [&](const RunRecord& r) -> Result<KernelMeta> {
    const std::string& id = r.provenance.kernel_build_id;
    if (id.empty()) {
      return make_error(fmt::format("run {} booted no kernel ({})", r.id.run_id, r.status));
    }
    auto m = load_kernel_meta(cache / "kernels" / id / "kernel.json");
    if (!m.ok()) {
      return make_error(fmt::format("run {}: kernel {} is not in the cache {} any more ({})",
                                    r.id.run_id, id, cache.string(), m.error().message));
    }
    return m;
  };
  auto g = meta(good);
  if (!g.ok()) return g.error();
  auto b = meta(bad);
  if (!b.ok()) return b.error();
  auto origin = bisect_origin(*g, *b);
  // The series as the run's kernel names it: a build is shared by content, and its kernel.json
  // keeps the name of whichever series built it first.
  if (origin.ok() && !origin->series.empty() && !bad.id.kernel.patches.empty()) {
    origin->series = bad.id.kernel.patches;
  }
  return origin;
}

namespace {

Result<RunRecord> side_record(const fs::path& dir, const VariantInfo& v) {
  const std::vector<std::string> ids = variant_run_ids(v);
  if (ids.empty()) return make_error(fmt::format("{}: the case has no run", dir.string()));
  auto store = ResultStore::open(dir);
  if (!store.ok()) return store.error();
  return store->load_record(ids.front());
}

Result<GateBisect> case_bisect(const GateCase& c, const GateReport& report,
                               const fs::path& base_dir, const fs::path& cand_dir,
                               const fs::path& cache) {
  const ComparisonGroup& g = report.comparison.groups.at(static_cast<size_t>(c.group_index));
  if (g.variants.size() != 2) return make_error("not a baseline against a candidate");
  auto base = side_record(base_dir, g.variants[0]);
  if (!base.ok()) return base.error();
  auto cand = side_record(cand_dir, g.variants[1]);
  if (!cand.ok()) return cand.error();
  auto origin = bisect_origin(*base, *cand, cache);
  if (!origin.ok()) return origin.error();
  const RunIdentity& id = cand->id;
  return GateBisect{.case_name = fmt::format("{} · {}", c.rule, c.group),
                    .metric = c.metric,
                    .where = fmt::format("kernel={},arch={},knobs={},workload={}", id.kernel.name,
                                         id.arch, id.knob_set.name, id.workload.label),
                    .origin = std::move(*origin)};
}

}  // namespace

Result<GateBisect> gate_bisect(const GateReport& report, const fs::path& base_dir,
                               const fs::path& cand_dir, const fs::path& cache) {
  std::vector<std::string> passed_over;
  for (const GateCase& c : report.cases) {
    if (c.outcome != GateOutcome::kFail || c.group_index < 0) continue;
    auto b = case_bisect(c, report, base_dir, cand_dir, cache);
    if (b.ok()) {
      b->passed_over = std::move(passed_over);
      return b;
    }
    passed_over.push_back(fmt::format("{} · {}: {}", c.rule, c.group, b.error().message));
  }
  if (passed_over.empty()) return make_error("no failing case to bisect");
  return make_error(
      fmt::format("no failing case can be bisected: {}", fmt::join(passed_over, "; ")));
}

}  // namespace foliolab
