// The tracepoints a kernel source tree defines (include/trace/events/*.h): per system (its
// TRACE_SYSTEM), the events and each event's record fields, read from the TRACE_EVENT,
// DECLARE_EVENT_CLASS and DEFINE_EVENT macros. What `plan` checks an experiment's `evidence:`
// against before anything is built (catalog/evidence_check.h); the guest checks again against
// its kernel's available_events before rep 0.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace foliolab {

struct TraceSystem {
  // event -> its fields (the record's own; the common_* fields every event has are not listed)
  std::map<std::string, std::set<std::string>> events;
  // The header defines events through macros of its own (ext4, sched, ...): an event not found
  // here may still exist.
  bool partial = false;
};

using TraceEventTable = std::map<std::string, TraceSystem>;  // system -> its events

// The systems of one header's text (normally one). Exposed for tests.
void read_trace_header(std::string_view text, TraceEventTable* table);

// Every header of <tree>/include/trace/events; empty when the folder is not there.
TraceEventTable read_trace_events(const std::filesystem::path& tree);

// Whether `field` is one every event's record has (common_pid, common_type, ...).
bool is_common_trace_field(std::string_view field);

}  // namespace foliolab
