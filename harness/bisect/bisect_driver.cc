#include "bisect/bisect_driver.h"

#include <fmt/format.h>

#include <algorithm>

namespace foliolab {
namespace {

// The search's observations so far: the log's, replayed in order, then new ones.
Result<void> search(BisectEvaluator& eval, BisectLog& log, const BisectHooks& hooks,
                    BisectSearch& s, BisectOutcome& out) {
  for (const BisectStep& step : log.steps()) {
    if (step.candidate >= s.candidates()) {
      return make_error(fmt::format("bisection log names candidate {} of {}: not this bisection",
                                    step.candidate, s.candidates()));
    }
    eval.restore(step);
    s.record(step.candidate, {step.cls});
    out.steps.push_back(step);
    ++out.replayed;
  }
  while (auto i = s.next()) {
    auto step = eval.observe(*i);
    if (!step.ok()) return in_context(eval.describe(*i), step.error());
    step->candidate = *i;
    FL_TRY(log.append(*step));
    s.record(*i, {step->cls});
    out.steps.push_back(*step);
    if (hooks.on_step) hooks.on_step(*step, s.steps(), s.steps() + s.steps_left_bound());
  }
  return {};
}

// A logged confirmation of the same pair is reused (a resumed bisection).
Result<BisectConfirmation> confirmation(BisectEvaluator& eval, BisectLog& log, size_t parent,
                                        size_t culprit, int runs) {
  for (const BisectConfirmation& c : log.confirmations()) {
    if (c.parent == parent && c.culprit == culprit) return c;
  }
  auto c = eval.confirm(parent, culprit, runs);
  if (!c.ok()) return in_context("confirming " + eval.describe(culprit), c.error());
  c->parent = parent;
  c->culprit = culprit;
  FL_TRY(log.append(*c));
  return c;
}

}  // namespace

Result<BisectOutcome> run_bisect(BisectEvaluator& eval, BisectLog& log, int confirm_runs,
                                 const BisectHooks& hooks) {
  BisectOutcome out;
  BisectSearch s(eval.candidates());
  FL_TRY(search(eval, log, hooks, s, out));
  out.state = s.state();
  out.culprits = s.culprits();
  if (out.state != BisectState::kDone || confirm_runs <= 0) return out;
  for (const BisectCulprit& c : out.culprits) {
    if (!c.exact()) continue;
    auto conf = confirmation(eval, log, c.first - 1, c.first, confirm_runs);
    if (!conf.ok()) return conf.error();
    if (hooks.on_confirm) hooks.on_confirm(*conf);
    out.confirmations.push_back(std::move(*conf));
  }
  return out;
}

}  // namespace foliolab
