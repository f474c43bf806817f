// The one fake of the bisection seam (bisect/bisect_driver.h): a truth table of classes, with
// wrong answers, skips and failures injected where a test says.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bisect/bisect_driver.h"

namespace foliolab {

class FakeBisectEvaluator : public BisectEvaluator {
 public:
  // truth(i): the class candidate i really has.
  FakeBisectEvaluator(size_t n, std::function<std::string(size_t)> truth)
      : n_(n), truth_(std::move(truth)) {}

  std::map<size_t, std::string> wrong;  // first observation of i answers this instead
  std::set<size_t> skipped;             // observing i cannot decide
  int fail_after = -1;                  // observe() errors once this many were made (a kill)
  std::vector<size_t> observed;         // every candidate observe() ran, in order
  std::vector<std::pair<size_t, size_t>> confirmed;

  size_t candidates() const override { return n_; }
  std::string describe(size_t i) const override { return fmt::format("candidate {}", i); }
  Result<BisectStep> observe(size_t i) override {
    if (fail_after >= 0 && static_cast<int>(observed.size()) >= fail_after) {
      return make_env_error("killed");
    }
    observed.push_back(i);
    BisectStep s{.candidate = i, .session = fmt::format("s{}", observed.size())};
    if (skipped.count(i)) return s;
    auto w = wrong.find(i);
    s.cls = w != wrong.end() ? w->second : truth_(i);
    if (w != wrong.end()) wrong.erase(w);
    return s;
  }
  // Fresh runs see the truth: confirmed when the culprit and its parent really differ.
  Result<BisectConfirmation> confirm(size_t parent, size_t culprit, int) override {
    confirmed.emplace_back(parent, culprit);
    return BisectConfirmation{.confirmed = truth_(parent) != truth_(culprit),
                              .evidence = truth_(parent) + " -> " + truth_(culprit)};
  }

 private:
  size_t n_;
  std::function<std::string(size_t)> truth_;
};

}  // namespace foliolab
