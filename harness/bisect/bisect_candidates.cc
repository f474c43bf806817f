#include "bisect/bisect_candidates.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "kernel/git.h"
#include "kernel/series_mail.h"
#include "model/matrix.h"
#include "results/store.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

// The one run of `all` that `where` selects among those `in` accepts; `what` names them.
template <class Pred>
Result<Run> one_run(const Experiment& exp, const std::vector<Run>& all, const RunSelector& where,
                    Pred in, const std::string& what) {
  std::vector<Run> hits;
  for (const Run& r : all) {
    if (in(r) && selector_matches(where, exp, r)) hits.push_back(r);
  }
  if (hits.size() == 1) return hits.front();
  std::vector<std::string> ids;
  for (const Run& r : hits) ids.push_back(r.id);
  return make_error(fmt::format(
      "--where {} selects {} runs of {}{}{}: a bisection follows one (add kernel=, arch=, knobs= "
      "or workload=)",
      selector_text(where), hits.size(), what, hits.empty() ? "" : ": ", fmt::join(ids, ", ")));
}

// The kernel a series or range bisection derives from: the one where.kernel names, else the
// only one `fits` accepts.
template <class Fits>
Result<const KernelSpec*> base_kernel(const Experiment& exp, const RunSelector& where, Fits fits,
                                      const std::string& wanted) {
  std::vector<const KernelSpec*> found;
  std::vector<std::string> names;
  for (const KernelSpec& k : exp.kernels) {
    names.push_back(k.name);
    if (!where.kernel.empty() ? k.name == where.kernel : fits(k)) found.push_back(&k);
  }
  if (found.size() == 1 && fits(*found.front())) return found.front();
  if (found.size() == 1) {
    return make_error(fmt::format("kernel {} of {} is not {}", where.kernel, exp.name, wanted));
  }
  if (!where.kernel.empty()) {
    return make_error(fmt::format("--where kernel={}: not a kernel of {}{}", where.kernel, exp.name,
                                  did_you_mean(where.kernel, names)));
  }
  return make_error(fmt::format("{} of {}'s kernels ({}) {}{}", found.size(), exp.name,
                                fmt::join(names, ", "), wanted,
                                found.empty() ? "" : ": choose one with --where kernel="));
}

// `exp` with `kernels` in place of its own, and one run per kernel as `where` selects.
Result<BisectCandidates> derive(const Experiment& exp, std::vector<KernelSpec> kernels,
                                RunSelector where, std::string kind) {
  BisectCandidates c{.kind = std::move(kind), .exp = exp};
  c.exp.kernels = std::move(kernels);
  // Exclusions naming a kernel name the original one; `where` picks the runs of the new ones.
  std::erase_if(c.exp.excludes, [](const RunSelector& sel) { return !sel.kernel.empty(); });
  where.kernel.clear();
  const std::vector<Run> all = expand(c.exp);
  for (size_t k = 0; k < c.exp.kernels.size(); ++k) {
    auto run = one_run(
        c.exp, all, where, [k](const Run& r) { return r.kernel == k; },
        "kernel " + c.exp.kernels[k].name);
    if (!run.ok()) return run.error();
    c.runs.push_back(*run);
  }
  return c;
}

// A patch as people name it: its mail subject without "[PATCH …]" (a quilt patch's own
// "Subject:" header when it has one), else its file name.
std::string patch_title(const PatchFile& p) {
  if (!p.subject.empty()) return p.subject;
  for (std::string_view line : split_lines(p.text)) {
    if (line.starts_with("diff ") || line.starts_with("--- ")) break;
    if (!line.starts_with("Subject: ")) continue;
    const std::string title = strip_subject_tags(std::string(trim(line.substr(9))));
    if (!title.empty()) return title;
  }
  return p.name;
}

std::vector<size_t> first(size_t n) {
  std::vector<size_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = i;
  return out;
}

}  // namespace

Result<BisectCandidates> variant_candidates(const Experiment& exp,
                                            const std::vector<std::string>& variants,
                                            const RunSelector& where) {
  if (!where.knobs.empty()) {
    return make_error("--where knobs=…: the knob sets are the candidates, given by --variants");
  }
  BisectCandidates c{.kind = "knob sets", .exp = exp};
  const std::vector<Run> all = expand(exp);
  std::vector<std::string> names;
  for (const KnobSet& ks : exp.knob_sets) names.push_back(ks.name);
  for (size_t i = 0; i < variants.size(); ++i) {
    const std::string& name = variants[i];
    auto at = std::find(names.begin(), names.end(), name);
    if (at == names.end()) {
      return make_error(fmt::format("--variants: '{}' is not a knob set of {}{}", name, exp.name,
                                    did_you_mean(name, names)));
    }
    const size_t k = at - names.begin();
    auto run = one_run(
        exp, all, where, [k](const Run& r) { return r.knob_set == k; }, "knob set '" + name + "'");
    if (!run.ok()) return run.error();
    c.runs.push_back(*run);
    c.names.push_back(fmt::format("knob set '{}' ({} of {})", name, i + 1, variants.size()));
  }
  return c;
}

