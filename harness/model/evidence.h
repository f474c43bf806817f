// Kernel evidence (`evidence:`, issue 56; docs/evidence.md): what the guest counts during each
// repetition, for the workload's own processes only. Tracepoints as counts (optionally split by
// one field through a hist trigger), kprobes on kernel functions as hit counts, and the ftrace
// function profiler. Read by the loader (model/loader_evidence.cc), checked at plan
// (catalog/evidence_check.h), rendered into the job (protocol/job.cc), counted by the agent
// (images/agent/evidence.c) and read back as count metrics (protocol/evidence_record.h):
// `event.<system>:<event>`, `event.<system>:<event>[<field>=<value>]`, `kprobe.<function>`,
// `func.<function>`. An experiment with evidence gets the tracing fragment in its kernels
// (kernel-config/tracing.config); one without builds the kernel it built before.
#pragma once

#include <string>
#include <vector>

#include "model/source_loc.h"

namespace foliolab {

// At most this many events, kprobes and profile rows (the job's and the agent's bounds).
inline constexpr int kMaxEvidenceEvents = 32;
inline constexpr int kMaxEvidenceKprobes = 32;
inline constexpr int kMaxProfileTop = 200;

// The kernel-config fragment an experiment with evidence adds to its kernels.
inline constexpr const char* kTracingFragment = "tracing";

// `events:` item: "kmem:mm_page_alloc", "huge_memory:*" (every event of the system the guest's
// kernel has), or {event: "kmem:mm_page_alloc", by: order} (one count per value of the field).
struct EventCount {
  std::string system, event;  // event "*": all of the system's
  std::string by;             // a field of the event's record, "" = one total
  SourceLoc loc;
  std::string name() const { return system + ":" + event; }
};

// `kprobes:` item: "handle_mm_fault" or {function: folio_zero_user}: the function's hits.
struct KprobeCount {
  std::string function;
  SourceLoc loc;
};

struct EvidenceSpec {
  std::vector<EventCount> events;
  std::vector<KprobeCount> kprobes;
  int profile_top = 0;  // `function_profile: {top: N}`: 0 = no profile
  SourceLoc loc;
  bool census =
      false;  // `census: true`: a folio census at each rep's peak (protocol/census_record.h)
  SourceLoc census_loc;
  // Whether the kernel needs tracing (the census needs none: /proc/kpageflags is in every kernel).
  bool enabled() const { return !events.empty() || !kprobes.empty() || profile_top > 0; }
};

// The metric names the host gives the counts (the agent's record keys are the same).
inline std::string event_metric(const std::string& event) { return "event." + event; }
inline std::string kprobe_metric(const std::string& function) { return "kprobe." + function; }

// Whether `name` is a tracepoint system or event name ([A-Za-z0-9_]+), a hist field, or a
// kernel function as available_filter_functions lists it ([A-Za-z0-9_.]+, e.g. foo.isra.0).
bool is_trace_word(const std::string& name);
bool is_function_name(const std::string& name);

}  // namespace foliolab
