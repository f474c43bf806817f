// The decisions of `foliolab bisect`, apart from running anything: an ordered list of
// candidates 0..N-1 (the prefixes of a patch series, the commits of a range, the knob sets of an
// experiment), candidate 0 the good end and N-1 the bad end. The search asks for observations
// one at a time (`next`), is told what each showed (`record`), and ends with the places where the
// observed class changes. A driver loops next → observe → log → record, like ninja's build loop
// over a plan; because the search is a pure function of its observations, replaying a log of
// them (`bisect resume`) puts it back exactly where it stopped.
//
// Observations are classes: two candidates with the same class behave the same for the metric
// (counts: the same value within its practical threshold; timings: the sequential test's
// "like good" / "like bad"). A class that is neither endpoint's ("partial") splits the segment
// in two and both halves are searched, so several culprits are found. An observation that could
// not be decided is a skip: the search tries the nearest other candidate in the segment, as
// `git bisect skip` does, and when every candidate of a segment is skipped it reports the range.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace foliolab {

struct BisectObservation {
  std::optional<std::string> cls;  // nullopt: skipped (could not be decided)
  static BisectObservation skip() { return {}; }
  static BisectObservation of(std::string c) { return {std::move(c)}; }
};

// A change found by the search: the class moves between `first` - 1 and `first`. When
// skipped candidates hide the exact place, `first` < `last` and the change is somewhere in
// first..last (each a candidate index).
struct BisectCulprit {
  size_t first = 0, last = 0;
  std::string from, to;  // classes before and after
  bool exact() const { return first == last; }
};

enum class BisectState {
  kRunning,
  kDoesNotReproduce,  // the endpoints fell into one class
  kEndpointSkipped,   // an endpoint could not be decided
  kDone,              // culprits() holds the changes
};

class BisectSearch {
 public:
  explicit BisectSearch(size_t candidates);  // at least 2

  // The candidate to observe next; nullopt once the search has ended (state() != kRunning).
  // Asks for the good end, then the bad end, then the segments, oldest first.
  std::optional<size_t> next() const;
  // What candidate `index` showed. Recording a candidate not asked for is allowed (a replayed
  // log, a confirmation); recording the same one twice keeps the first observation.
  void record(size_t index, const BisectObservation& obs);

  BisectState state() const { return state_; }
  const std::vector<BisectCulprit>& culprits() const { return culprits_; }
  size_t candidates() const { return observed_.size(); }
  // Candidates observed after the two endpoints (the "steps" of the evidence table).
  size_t steps() const { return steps_; }
  // Upper bound of the steps still needed when each segment holds one culprit.
  size_t steps_left_bound() const;
  const std::optional<BisectObservation>& observed(size_t index) const { return observed_[index]; }

 private:
  struct Segment {
    size_t lo, hi;  // observed, different classes, lo < hi
  };
  void advance();
  std::optional<size_t> pick(const Segment& s) const;
  const std::string& cls(size_t i) const { return *observed_[i]->cls; }

  std::vector<std::optional<BisectObservation>> observed_;
  std::vector<Segment> segments_;  // still open; front first
  std::vector<BisectCulprit> culprits_;
  BisectState state_ = BisectState::kRunning;
  size_t steps_ = 0;
};

}  // namespace foliolab
