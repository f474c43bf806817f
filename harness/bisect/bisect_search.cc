#include "bisect/bisect_search.h"

#include <bit>
#include <cassert>

namespace foliolab {

BisectSearch::BisectSearch(size_t candidates) : observed_(candidates) { assert(candidates >= 2); }

std::optional<size_t> BisectSearch::next() const {
  if (state_ != BisectState::kRunning) return std::nullopt;
  if (!observed_.front()) return 0;
  if (!observed_.back()) return observed_.size() - 1;
  if (segments_.empty()) return std::nullopt;
  return pick(segments_.front());
}

void BisectSearch::record(size_t index, const BisectObservation& obs) {
  if (index >= observed_.size() || observed_[index]) return;
  observed_[index] = obs;
  if (index != 0 && index + 1 != observed_.size()) ++steps_;
  advance();
}

// The unobserved candidate of a segment nearest its middle (lower first at equal distance), or
// nothing when every candidate inside was observed (skipped).
std::optional<size_t> BisectSearch::pick(const Segment& s) const {
  const size_t mid = s.lo + (s.hi - s.lo) / 2;
  for (size_t d = 0; d < s.hi - s.lo; ++d) {
    for (size_t k : {mid - d, mid + d}) {
      if (k > s.lo && k < s.hi && !observed_[k]) return k;
    }
  }
  return std::nullopt;
}

void BisectSearch::advance() {
  if (state_ != BisectState::kRunning || !observed_.front() || !observed_.back()) return;
  if (!observed_.front()->cls || !observed_.back()->cls) {
    state_ = BisectState::kEndpointSkipped;
    return;
  }
  const size_t last = observed_.size() - 1;
  if (segments_.empty() && culprits_.empty()) {
    if (cls(0) == cls(last)) {
      state_ = BisectState::kDoesNotReproduce;
      return;
    }
    segments_.push_back({0, last});
  }
  while (!segments_.empty()) {
    const Segment s = segments_.front();
    // The decided candidates inside cut the segment; neighbours of one class hold no change
    // (the binary-search assumption), neighbours of two classes are segments of their own.
    std::vector<size_t> cuts{s.lo};
    for (size_t k = s.lo + 1; k < s.hi; ++k) {
      if (observed_[k] && observed_[k]->cls) cuts.push_back(k);
    }
    cuts.push_back(s.hi);
    if (cuts.size() > 2) {
      segments_.erase(segments_.begin());
      std::vector<Segment> parts;
      for (size_t i = 0; i + 1 < cuts.size(); ++i) {
        if (cls(cuts[i]) != cls(cuts[i + 1])) parts.push_back({cuts[i], cuts[i + 1]});
      }
      segments_.insert(segments_.begin(), parts.begin(), parts.end());
      continue;
    }
    if (s.hi - s.lo > 1 && pick(s)) return;  // waits for an observation
    culprits_.push_back({s.lo + 1, s.hi, cls(s.lo), cls(s.hi)});
    segments_.erase(segments_.begin());
  }
  state_ = BisectState::kDone;
}

size_t BisectSearch::steps_left_bound() const {
  if (state_ != BisectState::kRunning) return 0;
  if (segments_.empty()) return std::bit_width(observed_.size() - 2);  // endpoints pending
  size_t n = 0;
  for (const Segment& s : segments_) n += std::bit_width(s.hi - s.lo - 1);
  return n;
}

}  // namespace foliolab
