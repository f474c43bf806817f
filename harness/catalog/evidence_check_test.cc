// Plan-time checks of `evidence:` (catalog/evidence_check.h): tracepoints against a kernel tree's
// include/trace/events headers, and tracing on backend host against this machine's tracefs.
#include "catalog/evidence_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "testing/minimal_experiment.h"

namespace foliolab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The shape of include/trace/events/kmem.h and thp.h: TRACE_EVENT with its fields, and events
// defined from a class.
constexpr const char* kKmemHeader = R"(#undef TRACE_SYSTEM
#define TRACE_SYSTEM kmem
TRACE_EVENT(mm_page_alloc,
	TP_PROTO(struct page *page, unsigned int order, gfp_t gfp_flags, int migratetype),
	TP_STRUCT__entry(
		__field(	unsigned long,	pfn		)
		__field(	unsigned int,	order		)
		__field(	unsigned long,	gfp_flags	)
		__field(	int,		migratetype	)
	),
	TP_fast_assign(__entry->order = order;),
	TP_printk("order=%d", __entry->order)
);
DECLARE_EVENT_CLASS(mm_page,
	TP_STRUCT__entry(
		__field(	unsigned long,	pfn		)
		__field(	unsigned int,	order		)
		__field(	int,		migratetype	)
		__field(	int,		percpu_refill	)
	),
);
DEFINE_EVENT(mm_page, mm_page_alloc_zone_locked,
	TP_PROTO(struct page *page, unsigned int order, int migratetype, int percpu_refill)
);
TRACE_EVENT(rss_stat,
	TP_STRUCT__entry(
		__field(unsigned int, mm_id)
		__array(char, comm, 16)
		__string(name, src)
	),
);
)";

TraceEventTable kmem_table() {
  TraceEventTable t;
  read_trace_header(kKmemHeader, &t);
  read_trace_header("#define TRACE_SYSTEM huge_memory\nTRACE_EVENT(mm_collapse_huge_page,\n);\n",
                    &t);
  return t;
}

TEST(EvidenceCheck, HeadersGiveEventsAndTheirFields) {
  const TraceEventTable t = kmem_table();
  const TraceSystem& kmem = t.at("kmem");
  EXPECT_FALSE(kmem.partial);
  EXPECT_THAT(kmem.events.at("mm_page_alloc"),
              ElementsAre("gfp_flags", "migratetype", "order", "pfn"));
  EXPECT_THAT(kmem.events.at("mm_page_alloc_zone_locked"),
              ElementsAre("migratetype", "order", "percpu_refill", "pfn"));
  EXPECT_THAT(kmem.events.at("rss_stat"), ElementsAre("comm", "mm_id", "name"));
  EXPECT_TRUE(t.contains("huge_memory"));
}

std::string evidence_error(const std::string& evidence, const HostFacts& host = {}) {
  auto exp = parse_minimal(evidence);
  if (!exp.ok()) return "load: " + exp.error().message;
  auto st = check_evidence(*exp, {kmem_table()}, host);
  return st.ok() ? "(ok)" : st.error().message;
}

TEST(EvidenceCheck, UnknownEventsSystemsAndFieldsAreLocatedWithADidYouMean) {
  EXPECT_EQ(evidence_error("evidence:\n  events: [\"kmem:mm_page_alloc\", \"huge_memory:*\", "
                           "{event: \"kmem:mm_page_alloc\", by: order}, "
                           "{event: \"kmem:mm_page_alloc\", by: common_pid}, \"sched:x\"]\n"),
            "(ok)");  // sched: not in this tree's headers, left to the guest
  EXPECT_THAT(evidence_error("evidence:\n  events: [\"kmem:mm_page_aloc\"]\n"),
              HasSubstr("q.yaml:10:12: evidence.events[0]: no event 'mm_page_aloc' in tracepoint "
                        "system 'kmem'; did you mean 'mm_page_alloc'? (kernel k)"));
  EXPECT_THAT(evidence_error("evidence:\n  events: [\"kmme:mm_page_alloc\"]\n"),
              HasSubstr("no tracepoint system 'kmme' in the kernel tree; did you mean 'kmem'?"));
  EXPECT_THAT(evidence_error("evidence:\n  events: [{event: \"kmem:mm_page_alloc\", by: ordre}]\n"),
              HasSubstr("event kmem:mm_page_alloc has no field 'ordre'; did you mean 'order'? "
                        "(its fields: gfp_flags, migratetype, order, pfn)"));
  EXPECT_EQ(evidence_error("evidence:\n  kprobes: [handle_mm_fault]\n"), "(ok)");
}

TEST(EvidenceCheck, HostBackendNeedsThisMachinesTracefs) {
  const std::string yaml = "machine: {backend: host}\nevidence:\n  kprobes: [handle_mm_fault]\n";
  EXPECT_EQ(evidence_error(yaml, HostFacts{}), "(ok)");
  EXPECT_THAT(evidence_error(yaml, HostFacts{.tracefs_missing = {"kprobe_events"}}),
              HasSubstr("q.yaml:9:20: evidence: backend host counts kernel events on this "
                        "machine's own kernel, whose tracefs (/sys/kernel/tracing) lacks "
                        "kprobe_events: refused"));
  // Without evidence nothing is asked of the host.
  EXPECT_EQ(
      evidence_error("machine: {backend: host}\n", HostFacts{.tracefs_missing = {"kprobe_events"}}),
      "(ok)");
}

TEST(EvidenceCheck, HostFactsSayWhatATracefsLacks) {
  const HostFacts none = read_host_facts("/proc/meminfo", "/nonexistent-tracefs");
  EXPECT_EQ(none.tracefs_missing.size(), std::size(kTracefsFiles));
}

}  // namespace
}  // namespace foliolab
