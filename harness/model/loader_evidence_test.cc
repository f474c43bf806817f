// `evidence:` (model/evidence.h): what it reads into, how bad input is named, and that the kernel
// of an experiment without it is the one it was before (no tracing fragment).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/guest_kernel.h"
#include "kernel/guest_fragments.h"
#include "model/loader.h"
#include "testing/minimal_experiment.h"
#include "testing/source_root.h"

namespace foliolab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(LoaderEvidence, ReadsEventsSplitsWildcardsKprobesAndTheProfile) {
  auto exp = parse_minimal(R"(evidence:
  events: ["kmem:mm_page_alloc", {event: "kmem:mm_page_alloc", by: order}, "huge_memory:*"]
  kprobes: [handle_mm_fault, {function: folio_zero_user}, free_pages.isra.0]
  function_profile: {top: 30}
)");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const EvidenceSpec& e = exp->evidence;
  ASSERT_EQ(e.events.size(), 3u);
  EXPECT_EQ(e.events[0].name(), "kmem:mm_page_alloc");
  EXPECT_EQ(e.events[0].by, "");
  EXPECT_EQ(e.events[1].by, "order");
  EXPECT_EQ(e.events[2].system, "huge_memory");
  EXPECT_EQ(e.events[2].event, "*");
  EXPECT_EQ(e.events[1].loc.line, 10);
  ASSERT_EQ(e.kprobes.size(), 3u);
  EXPECT_EQ(e.kprobes[1].function, "folio_zero_user");
  EXPECT_EQ(e.kprobes[2].function, "free_pages.isra.0");
  EXPECT_EQ(e.profile_top, 30);
  EXPECT_TRUE(e.enabled());
}

TEST(LoaderEvidence, BadNamesAreLocatedErrors) {
  EXPECT_THAT(minimal_error("evidence:\n  events: [mm_page_alloc]\n"),
              HasSubstr("q.yaml:10:12: evidence.events[0]: 'mm_page_alloc' is not a tracepoint: "
                        "<system>:<event>"));
  EXPECT_THAT(minimal_error("evidence:\n  events: [\"kmem:mm page\"]\n"),
              HasSubstr("evidence.events[0]: 'kmem:mm page' is not a tracepoint"));
  EXPECT_THAT(minimal_error("evidence:\n  events: [{event: \"kmem:*\", by: order}]\n"),
              HasSubstr("evidence.events[0].by: a split names one event's field"));
  EXPECT_THAT(minimal_error("evidence:\n  events: [{event: \"kmem:x\", by: \"a-b\"}]\n"),
              HasSubstr("'a-b' is not a field name"));
  EXPECT_THAT(minimal_error("evidence:\n  events: [{evnt: \"kmem:x\"}]\n"),
              HasSubstr("evidence.events[0].evnt: unknown key; did you mean 'event'?"));
  EXPECT_THAT(minimal_error("evidence:\n  kprobes: [\"handle_mm_fault()\"]\n"),
              HasSubstr("q.yaml:10:13: evidence.kprobes[0]: 'handle_mm_fault()' is not a kernel "
                        "function name"));
  EXPECT_THAT(minimal_error("evidence:\n  function_profile: {top: 0}\n"),
              HasSubstr("evidence.function_profile.top"));
  EXPECT_THAT(minimal_error("evidence:\n  kprobe: [handle_mm_fault]\n"),
              HasSubstr("evidence.kprobe: unknown key; did you mean 'kprobes'?"));
  EXPECT_THAT(minimal_error("evidence: {}\n"), HasSubstr("evidence: names nothing to count"));
  EXPECT_THAT(minimal_error("evidence:\n  kprobes: [a, b, a]\n"),
              HasSubstr("q.yaml:10:19: evidence.kprobes[2]: probes a twice"));
  EXPECT_THAT(minimal_error("evidence:\n  events: [\"a:b\", {event: \"a:b\", by: x}, \"a:b\"]\n"),
              HasSubstr("evidence.events[2]: counts a:b a second time"));
}

TEST(LoaderEvidence, ThresholdsNameEvidenceCounts) {
  auto exp =
      parse_minimal("thresholds: {\"kprobe.*\": 2, \"event.kmem:mm_page_alloc[order=4]\": 1}\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  ASSERT_EQ(exp->thresholds.size(), 2u);
  EXPECT_TRUE(exp->thresholds[1].matches("event.kmem:mm_page_alloc[order=4]"));
}

// The tracing fragment joins a kernel only when its experiment asks for evidence, after the arch's
// fragments and before the kernel's own: the quickstart's kernel without evidence has exactly the
// fragments it had before this key existed (so the same config requests and build id:
// BuilderTest.TracingFragmentChangesTheBuildIdOnlyWhenAsked), and with evidence one more.
TEST(LoaderEvidence, OnlyAnExperimentWithEvidenceGetsTheTracingFragment) {
  auto quick = load_experiment((kSourceRoot / "experiments/quickstart.yaml").string());
  ASSERT_TRUE(quick.ok()) << quick.error().message;
  ASSERT_TRUE(settle_guest_kernels(*quick).ok());
  EXPECT_FALSE(quick->kernels[0].tracing);
  EXPECT_THAT(kernel_fragments(quick->kernels[0], Arch::kX86_64),
              ElementsAre("guest-base", "x86_64"));
  EXPECT_THAT(kernel_fragments(quick->kernels[0], Arch::kArm64),
              ElementsAre("guest-base", "arm64"));
  quick->evidence.kprobes.push_back({.function = "handle_mm_fault"});
  quick->kernels[0].config = {"debug"};
  ASSERT_TRUE(settle_guest_kernels(*quick).ok());
  EXPECT_TRUE(quick->kernels[0].tracing);
  EXPECT_THAT(kernel_fragments(quick->kernels[0], Arch::kX86_64),
              ElementsAre("guest-base", "x86_64", "tracing", "debug"));
}

}  // namespace
}  // namespace foliolab