Result<BisectCandidates> series_candidates(const Experiment& exp, const std::string& series,
                                           const RunSelector& where, ProcessRunner& runner,
                                           const fs::path& series_dir, const fs::path& scratch,
                                           size_t good_patches) {
  auto base = base_kernel(
      exp, where, [&](const KernelSpec& k) { return k.patches == series; },
      "naming patches: " + series);
  if (!base.ok()) return base.error();
  auto loaded = load_patch_series(runner, series_dir, scratch);
  if (!loaded.ok()) return in_context("--series " + series, loaded.error());
  const size_t n = loaded->patches.size();
  if (n == 0) return make_error("--series " + series + ": the series holds no patches");
  if (good_patches >= n) {
    return make_error(
        fmt::format("--good-patches {}: the series holds {} patches, leaving none to "
                    "bisect",
                    good_patches, n));
  }
  std::vector<KernelSpec> kernels;
  for (size_t i = good_patches; i <= n; ++i) {
    KernelSpec k = **base;
    k.name = fmt::format("{}+{}", (*base)->name, i);
    k.patches_pick = first(i);
    kernels.push_back(std::move(k));
  }
  auto c = derive(exp, std::move(kernels), where, "patches");
  if (!c.ok()) return c;
  c->series_kernel = **base;
  c->first_patch = good_patches;
  for (size_t i = 0; i < n; ++i) c->patch_names.push_back(patch_title(loaded->patches[i]));
  for (size_t i = good_patches; i <= n; ++i) {
    c->names.push_back(i == 0 ? fmt::format("no patches of {}", n)
                       : i == good_patches
                           ? fmt::format("patches 1-{} of {} (known good)", i, n)
                           : fmt::format("patch {} of {} ({})", i, n, c->patch_names[i - 1]));
  }
  return c;
}

Result<std::pair<Experiment, Run>> series_without(const BisectCandidates& c, size_t skip,
                                                  const RunSelector& where) {
  const size_t n = c.patch_names.size();
  if (skip >= n) return make_error(fmt::format("no patch {} of {} to leave out", skip + 1, n));
  KernelSpec k = c.series_kernel;
  k.name = fmt::format("{}-without-{}", c.series_kernel.name, skip + 1);
  k.patches_pick = first(n);
  k.patches_pick->erase(k.patches_pick->begin() + static_cast<long>(skip));
  RunSelector sel = where;
  sel.kernel.clear();
  auto one = derive(c.exp, {k}, sel, "patches");
  if (!one.ok()) return one.error();
  return std::pair{std::move(one->exp), one->runs.front()};
}

Result<BisectCandidates> range_candidates(const Experiment& exp, const std::string& range,
                                          const RunSelector& where, ProcessRunner& runner) {
  auto base = base_kernel(
      exp, where, [](const KernelSpec& k) { return k.source_git; }, "built from a git source");
  if (!base.ok()) return base.error();
  if (!(*base)->patches.empty() || !(*base)->patches_range.empty()) {
    return make_error(fmt::format(
        "--range {}: kernel {} also applies patches; a range bisection walks the source's commits",
        range, (*base)->name));
  }
  const fs::path repo = fs::path((*base)->source).is_absolute()
                            ? fs::path((*base)->source)
                            : fs::path(exp.dir) / (*base)->source;
  auto commits = GitRepo(runner, repo).commits(range);
  if (!commits.ok()) return in_context("--range", commits.error());
  std::vector<KernelSpec> kernels;
  for (const std::string& id : *commits) {
    KernelSpec k = **base;
    k.name = fmt::format("{}.{}", (*base)->name, id.substr(0, 12));
    k.source_ref = id;
    kernels.push_back(std::move(k));
  }
  auto c = derive(exp, std::move(kernels), where, "commits");
  if (!c.ok()) return c;
  for (size_t i = 0; i < commits->size(); ++i) {
    c->names.push_back(
        fmt::format("commit {} ({} of {})", (*commits)[i].substr(0, 12), i, commits->size() - 1));
  }
  return c;
}

Result<std::vector<std::vector<double>>> measure_runs(const SessionRun& run_session,
                                                      const Experiment& exp,
                                                      const std::vector<Run>& runs,
                                                      const std::string& metric,
                                                      std::string* session) {
  auto summary = run_session(exp, runs);
  if (!summary.ok()) return summary.error();
  *session = summary->dir.string();
  auto store = ResultStore::open(summary->dir);
  if (!store.ok()) return store.error();
  auto records = store->load_all();
  if (!records.ok()) return records.error();
  std::vector<std::vector<double>> out;
  for (const Run& run : runs) {
    auto rec = std::find_if(records->begin(), records->end(),
                            [&](const RunRecord& r) { return r.id.run_id == run.id; });
    if (rec == records->end() || !rec->ok()) {
      out.emplace_back();  // failed or missing: no values
      continue;
    }
    out.push_back(rec->samples(metric));
  }
  return out;
}

std::pair<Experiment, std::vector<Run>> with_reps(const Experiment& exp,
                                                  const std::vector<Run>& runs, int reps) {
  Experiment e = exp;
  e.repeat = reps;
  e.adaptive.reset();
  const std::vector<Run> all = expand(e);
  std::vector<Run> out;
  for (const Run& run : runs) {
    auto same = std::find_if(all.begin(), all.end(), [&](const Run& r) {
      return r.kernel == run.kernel && r.arch == run.arch && r.knob_set == run.knob_set &&
             r.workload == run.workload;
    });
    out.push_back(same == all.end() ? run : *same);  // the same matrix holds the same runs
  }
  return {std::move(e), std::move(out)};
}

std::string values_text(const std::vector<double>& v) {
  std::vector<std::string> parts;
  for (double x : v) parts.push_back(fmt::format("{:g}", x));
  return fmt::format("n={}: {}", v.size(), fmt::join(parts, " "));
}

}  // namespace foliolab
