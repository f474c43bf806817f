// The guest's kernel evidence records (docs/guest-protocol.md `evidence`, `function-profile`;
// docs/evidence.md): per rep, the counts of the events, kprobes and profiled functions the job
// asked for, as count metrics beside the counter deltas (RepResult::deltas):
// `event.<system>:<event>`, `event.<system>:<event>[<field>=<value>]`, `kprobe.<function>`,
// `func.<function>`. Guest output is untrusted: names are bounded and checked, values must be
// non-negative integers; anything else is a problem.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/experiment.h"  // KeyValues

namespace foliolab {

// At most this many counts of one `evidence` record, and profile rows kept of one rep.
inline constexpr size_t kMaxEvidenceCounts = 4096;
inline constexpr size_t kMaxProfileRows = 100000;

// Whether `name` is an evidence metric (event., kprobe., func. and a name of
// [A-Za-z0-9_.:=\[\]-]).
bool is_evidence_metric(std::string_view name);

// The counts of an `evidence` record (its `rep` key aside) into *counts; a key that is not an
// evidence metric or a value that is not a count is a problem naming `where`.
void read_evidence_counts(const KeyValues& kv, const std::string& where,
                          std::map<std::string, int64_t>* counts,
                          std::vector<std::string>* problems);

// A `function-profile` record as the text kept in the run folder ("<function> <hits>" a line,
// by hits); its rows that do not read are problems.
std::string profile_text(const KeyValues& kv, const std::string& where,
                         std::vector<std::string>* problems);

}  // namespace foliolab
