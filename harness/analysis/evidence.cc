#include "analysis/evidence.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "model/distribution.h"

namespace foliolab {
namespace {

constexpr size_t kPlotBins = 24;

// Every distribution's name in the group's runs.
std::set<std::string> distribution_names(const GroupRuns& in) {
  std::set<std::string> out;
  for (const VariantRuns& v : in.variants) {
    for (const RunRecord* r : v.runs) {
      for (const Repetition& rep : r->reps) {
        for (const auto& [name, _] : rep.distributions) out.insert(name);
      }
    }
  }
  return out;
}

bool of_distribution(const std::string& metric, const std::set<std::string>& dists) {
  const size_t dot = metric.rfind('.');
  return dot != std::string::npos && dists.contains(metric.substr(0, dot));
}

// Every rep's histogram of `name` in a variant's runs, summed bucket by bucket.
Distribution pooled_distribution(const VariantRuns& v, const std::string& name) {
  std::map<std::pair<double, double>, int64_t> buckets;
  Distribution out;
  for (const RunRecord* r : v.runs) {
    for (const Repetition& rep : r->reps) {
      const auto d = rep.distributions.find(name);
      if (rep.warmup || d == rep.distributions.end()) continue;
      out.unit = d->second.unit;
      out.min = out.count == 0 ? d->second.min : std::min(out.min, d->second.min);
      out.max = out.count == 0 ? d->second.max : std::max(out.max, d->second.max);
      out.count += d->second.count;
      out.sum += d->second.sum;
      for (const DistributionBucket& b : d->second.buckets) buckets[{b.lo, b.hi}] += b.count;
    }
  }
  for (const auto& [range, count] : buckets)
    out.buckets.push_back({range.first, range.second, count});
  return out;
}

// kPlotBins bins over [lo, hi]: log-spaced when lo > 0 and hi spans more than 4 lo.
std::vector<double> plot_edges(double lo, double hi) {
  if (!(hi > lo)) return {lo - 0.5, lo + 0.5};
  std::vector<double> edges;
  const bool log = lo > 0 && hi > 4 * lo;
  for (size_t i = 0; i <= kPlotBins; ++i) {
    const double f = static_cast<double>(i) / kPlotBins;
    edges.push_back(log ? lo * std::pow(hi / lo, f) : lo + (hi - lo) * f);
  }
  edges.back() = hi;
  return edges;
}

// The share of each bin in `edges` of `d`'s values: a bucket's values spread evenly over it.
std::vector<double> bin_fractions(const Distribution& d, const std::vector<double>& edges) {
  std::vector<double> out(edges.size() - 1, 0.0);
  if (d.count <= 0) return out;
  const auto bin_of = [&](double x) {
    const auto it = std::upper_bound(edges.begin(), edges.end(), x);
    const size_t i = it == edges.begin() ? 0 : static_cast<size_t>(it - edges.begin()) - 1;
    return std::min(i, out.size() - 1);
  };
  for (const DistributionBucket& b : d.buckets) {
    const double c = static_cast<double>(b.count) / static_cast<double>(d.count);
    const double lo = std::max(b.lo, d.min), hi = std::min(b.hi, d.max);
    if (!(hi > lo)) {
      out[bin_of(lo)] += c;
      continue;
    }
    for (size_t i = bin_of(lo); i <= bin_of(hi) && i < out.size(); ++i) {
      const double overlap = std::min(hi, edges[i + 1]) - std::max(lo, edges[i]);
      if (overlap > 0) out[i] += c * overlap / (hi - lo);
    }
  }
  return out;
}

DistributionPlot plot_of(const GroupRuns& in, const std::string& name) {
  DistributionPlot p;
  p.metric = name;
  std::vector<Distribution> pooled;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const VariantRuns& v : in.variants) {
    pooled.push_back(pooled_distribution(v, name));
    const Distribution& d = pooled.back();
    if (d.count == 0) continue;
    if (p.unit.empty()) p.unit = d.unit;
    lo = std::min(lo, d.min);
    hi = std::max(hi, d.max);
  }
  if (!std::isfinite(lo)) lo = hi = 0;
  p.edges = plot_edges(lo, hi);
  for (const Distribution& d : pooled) {
    p.fractions.push_back(bin_fractions(d, p.edges));
    std::array<double, 4> q{};
    for (size_t i = 0; i < q.size(); ++i) q[i] = d.quantile(kDistributionQuantiles[i].q);
    p.quantiles.push_back(q);
    p.counts.push_back(d.count);
  }
  return p;
}

// "64K" -> 65536, "2M" -> 2097152; unknown spellings sort last.
double size_order(const std::string& size) {
  size_t used = 0;
  double n = 0;
  try {
    n = std::stod(size, &used);
  } catch (...) {
    return std::numeric_limits<double>::infinity();
  }
  const char unit = used < size.size() ? size[used] : ' ';
  const double scale = unit == 'K' || unit == 'k' ? 1024.0
                       : unit == 'M'              ? 1 << 20
                       : unit == 'G'              ? 1 << 30
                                                  : 1;
  return n * scale;
}

// census.<kind>.<size>.<what> -> {kind, size, what}; false for other shapes.
bool split_census(const std::string& metric, std::string* kind, std::string* size,
                  std::string* what) {
  constexpr std::string_view kPrefix = "census.";
  if (!metric.starts_with(kPrefix)) return false;
  const std::string rest = metric.substr(kPrefix.size());
  const size_t first = rest.find('.'), last = rest.rfind('.');
  if (first == std::string::npos || first == last) return false;
  *kind = rest.substr(0, first);
  *size = rest.substr(first + 1, last - first - 1);
  *what = rest.substr(last + 1);
  return !kind->empty() && !size->empty() && !what->empty();
}

CensusTable census_table(const GroupRuns& in) {
  std::set<std::string> names;
  for (const VariantRuns& v : in.variants) {
    for (const RunRecord* r : v.runs) {
      for (const std::string& n : r->metric_names()) {
        if (n.starts_with("census.")) names.insert(n);
      }
    }
  }
  CensusTable t;
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::string>> cells;
  std::set<std::string> whats;
  for (const std::string& n : names) {
    std::string kind, size, what;
    if (!split_census(n, &kind, &size, &what)) continue;
    cells[{kind, size}][what] = n;
    whats.insert(what);
  }
  t.whats.assign(whats.begin(), whats.end());
  for (const auto& [key, metrics] : cells) {
    CensusTable::Row row{key.first, key.second, {}};
    for (const std::string& what : t.whats) {
      std::vector<double> per_variant;
      for (const VariantRuns& v : in.variants) {
        const auto m = metrics.find(what);
        std::vector<double> values;
        for (const RunRecord* r : v.runs) {
          if (m == metrics.end()) break;
          for (double x : r->samples(m->second)) values.push_back(x);
        }
        per_variant.push_back(values.empty() ? kNoValue : mean(values));
      }
      row.means.push_back(std::move(per_variant));
    }
    t.rows.push_back(std::move(row));
  }
  std::stable_sort(t.rows.begin(), t.rows.end(), [](const auto& a, const auto& b) {
    return a.kind != b.kind ? a.kind < b.kind : size_order(a.size) < size_order(b.size);
  });
  return t;
}

}  // namespace

