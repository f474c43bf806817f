#include "analysis/pairing.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <map>
#include <set>

#include "results/store.h"
#include "util/text.h"

namespace foliolab {
namespace {

constexpr size_t kFields = 5;
constexpr std::array<const char*, kFields> kFieldNames = {"experiment", "kernel", "arch", "knobs",
                                                          "workload"};

std::array<std::string, kFields> fields_of(const RunRecord& r) {
  return {r.id.experiment, r.id.kernel.name, r.id.arch, r.id.knob_set.name, r.id.workload.label};
}

// One field of the ok runs of a side.
template <class Get>
std::set<std::string> values_of(const Side& s, Get get) {
  std::set<std::string> out;
  for (const RunRecord& r : s.records) {
    if (r.ok()) out.insert(get(r));
  }
  return out;
}

std::set<std::string> values(const Side& s, size_t f) {
  return values_of(s, [f](const RunRecord& r) { return fields_of(r)[f]; });
}

}  // namespace

std::vector<std::string> provenance_warnings(const Side& base, const Side& cand) {
  std::vector<std::string> out;
  auto list = [](const std::set<std::string>& v) { return fmt::format("{}", fmt::join(v, ", ")); };
  auto host = [](const RunRecord& r) { return r.provenance.host.hostname; };
  auto accel = [](const RunRecord& r) { return r.provenance.accel; };
  const auto hb = values_of(base, host), hc = values_of(cand, host);
  if (!hb.empty() && !hc.empty() && hb != hc) {
    out.push_back(
        fmt::format("BASE ran on {}, CAND on {}: timings of different hosts do not compare",
                    list(hb), list(hc)));
  }
  for (const auto& [name, hosts] : {std::pair{"BASE", hb}, std::pair{"CAND", hc}}) {
    if (hosts.size() > 1)
      out.push_back(fmt::format("{}'s runs span {} hosts ({})", name, hosts.size(), list(hosts)));
  }
  const auto ab = values_of(base, accel), ac = values_of(cand, accel);
  if (!ab.empty() && !ac.empty() && ab != ac) {
    out.push_back(
        fmt::format("BASE ran under {}, CAND under {}: timings of different accelerators do "
                    "not compare",
                    list(ab), list(ac)));
  }
  return out;
}

namespace {

using Key = std::array<std::string, kFields>;
using Differs = std::array<bool, kFields>;

// The fields both sides hold one, different value of (the runs are paired across them), and
// the variant names that follow.
struct Naming {
  Differs differs{};
  std::string base, cand;
};

Naming name_sides(const Side& base, const Side& cand) {
  Naming n;
  for (size_t f = 0; f < kFields; ++f) {
    const auto b = values(base, f), c = values(cand, f);
    n.differs[f] = b.size() == 1 && c.size() == 1 && *b.begin() != *c.begin();
    if (!n.differs[f]) continue;
    n.base += (n.base.empty() ? "" : " · ") + *b.begin();
    n.cand += (n.cand.empty() ? "" : " · ") + *c.begin();
  }
  if (n.base.empty()) {
    // Sessions of one experiment: their stamps say enough ("20261130T051430Z").
    auto last = [](const std::string& l) { return l.substr(l.rfind('/') + 1); };
    n.base = last(base.label);
    n.cand = last(cand.label);
  }
  if (n.base == n.cand) {
    n.base = "base";
    n.cand = "cand";
  }
  return n;
}

// The ok runs of both sides by their identity without the differing fields, in base order
// then candidate-only keys; failed runs are noted and left out.
struct Pairs {
  std::map<Key, std::pair<std::vector<const RunRecord*>, std::vector<const RunRecord*>>> runs;
  std::vector<Key> order;
};

void add_side(const Side& side, bool is_base, const Differs& differs, Pairs* pairs,
              std::vector<std::string>* notes) {
  for (const RunRecord& r : side.records) {
    if (!r.ok()) {
      notes->push_back(fmt::format("{} run {} failed ({}): left out", is_base ? "base" : "cand",
                                   r.id.run_id, r.status));
      continue;
    }
    Key k = fields_of(r);
    for (size_t f = 0; f < kFields; ++f) {
      if (differs[f]) k[f].clear();
    }
    if (!pairs->runs.count(k)) pairs->order.push_back(k);
    auto& slot = pairs->runs[k];
    (is_base ? slot.first : slot.second).push_back(&r);
  }
}

std::string key_title(const Key& k) {
  std::vector<std::string> parts;
  for (size_t f = 1; f < kFields; ++f) {  // the experiment name goes without saying
    if (!k[f].empty()) parts.push_back(k[f]);
  }
  return join(parts, " · ");
}

}  // namespace

ComparisonModel compare_sides(const Side& base, const Side& cand, const CompareOptions& options) {
  ComparisonModel m;
  m.kind = "compare";
  m.base = base.label;
  m.candidate = cand.label;
  m.title = fmt::format("{} → {}", base.label, cand.label);
  m.warnings = provenance_warnings(base, cand);
  const Naming names = name_sides(base, cand);
  Pairs pairs;
  add_side(base, true, names.differs, &pairs, &m.notes);
  add_side(cand, false, names.differs, &pairs, &m.notes);
  for (const Key& k : pairs.order) {
    const auto& [b, c] = pairs.runs[k];
    const std::string title = key_title(k);
    if (b.empty() || c.empty()) {
      m.notes.push_back(fmt::format("{}: only in {}, not compared", title,
                                    b.empty() ? "the candidate" : "the base"));
      continue;
    }
    GroupRuns g{.title = title, .kernel = k[1], .arch = k[2], .workload = k[4], .knobs = k[3]};
    g.variants.push_back({names.base, b, base.session});
    g.variants.push_back({names.cand, c, cand.session});
    m.groups.push_back(compare_group(g, options));
  }
  std::vector<std::string> paired_across;
  for (size_t f = 0; f < kFields; ++f) {
    if (names.differs[f]) paired_across.push_back(kFieldNames[f]);
  }
  if (!paired_across.empty()) m.title += " (runs paired across " + join(paired_across, ", ") + ")";
  return m;
}

namespace {

bool keep(const RunRecord& r, const RunQuery& q) {
  return (q.kernel.empty() || q.kernel == r.id.kernel.name) &&
         (q.arch.empty() || q.arch == r.id.arch) &&
         (q.knobs.empty() || q.knobs == r.id.knob_set.name) &&
         (q.workload.empty() || q.workload == r.id.workload.label) &&
         (q.experiment.empty() || q.experiment == r.id.experiment);
}

}  // namespace

Result<Side> session_side(const std::filesystem::path& dir, const RunQuery& where) {
  auto store = ResultStore::open(dir);
  if (!store.ok()) return store.error();
  auto records = store->load_all();
  if (!records.ok()) return records.error();
  Side side;
  side.label =
      store->dir().parent_path().filename().string() + "/" + store->dir().filename().string();
  side.session = side.label;
  for (RunRecord& r : *records) {
    if (keep(r, where)) side.records.push_back(std::move(r));
  }
  return side;
}

}  // namespace foliolab
