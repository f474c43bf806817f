#include "analysis/pairing.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <map>
#include <set>

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
    out.push_back(fmt::format("BASE ran on {}, CAND on {}: timings of different hosts do not compare",
                              list(hb), list(hc)));
  }
  for (const auto& [name, hosts] : {std::pair{"BASE", hb}, std::pair{"CAND", hc}}) {
    if (hosts.size() > 1) out.push_back(fmt::format("{}'s runs span {} hosts ({})", name, hosts.size(), list(hosts)));
  }
  const auto ab = values_of(base, accel), ac = values_of(cand, accel);
  if (!ab.empty() && !ac.empty() && ab != ac) {
    out.push_back(fmt::format("BASE ran under {}, CAND under {}: timings of different accelerators do "
                              "not compare",
                              list(ab), list(ac)));
  }
  return out;
}

ComparisonModel compare_sides(const Side& base, const Side& cand, const CompareOptions& options) {
  ComparisonModel m;
  m.kind = "compare";
  m.base = base.label;
  m.candidate = cand.label;
  m.title = fmt::format("{} → {}", base.label, cand.label);
  m.warnings = provenance_warnings(base, cand);
  std::array<bool, kFields> differs{};
  std::string base_name, cand_name;
  for (size_t f = 0; f < kFields; ++f) {
    const auto b = values(base, f), c = values(cand, f);
    differs[f] = b.size() == 1 && c.size() == 1 && *b.begin() != *c.begin();
    if (!differs[f]) continue;
    base_name += (base_name.empty() ? "" : " · ") + *b.begin();
    cand_name += (cand_name.empty() ? "" : " · ") + *c.begin();
  }
  if (base_name.empty()) {
    // Sessions of one experiment: their stamps say enough ("20261130T051430Z").
    auto last = [](const std::string& l) { return l.substr(l.rfind('/') + 1); };
    base_name = last(base.label);
    cand_name = last(cand.label);
  }
  if (base_name == cand_name) {
    base_name = "base";
    cand_name = "cand";
  }
  using Key = std::array<std::string, kFields>;
  auto key_of = [&](const RunRecord& r) {
    Key k = fields_of(r);
    for (size_t f = 0; f < kFields; ++f) {
      if (differs[f]) k[f].clear();
    }
    return k;
  };
  std::map<Key, std::pair<std::vector<const RunRecord*>, std::vector<const RunRecord*>>> pairs;
  std::vector<Key> order;  // base order, then candidate-only keys
  auto add = [&](const Side& side, bool is_base) {
    for (const RunRecord& r : side.records) {
      if (!r.ok()) {
        m.notes.push_back(fmt::format("{} run {} failed ({}): left out", is_base ? "base" : "cand",
                                      r.id.run_id, r.status));
        continue;
      }
      const Key k = key_of(r);
      if (!pairs.count(k)) order.push_back(k);
      auto& slot = pairs[k];
      (is_base ? slot.first : slot.second).push_back(&r);
    }
  };
  add(base, true);
  add(cand, false);
  for (const Key& k : order) {
    const auto& [b, c] = pairs[k];
    std::string title;
    for (size_t f = 1; f < kFields; ++f) {  // the experiment name goes without saying
      if (!k[f].empty()) title += (title.empty() ? "" : " · ") + k[f];
    }
    if (b.empty() || c.empty()) {
      m.notes.push_back(fmt::format("{}: only in {}, not compared", title,
                                    b.empty() ? "the candidate" : "the base"));
      continue;
    }
    GroupRuns g;
    g.title = title;
    g.kernel = k[1];
    g.arch = k[2];
    g.knobs = k[3];
    g.workload = k[4];
    g.variants.push_back({base_name, b, base.session});
    g.variants.push_back({cand_name, c, cand.session});
    m.groups.push_back(compare_group(g, options));
  }
  std::string what;
  for (size_t f = 0; f < kFields; ++f) {
    if (differs[f]) what += (what.empty() ? "" : ", ") + std::string(kFieldNames[f]);
  }
  if (!what.empty()) m.title += " (runs paired across " + what + ")";
  return m;
}

}  // namespace foliolab
