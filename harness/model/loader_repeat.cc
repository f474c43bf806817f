// The experiment loader: `repeat` (a count, or a map for adaptive repetitions) and `warmup`.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "model/file_keys.h"
#include "model/loader.h"
#include "model/loader_internal.h"
#include "util/text.h"

namespace foliolab {
namespace loader_internal {
namespace {

constexpr int kDefaultMin = 3, kDefaultMax = 30;
constexpr int kMaxWarmup = 100;

}  // namespace

// A plain count above kMaxRepeat is refused at plan (catalog/plan_limits.h); a map's max here.
Result<int> Parser::read_repeat_count(const Field& f) const {
  auto n = read_int(f);
  FL_TRY(n);
  if (*n < 2) {
    return error(f, "must be at least 2 (no aggregate from fewer than 2 samples), got " +
                        std::to_string(*n));
  }
  return static_cast<int>(*n);
}

// `repeat: 5`, or `repeat: {min: 3, max: 30, ci: 2%}` (min and max optional, ci required).
Result<void> Parser::parse_repeat(const Field& f, Experiment* exp) const {
  exp->repeat_loc = loc(f);
  if (!f.value.IsMap()) {
    auto n = read_repeat_count(f);
    FL_TRY(n);
    exp->repeat = *n;
    return {};
  }
  auto fields = read_map(f, &file_keys::adaptive_repeat().names());
  FL_TRY(fields);
  FL_TRY(require(*fields, f, file_keys::adaptive_repeat().required()));
  AdaptiveRepeat a{.max = kDefaultMax};
  exp->repeat = kDefaultMin;
  if (const Field* m = fields->find("min")) {
    auto n = read_repeat_count(*m);
    FL_TRY(n);
    exp->repeat = *n;
    exp->repeat_loc = loc(*m);
  }
  const Field* max = fields->find("max");
  if (max) {
    auto n = read_repeat_count(*max);
    FL_TRY(n);
    a.max = *n;
    a.max_loc = loc(*max);
  }
  if (a.max > kMaxRepeat) {
    return error(*max, fmt::format("at most {} repetitions per run, got {}", kMaxRepeat, a.max));
  }
  if (a.max < exp->repeat) {
    return error(max ? *max : f, fmt::format("max {} is below min {}", a.max, exp->repeat));
  }
  const Field& ci = *fields->find("ci");
  auto text = read_scalar(ci);
  FL_TRY(text);
  auto fraction = parse_ci_percent(*text);
  if (!fraction) {
    return error(ci,
                 "expected the target half-width of the 95 % CI as a percentage of the "
                 "mean in (0, 100 %), such as 2%, got '" +
                     *text + "'");
  }
  a.ci = *fraction;
  exp->adaptive = a;
  return {};
}

Result<void> Parser::parse_warmup(const Field& f, Experiment* exp) const {
  auto n = read_int(f);
  FL_TRY(n);
  if (*n < 0 || *n > kMaxWarmup) {
    return error(f, fmt::format("warm-up reps per boot: 0..{}, got {}", kMaxWarmup, *n));
  }
  exp->warmup = static_cast<int>(*n);
  return {};
}

}  // namespace loader_internal

std::optional<double> parse_ci_percent(std::string_view text) {
  text = trim(text);
  if (!text.ends_with('%')) return std::nullopt;
  const auto pct = parse_double(trim(text.substr(0, text.size() - 1)));
  if (!pct || !std::isfinite(*pct) || *pct <= 0 || *pct >= 100) return std::nullopt;
  return *pct / 100;
}

Result<void> apply_repeat_until_ci(Experiment& exp, const std::string& percent) {
  if (percent.empty()) return {};
  const auto ci = parse_ci_percent(percent);
  if (!ci) {
    return make_error("--repeat-until-ci " + percent +
                      ": expected a percentage of the mean in (0, 100 %), such as 2%");
  }
  // A plain count (3 when the file has none) stays the minimum: the run ids stay the file's.
  if (!exp.adaptive)
    exp.adaptive = AdaptiveRepeat{.max = std::max(loader_internal::kDefaultMax, exp.repeat)};
  exp.adaptive->ci = *ci;
  return {};
}

}  // namespace foliolab