bool is_evidence_name(const std::string& metric) {
  for (const char* prefix : {"event.", "kprobe.", "func.", "census."}) {
    if (metric.starts_with(prefix)) return true;
  }
  return false;
}

double change_size(const MetricRow& row) {
  double size = 0;
  for (const std::optional<Delta>& d : row.deltas) {
    if (!d) continue;
    if (std::isfinite(d->rel_change)) {
      size = std::max(size, std::fabs(d->rel_change));
    } else if (std::isfinite(d->diff) && d->diff != 0) {
      size = std::numeric_limits<double>::infinity();  // from zero
    }
  }
  return size;
}

EvidenceSection evidence_section(const GroupRuns& in, std::vector<MetricRow>& rows) {
  EvidenceSection s;
  const std::set<std::string> dists = distribution_names(in);
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].evidence = is_evidence_name(rows[i].metric) || of_distribution(rows[i].metric, dists);
    if (rows[i].evidence) s.ranked.push_back(i);
  }
  std::stable_sort(s.ranked.begin(), s.ranked.end(),
                   [&](size_t a, size_t b) { return change_size(rows[a]) > change_size(rows[b]); });
  for (const std::string& name : dists) s.plots.push_back(plot_of(in, name));
  s.census = census_table(in);
  return s;
}

}  // namespace foliolab
