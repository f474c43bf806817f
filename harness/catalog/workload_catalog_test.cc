#include "catalog/workload_catalog.h"
#include "catalog/metric_catalog.h"
#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace foliolab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

std::string read(const std::string& rel) {
  std::ifstream in(std::string(foliolab::source_dir()) + "/" + rel);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The program's argument table is its .def: `struct wl_arg spec[] = {` then `#include
// "<name>.def"` (workloads/def_args.h), and no entry of its own.
bool spec_is_def(const std::string& source, const std::string& name) {
  const size_t at = source.find("struct wl_arg spec[] = {\n#include \"" + name + ".def\"\n");
  if (at == std::string::npos) return false;
  const size_t end = source.find("};", at);
  return source.substr(at, end - at).find("{\"") == std::string::npos;
}

bool has_literal(const std::string& source, const std::string& word) {
  return source.find("\"" + word + "\"") != std::string::npos;
}

// Every built-in workload's declaration matches what its C program parses and prints.
TEST(WorkloadCatalog, MatchesThePrograms) {
  const std::string common = read("workloads/common.h");
  for (const WorkloadInfo& w : workload_catalog()) {
    if (w.open_metrics) continue;  // custom: no program of ours
    SCOPED_TRACE(w.name);
    const std::string source = read("workloads/" + w.name + ".c");
    ASSERT_FALSE(source.empty());
    for (const ParamInfo& p : w.params) {
      for (const auto& choice : p.choices) {
        EXPECT_TRUE(has_literal(source, choice) || has_literal(common, choice)) << choice;
      }
      // An INT parameter's bounds are the .def's (wl_param_long), not literals of its own.
      if (p.type == ParamType::kInt) {
        EXPECT_EQ(source.find("wl_arg_long(spec, \"" + p.name + "\""), std::string::npos) << p.name;
      }
    }
    EXPECT_TRUE(spec_is_def(source, w.name));
    // Each metric the program names is declared, and each declared one is named.
    static const std::regex printed(R"re(wl_json_[a-z]+\(&?j, "([a-z0-9_]+)")re");
    std::set<std::string> names;
    for (std::sregex_iterator it(source.begin(), source.end(), printed), last; it != last; ++it) {
      names.insert((*it)[1]);
    }
    for (const auto& n : names) EXPECT_TRUE(w.metric(n)) << "undeclared metric " << n;
    for (const WorkloadMetric& m : w.metrics) {
      const std::string numbered = std::regex_replace(m.name, std::regex("[0-9]+$"), "%d");
      EXPECT_TRUE(has_literal(source, m.name) || has_literal(source, numbered)) << m.name;
    }
  }
}

// tlb compiled from a copy of workloads/ whose tlb.def is `tlb_def`: its output for `args`.
ProcessResult run_tlb(const std::filesystem::path& dir, const std::string& tlb_def,
                      std::vector<std::string> args) {
  for (const char* f : {"common.h", "def_args.h", "tlb.c"}) {
    std::ofstream(dir / f) << read(std::string("workloads/") + f);
  }
  std::ofstream(dir / "tlb.def") << tlb_def;
  RealProcessRunner proc;
  const ProcessResult cc = proc.run(
      {.argv = {"cc", "-std=gnu11", "-O1", "-o", (dir / "tlb").string(), (dir / "tlb.c").string()},
       .capture = true,
       .timeout = std::chrono::seconds(120)});
  if (!cc.ok()) return cc;
  args.insert(args.begin(), (dir / "tlb").string());
  return proc.run({.argv = args, .capture = true, .timeout = std::chrono::seconds(60)});
}

// One line of a .def is the parameter for the catalog (plan validation, the manual's list) and
// for the program: the catalog's bound of tlb's `accesses` is the one the program enforces, and
// the same line edited in a copy of workloads/ moves the program's bound with it.
TEST(WorkloadCatalog, AnEditToADefMovesTheProgramsBounds) {
  const std::string def = read("workloads/tlb.def");
  const ParamInfo& accesses = *find_workload("tlb")->param("accesses");
  ASSERT_EQ(accesses.int_max, 10000000000);
  ScopedTestDir dir("foliolab-def-edit");
  const ProcessResult as_shipped = run_tlb(dir.path(), def, {"size=64K", "accesses=10000000001"});
  EXPECT_FALSE(as_shipped.ok());
  EXPECT_THAT(as_shipped.output, HasSubstr("accesses=10000000001: expected an integer in "
                                           "1..10000000000"));
  const std::string line = R"(FL_PARAM("accesses", INT, "2000000", "1", "10000000000",)";
  ASSERT_NE(def.find(line), std::string::npos);
  std::string edited = def;
  edited.replace(edited.find(line), line.size(), R"(FL_PARAM("accesses", INT, "5", "1", "5",)");
  const ProcessResult over = run_tlb(dir.path(), edited, {"size=64K", "accesses=6"});
  EXPECT_FALSE(over.ok());
  EXPECT_THAT(over.output, HasSubstr("accesses=6: expected an integer in 1..5"));
  const ProcessResult within = run_tlb(dir.path(), edited, {"size=64K"});
  EXPECT_TRUE(within.ok()) << within.describe() << "\n" << within.output;
  EXPECT_THAT(within.output, HasSubstr("\"accesses\":5,"));
}

TEST(WorkloadCatalog, SameMetricNameMeansTheSameEverywhere) {
  std::map<std::string, std::pair<std::string, MetricInfo>> seen;
  for (const WorkloadInfo& w : workload_catalog()) {
    for (const WorkloadMetric& m : w.metrics) {
      auto [it, fresh] = seen.try_emplace(m.name, w.name, m.info);
      if (fresh) continue;
      const MetricInfo& first = it->second.second;
      EXPECT_TRUE(first.unit == m.info.unit && first.better == m.info.better &&
                  first.kind == m.info.kind)
          << m.name << " differs between " << it->second.first << " and " << w.name;
    }
  }
}

TEST(WorkloadCatalog, MetricCatalogReadsWorkloadMetrics) {
  const MetricInfo faults = metric_info("faults");
  EXPECT_TRUE(faults.known);
  EXPECT_EQ(faults.better, Better::kLower);
  EXPECT_EQ(metric_info("ns_per_access").kind, MetricKind::kTiming);
  EXPECT_EQ(metric_info("util_460_512").kind, MetricKind::kCount);
  EXPECT_FALSE(metric_info("no_such_metric").known);
}

// The fault outcomes protocol/run_report.cc derives: rates higher-is-better within 0.02, the
// fallbacks lower-is-better within one fault or 2 %.
TEST(WorkloadCatalog, FaultOutcomesAreCountsWithThresholds) {
  const MetricInfo fb = metric_info("fallback.anon.64kB");
  EXPECT_TRUE(fb.known);
  EXPECT_EQ(fb.kind, MetricKind::kCount);
  EXPECT_EQ(fb.better, Better::kLower);
  EXPECT_DOUBLE_EQ(fb.threshold.abs, 1);
  EXPECT_DOUBLE_EQ(fb.threshold.rel, 0.02);
  const MetricInfo rate = metric_info("success.thp");
  EXPECT_EQ(rate.better, Better::kHigher);
  EXPECT_DOUBLE_EQ(rate.threshold.abs, 0.02);
  EXPECT_EQ(metric_info("fallback_pct").better, Better::kLower);  // thp-swap-allocator's own
}

TEST(WorkloadCatalog, ManualListIsGenerated) {
  const std::string manual = read("docs/workloads.md");
  const std::string begin = "<!-- workloads:begin (generated: workload_list_markdown) -->\n";
  const size_t a = manual.find(begin);
  const size_t b = manual.find("<!-- workloads:end -->");
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(manual.substr(a + begin.size(), b - a - begin.size()), workload_list_markdown())
      << "update docs/workloads.md's workload list:\n"
      << workload_list_markdown();
}

TEST(WorkloadCatalog, ParamValues) {
  const WorkloadInfo& fault = *find_workload("fault");
  EXPECT_TRUE(check_param_value(*fault.param("size"), "64M").ok());
  EXPECT_EQ(check_param_value(*fault.param("size"), "64X").error().message,
            "invalid size '64X': expected bytes with an optional K, M or G suffix (e.g. 64M)");
  EXPECT_EQ(check_param_value(*fault.param("size"), "0").error().message,
            "size 0 out of range (>= 1 bytes)");
  EXPECT_FALSE(check_param_value(*fault.param("size"), "99999999999999999999G").ok());
  EXPECT_EQ(check_param_value(*fault.param("threads"), "100000000").error().message,
            "100000000 out of range (1..1024)");
  EXPECT_EQ(check_param_value(*fault.param("mapping"), "anonymous").error().message,
            "unknown value 'anonymous' (valid: anon | anon-shared | tmpfs | memfd | sysv-shm)");
  EXPECT_THAT(check_param_value(*fault.param("mapping"), "anon-share").error().message,
              HasSubstr("did you mean 'anon-shared'?"));
  EXPECT_TRUE(check_param_value(*fault.param("prctl_thp_disable"), "yes").ok());
  EXPECT_FALSE(check_param_value(*fault.param("prctl_thp_disable"), "maybe").ok());
  EXPECT_EQ(parse_workload_size("2k"), 2048u);
  EXPECT_EQ(parse_workload_size("1MB"), std::nullopt);  // the programs take no "B"
  EXPECT_EQ(parse_workload_size("-1"), std::nullopt);
}

TEST(WorkloadCatalog, Listing) {
  const std::string list = format_workload_list();
  for (const auto& name : workload_names()) EXPECT_THAT(list, HasSubstr(name + " "));
  const std::string fault = format_workload_details(*find_workload("fault"));
  EXPECT_THAT(fault, HasSubstr("mapping"));
  EXPECT_THAT(fault, HasSubstr("anon | anon-shared | tmpfs | memfd | sysv-shm"));
  EXPECT_THAT(fault, HasSubstr("faults_per_sec"));
  EXPECT_THAT(fault, Not(HasSubstr("guest kernel")));  // the small one serves
  EXPECT_THAT(format_workload_details(*find_workload("kselftest-mm")),
              HasSubstr("guest kernel: the full one (kernel-config/guest-full.config): debugfs, "
                        "userfaultfd and hugetlbfs"));
}

// Which workloads need the full guest kernel (catalog/guest_kernel.h): those that need a root
// filesystem, a cgroup, swap, NUMA or the selftests' options; the C workloads that do not, not.
TEST(WorkloadCatalog, FullGuestWorkloadsSayWhy) {
  std::vector<std::string> full;
  for (const WorkloadInfo& w : workload_catalog()) {
    if (!w.full_guest.empty()) full.push_back(w.name);
    if (!w.packages.empty()) {
      EXPECT_FALSE(w.full_guest.empty()) << w.name;  // a root filesystem
    }
  }
  EXPECT_THAT(full, ElementsAre("numa-thp", "kselftest-mm", "thp-swap-allocator", "swap", "redis",
                                "memcg-stress", "postgres", "memcached", "kbuild"));
}

}  // namespace
}  // namespace foliolab
