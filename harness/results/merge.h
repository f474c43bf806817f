// `foliolab merge ROOT… --into ROOT`: joins the sessions of one plan that ran apart (the shards
// of `run --shard K/N` under Slurm or a CI matrix, or whole sessions on several hosts) into one
// new session under the target root, which reads like any session (report, compare, gate,
// history, index rebuild).
//
// - Only sessions of one experiment and one plan (model/shard.h plan_hash) merge; anything else
//   is refused with an error naming both sessions.
// - A run in several inputs is kept once. Byte-identical records are plain duplicates. Records
//   that differ are a conflict, reported, and resolved the same way every time: an ok record
//   beats a failed one, then the one that finished later, then the one from the session whose
//   path sorts first.
// - Every record keeps its own provenance (the host it ran on); plan.json lists the inputs
//   with their shard, hosts and run counts.
// - Inputs are only read. The new session is assembled in a hidden directory beside its final
//   place and renamed into place, so it appears whole or not at all.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "util/result.h"

namespace foliolab {

struct MergeReport {
  std::filesystem::path session;  // the new session directory
  std::string experiment, plan_hash;
  int plan_runs = 0;  // runs in the whole plan
  int runs = 0;       // runs in the merged session
  int identical_duplicates = 0;
  std::vector<std::string> conflicts;  // one line per run whose records differ: which was kept
  std::vector<std::string> missing;    // planned run ids that no input has
  std::vector<std::string> notes;      // records left out, differing experiment files, ...
  std::map<std::string, int> runs_per_host;  // hostname -> runs in the merged session
};

// The sessions named by `inputs`: an input that is a session directory is itself, any other is
// a results root whose <experiment>/<stamp> sessions are all taken. Sorted, without repeats;
// an input with no session is an error.
Result<std::vector<std::filesystem::path>> find_sessions(
    const std::vector<std::filesystem::path>& inputs);

Result<MergeReport> merge_sessions(const std::vector<std::filesystem::path>& sessions,
                                   const std::filesystem::path& into_root);

}  // namespace foliolab
