#include "analysis/machine_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "util/text.h"

namespace foliolab {
namespace {

// What a run's preparation reached, in the terms the warnings compare.
struct Reached {
  std::string steps;                // "fragment thpscale, swap zram" ("" = a fresh guest)
  std::optional<int64_t> unusable;  // the last fragment step's index after it, 1/1000
  std::optional<int64_t> swap_kb;   // the swap the guest had
};

Reached reached(const RunRecord& r) {
  Reached out;
  std::vector<std::string> names;
  for (const PreparedStep& s : r.prepared) {
    const std::string* method = s.find("method");
    const std::string* type = s.find("type");
    names.push_back(s.step + (method ? " " + *method : type ? " " + *type : ""));
    if (s.step == "fragment") {
      if (const std::string* u = s.find("unusable_after")) {
        if (auto n = parse_int(*u)) out.unusable = *n;
      }
    }
    if (s.step == "swap") {
      if (const std::string* kb = s.find("swap_total_kb")) {
        if (auto n = parse_int(*kb)) out.swap_kb = *n;
      }
    }
  }
  out.steps = join(names, ", ");
  return out;
}

std::string index_text(int64_t permille) { return fmt::format("{:.3f}", permille / 1000.0); }

}  // namespace

std::vector<MonitorPlot> monitor_plots(const GroupRuns& in) {
  std::map<std::string, MonitorPlot> plots;
  std::vector<std::string> order;
  for (size_t v = 0; v < in.variants.size(); ++v) {
    for (const RunRecord* r : in.variants[v].runs) {
      for (const Repetition& rep : r->reps) {
        const MonitorSeries& m = rep.monitor;
        for (size_t c = 0; c < m.counters.size() && c < m.values.size(); ++c) {
          auto [it, added] = plots.try_emplace(m.counters[c], MonitorPlot{m.counters[c], {}});
          if (added) order.push_back(m.counters[c]);
          it->second.traces.push_back(
              {fmt::format("{} {} rep {}", in.variants[v].label, r->id.run_id, rep.rep), v, m.t_ms,
               m.values[c]});
        }
      }
    }
  }
  std::vector<MonitorPlot> out;
  for (const std::string& name : order) out.push_back(std::move(plots.at(name)));
  return out;
}

std::vector<std::string> state_warnings(const GroupRuns& in) {
  std::vector<std::string> out;
  std::optional<std::pair<std::string, Reached>> first;
  for (const VariantRuns& v : in.variants) {
    for (const RunRecord* r : v.runs) {
      Reached s = reached(*r);
      if (!first) {
        first = {v.label, s};
        continue;
      }
      const auto& [label0, s0] = *first;
      if (s.steps != s0.steps) {
        out.push_back(fmt::format("machine states differ: {} was prepared by [{}], {} by [{}]",
                                  label0, s0.steps.empty() ? "nothing" : s0.steps, v.label,
                                  s.steps.empty() ? "nothing" : s.steps));
      } else if (s.unusable && s0.unusable &&
                 std::abs(*s.unusable - *s0.unusable) > kStateIndexTolerance) {
        out.push_back(fmt::format(
            "machine states differ: the fragmentation reached an unusable index of {} in {} "
            "and {} in {} (tolerance {})",
            index_text(*s0.unusable), label0, index_text(*s.unusable), v.label,
            index_text(kStateIndexTolerance)));
      } else if (s.swap_kb != s0.swap_kb) {
        out.push_back(fmt::format("machine states differ: {} kB of swap in {}, {} kB in {}",
                                  s0.swap_kb.value_or(0), label0, s.swap_kb.value_or(0), v.label));
      } else {
        continue;
      }
      return out;  // one warning says it; the runs' records have the rest
    }
  }
  return out;
}

bool fragmented_runs(const VariantRuns& v) {
  return std::any_of(v.runs.begin(), v.runs.end(), [](const RunRecord* r) {
    return std::any_of(r->prepared.begin(), r->prepared.end(),
                       [](const PreparedStep& s) { return s.step == "fragment"; });
  });
}

std::string fragmented_note(const GroupRuns& in) {
  std::vector<std::string> labels;
  for (const VariantRuns& v : in.variants) {
    if (fragmented_runs(v)) labels.push_back(v.label);
  }
  if (labels.empty()) return "";
  return fmt::format(
      "fragmented guests ({}): each boot's layout differs and the reps of one boot meet the same "
      "one, so counts are compared boot against boot (a run's mean is one sample) by the rank "
      "test alone, which needs 4 boots a side (4 sessions)",
      join(labels, ", "));
}

}  // namespace foliolab
