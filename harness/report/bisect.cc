#include "report/bisect.h"

#include <fmt/format.h>

#include <algorithm>

namespace foliolab {
namespace {

std::string answer(const BisectOutcome& out, const std::vector<std::string>& names) {
  switch (out.state) {
    case BisectState::kDoesNotReproduce:
      return "does not reproduce: the good and the bad end measure the same";
    case BisectState::kEndpointSkipped:
      return "cannot start: an end could not be measured (see its row)";
    case BisectState::kRunning:
      return "not finished";
    case BisectState::kDone:
      break;
  }
  std::string s;
  size_t k = 0;
  for (const BisectCulprit& c : out.culprits) {
    if (!s.empty()) s += "; ";
    if (!c.exact()) {
      s += fmt::format("the change ({} → {}) is one of {} … {}: the steps between were skipped",
                       c.from, c.to, names[c.first], names[c.last]);
      continue;
    }
    const bool confirmed = k < out.confirmations.size() && out.confirmations[k++].confirmed;
    s += fmt::format("culprit {} ({} → {}), {}", names[c.first], c.from, c.to,
                     confirmed ? "confirmed" : "UNCONFIRMED");
  }
  return s;
}

}  // namespace

std::string bisect_step_line(const BisectStep& step, const std::string& candidate, size_t k,
                             size_t bound) {
  const std::string what = k == 0 ? "[end]" : fmt::format("[step {}/{}]", k, bound);
  return fmt::format("{} {}: {} ({})", what, candidate, step.evidence,
                     step.cls.value_or("skipped"));
}

std::string bisect_text(const BisectTitle& title, const BisectOutcome& out,
                        const std::vector<std::string>& names) {
  std::string s =
      fmt::format("bisect {} over {}{}: {}\n", title.metric, title.candidates,
                  title.where.empty() ? "" : " (" + title.where + ")", answer(out, names));
  std::vector<BisectStep> rows = out.steps;
  std::stable_sort(rows.begin(), rows.end(), [](const BisectStep& a, const BisectStep& b) {
    return a.candidate < b.candidate;
  });
  size_t width = 9;
  for (const BisectStep& r : rows) width = std::max(width, names[r.candidate].size());
  s += fmt::format("  {:<{}}  {:<8}  {}\n", "candidate", width, "class", "values · session");
  for (const BisectStep& r : rows) {
    s +=
        fmt::format("  {:<{}}  {:<8}  {}{}\n", names[r.candidate], width, r.cls.value_or("skipped"),
                    r.evidence, r.session.empty() ? "" : " · " + r.session);
  }
  for (const BisectConfirmation& c : out.confirmations) {
    s += fmt::format("confirmation, {} fresh session(s): {}: {}\n", c.sessions.size(), c.evidence,
                     c.confirmed ? "confirmed" : "not confirmed");
  }
  return s;
}

}  // namespace foliolab
