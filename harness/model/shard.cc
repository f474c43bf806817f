#include "model/shard.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <set>

#include "util/hash.h"
#include "util/text.h"

namespace foliolab {
namespace {

bool parse_positive(std::string_view s, int* out) {
  const auto n = parse_uint(s);
  if (!n || *n == 0 || *n > INT_MAX) return false;
  *out = static_cast<int>(*n);
  return true;
}

}  // namespace

std::string Shard::text() const { return fmt::format("{}/{}", index, count); }

Result<Shard> parse_shard(std::string_view text) {
  const size_t slash = text.find('/');
  Shard s;
  if (slash == std::string_view::npos || !parse_positive(text.substr(0, slash), &s.index) ||
      !parse_positive(text.substr(slash + 1), &s.count)) {
    return make_error(
        fmt::format("--shard {}: expected K/N with positive integers (e.g. 2/4)", text));
  }
  if (s.index > s.count) {
    return make_error(fmt::format("--shard {}: K must be between 1 and N ({})", text, s.count));
  }
  return s;
}

std::vector<Run> shard_runs(const std::vector<Run>& plan, const Shard& shard) {
  std::vector<std::string> ids;
  for (const Run& r : plan) ids.push_back(r.id);
  std::sort(ids.begin(), ids.end());
  // Block k (0-based) holds sorted positions [k*M/N, (k+1)*M/N).
  const size_t m = ids.size(), n = static_cast<size_t>(shard.count),
               k = static_cast<size_t>(shard.index - 1);
  const std::set<std::string> mine(ids.begin() + static_cast<std::ptrdiff_t>(k * m / n),
                                   ids.begin() + static_cast<std::ptrdiff_t>((k + 1) * m / n));
  std::vector<Run> out;
  for (const Run& r : plan) {
    if (mine.count(r.id)) out.push_back(r);
  }
  return out;
}

std::string plan_hash(std::vector<std::string> run_ids) {
  std::sort(run_ids.begin(), run_ids.end());
  Hasher h;
  h.add("foliolab plan v1");
  for (const std::string& id : run_ids) h.add(id);
  return h.hex().substr(0, 16);
}

std::string plan_hash(const std::vector<Run>& plan) {
  std::vector<std::string> ids;
  for (const Run& r : plan) ids.push_back(r.id);
  return plan_hash(std::move(ids));
}

}  // namespace foliolab
