// Shards: `foliolab run --shard K/N` runs the K-th of N slices of an experiment's plan, so that
// a scheduler a lab already has (a Slurm array job, a CI job matrix) spreads one matrix over
// many machines; `foliolab merge` (results/merge.h) puts the slices back into one session.
//
// A slice is a contiguous block of the plan's run ids in sorted order; block sizes differ by at
// most one. It depends on the set of run ids only (not on -j, --resume, the host or the order of
// YAML lists), every run is in exactly one shard, and since run ids start with
// "<arch>.<kernel>." a block needs few (kernel, arch) builds. A plan with fewer runs than shards
// leaves some shards empty.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

struct Shard {
  int index = 1;             // K, 1-based
  int count = 1;             // N
  std::string text() const;  // "K/N"
  bool operator==(const Shard&) const = default;
};

// "K/N" with 1 <= K <= N; anything else is an error saying what is wrong.
Result<Shard> parse_shard(std::string_view text);

// The runs of `shard`, in plan order.
std::vector<Run> shard_runs(const std::vector<Run>& plan, const Shard& shard);

// A plan's fingerprint: the first 16 hex digits of SHA-256 over its sorted run ids (which hash
// everything that decides a run). Two sessions ran the same plan exactly when these are equal.
std::string plan_hash(std::vector<std::string> run_ids);
std::string plan_hash(const std::vector<Run>& plan);

}  // namespace foliolab
