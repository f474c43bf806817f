// Interprets a guest record stream (docs/guest-protocol.md) into a RunReport: what the guest
// was, which knobs it found and set, per-repetition counters, deltas and workload metrics, and
// whether the run counts as successful.
//
// Guest output is untrusted: every field is bounded, nothing here throws on bad input; anything
// that does not parse becomes a problem (and makes the run `failed`).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/repeat_plan.h"
#include "catalog/repeat_rule.h"
#include "model/distribution.h"
#include "model/experiment.h"  // KeyValues
#include "protocol/census_record.h"
#include "protocol/guest_text.h"
#include "protocol/output_adapter.h"
#include "protocol/record_stream.h"
#include "util/result.h"

namespace foliolab {

struct GuestHello {
  std::string agent_version;
  std::string release;  // uname -r
  std::string version;  // uname -v
  std::string machine;  // uname -m
  int64_t page_size = 0;
  int64_t nr_cpus = 0;
  int64_t mem_total_kb = 0;
  std::string cmdline;
};

struct KnobSetResult {
  std::string path;  // relative to /sys/kernel/mm/transparent_hugepage/
  std::string requested;
  std::string readback;  // selected value ([bracketed] word for choice files)
  std::string raw;
  std::string status;  // ok / missing / write-failed / mismatch
  std::string error;   // strerror, if any
};

struct GuestError {
  std::string stage;
  std::string message;
};

struct RepResult {
  int rep = 0;
  bool has_before = false;
  bool has_after = false;
  std::map<std::string, int64_t> counters_before;
  std::map<std::string, int64_t> counters_after;
  std::map<std::string, int64_t> deltas;  // after - before, for counters present in both
  // The machine's state around the rep (`state` records: buddy.*, unusable.*, extfrag.*,
  // pagetype.*, pageblocks.*, swap.*, zram.*, memcg.*), as values, not deltas.
  std::map<std::string, int64_t> state_before, state_after;
  MonitorSeries monitor;  // `monitor` record (machine.monitor), empty without one
  // `evidence:`'s counts are in `deltas` (protocol/evidence_record.h); the function profile,
  // "<function> <hits>" a line by hits, is kept whole beside run.json.
  std::string function_profile;
  // `census` records (evidence.census): the census of each mapping at the workload's peak; the
  // first census's totals are in `metrics` as census.* (protocol/census_record.h).
  std::vector<CensusMapping> census;
  std::map<std::string, double> census_metrics;  // census.*, joined to `metrics` at the end
  // Distribution metrics: the guest's `dist` records (protocol/dist_record.h) and the workload
  // output's (`aggregate: distribution`).
  std::map<std::string, Distribution> distributions;

  bool has_workload = false;
  bool warmup = false;  // the workload record said `warmup 1`: in no statistic
  std::string workload;
  int64_t exit_status = -1;
  int64_t signal = 0;
  int64_t wall_ns = 0;

  bool has_stdout = false;
  std::string stdout_text;  // first kMaxStoredStdout bytes
  bool stdout_truncated = false;
  // Read with the workload's output adapter (protocol/output_adapter.h).
  OutputFormat format = OutputFormat::kFoliolab;
  std::map<std::string, double> metrics;
  bool ok_marker = false;    // FOLIOLAB-WORKLOAD-OK seen
  bool fail_marker = false;  // FOLIOLAB-WORKLOAD-FAIL seen
  std::string fail_reason;
  std::vector<SubtestOutcome> tests;  // TAP
  bool bailed_out = false;
  std::string bail_reason;
  std::string violation;  // the output broke its format's contract

  // workload_failure() of its output is empty (exit status, signal, markers, contract).
  bool succeeded() const;
};

struct RunReport {
  bool ok = false;     // see interpret_records
  std::string reason;  // human reason when !ok, empty when ok

  bool has_hello = false;
  GuestHello hello;
  KeyValues knobs_initial;  // as found, in the agent's order
  KeyValues knobs_final;    // after setting
  std::vector<KnobSetResult> knob_sets;
  std::vector<PreparedStep> prepared;  // `prepare` records in order (swap, cgroup, fragment, ...)
  std::vector<RepResult> reps;         // sorted by rep number, warm-up reps first
  // The agent's repeat-stop record (adaptive repetitions), or the host's account of a fixed
  // count (only when the reps were checked against a plan).
  std::optional<RepeatStop> repeat_stop;
  std::vector<GuestError> errors;
  std::string done_status;  // "" when no done record arrived

  size_t records = 0;  // valid records seen
  std::string damage;  // stream damage, empty if clean
  size_t damage_offset = 0;
  std::vector<std::string> problems;  // host-side interpretation problems (bad numbers, ...)
};

// Bounds on what we keep from a guest.
inline constexpr size_t kMaxReps = 10000;
inline constexpr size_t kMaxStoredStdout = 64 * 1024;
inline constexpr size_t kMaxMetricsPerRep = 1024;
inline constexpr size_t kMaxErrors = 100;
inline constexpr size_t kMaxProblems = 100;
inline constexpr size_t kMaxFieldLen = kMaxGuestField;
inline constexpr size_t kMaxKnobs = 4096;
inline constexpr size_t kMaxPrepared = 64;       // `prepare` records
inline constexpr size_t kMaxStateValues = 8192;  // values of one `state` record

// The run is ok only if: the stream is undamaged, a `done status=ok` record arrived (last), no
// `error` record, at least one rep, every rep has counters before/after and a workload that
// succeeded(), every knob-set has status ok, and nothing failed to parse. Otherwise `reason` holds
// the most telling cause: first error record, then stream damage / missing done, then per-rep
// failures, then interpretation problems. expected_reps < 0: do not check the rep count.
// `adapter` reads the workload's stdout.
RunReport interpret_records(const ParsedStream& stream, int expected_reps = -1,
                            const OutputAdapter& adapter = {});
// The same with the reps checked against the run's plan (catalog/repeat_plan.h): warm-up reps
// first and marked, `min` measured reps for a fixed count, and for adaptive repetitions a
// repeat-stop record whose count, reason and half-widths the host's rule
// (catalog/repeat_rule.h) recomputes from the reps.
RunReport interpret_records(const ParsedStream& stream, const RepeatPlan& plan,
                            const OutputAdapter& adapter = {});

// parse_records + interpret_records.
RunReport parse_run_report(std::string_view bytes, int expected_reps = -1,
                           const OutputAdapter& adapter = {});
RunReport parse_run_report(std::string_view bytes, const RepeatPlan& plan,
                           const OutputAdapter& adapter = {});

// Parses workload stdout into `rep` (metrics, markers, tests). Exposed for tests.
void parse_workload_stdout(std::string_view text, RepResult& rep,
                           std::vector<std::string>& problems, const OutputAdapter& adapter = {});

}  // namespace foliolab
