// The loader's `custom` workload parameters (source lists, build, setup) and regex aggregates.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/loader.h"

namespace foliolab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

std::string custom_doc(const std::string& workload) {
  return "name: q\nkernels:\n  - name: k\narchs: [x86_64]\nknobs:\n  a: {enabled: never}\n"
         "workloads:\n  - name: custom\n" +
         workload;
}

Result<Experiment> parse_custom(const std::string& workload) {
  return parse_experiment(custom_doc(workload), "q.yaml");
}

std::string custom_error(const std::string& workload) {
  auto exp = parse_custom(workload);
  return exp.ok() ? "<parsed without error>" : exp.error().message;
}

TEST(LoaderCustom, SourceIsOneFileOrAList) {
  auto one = parse_custom("    params: {source: p.c}\n");
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_THAT(one->workloads[0].sources, ElementsAre("p.c"));
  EXPECT_THAT(one->workloads[0].params, ElementsAre(Pair("source", "p.c")));
  auto list = parse_custom("    params: {source: [main.c, lib/util.c]}\n");
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_THAT(list->workloads[0].sources, ElementsAre("main.c", "lib/util.c"));
  // The canonical text in params makes the run id differ with the list.
  EXPECT_THAT(list->workloads[0].params, ElementsAre(Pair("source", "[main.c, lib/util.c]")));
  EXPECT_EQ(custom_error("    params: {source: [main.c, {x: 1}]}\n"),
            "q.yaml:9:31: workloads[0].params.source[1]: expected a scalar, got a map");
  EXPECT_THAT(custom_error("    params: {source: []}\n"), HasSubstr("q.yaml:9:22: "));
}

TEST(LoaderCustom, BuildIsACommandADirAndAnOutput) {
  auto exp = parse_custom(
      "    params:\n      build: {command: [make, -j2, 'CFLAGS=-O2 -g'], dir: prog, output: "
      "bin/prog}\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const WorkloadSpec& w = exp->workloads[0];
  EXPECT_THAT(w.build.command, ElementsAre("make", "-j2", "CFLAGS=-O2 -g"));
  EXPECT_EQ(w.build.dir, "prog");
  EXPECT_EQ(w.build.output, "bin/prog");
  EXPECT_THAT(w.params,
              ElementsAre(Pair(
                  "build", "{command: make -j2 'CFLAGS=-O2 -g', dir: prog, output: bin/prog}")));
  // A plain string is split on blanks, as params.args is.
  auto split =
      parse_custom("    params: {build: {command: make -C src all, dir: ., output: src/p}}\n");
  ASSERT_TRUE(split.ok()) << split.error().message;
  EXPECT_THAT(split->workloads[0].build.command, ElementsAre("make", "-C", "src", "all"));
  EXPECT_EQ(custom_error("    params: {build: {comand: [make], dir: d, output: p}}\n"),
            "q.yaml:9:22: workloads[0].params.build.comand: unknown key; did you mean "
            "'command'?");
  EXPECT_THAT(custom_error("    params: {build: {command: [make], dir: d}}\n"),
              HasSubstr("q.yaml:9:21: workloads[0].params.build: missing required key 'output'"));
  EXPECT_THAT(custom_error("    params: {build: make}\n"),
              HasSubstr("q.yaml:9:21: workloads[0].params.build: expected a map, got a scalar"));
}

TEST(LoaderCustom, SetupIsAListOfCommands) {
  auto exp = parse_custom("    params:\n      setup: [[mkdir, -p, /tmp/d], 'sysctl -w vm.x=1']\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_THAT(exp->workloads[0].setup, ElementsAre(ElementsAre("mkdir", "-p", "/tmp/d"),
                                                   ElementsAre("sysctl", "-w", "vm.x=1")));
  EXPECT_THAT(exp->workloads[0].params,
              ElementsAre(Pair("setup", "[mkdir -p /tmp/d, sysctl -w vm.x=1]")));
  EXPECT_EQ(custom_error("    params: {setup: mkdir}\n"),
            "q.yaml:9:21: workloads[0].params.setup: expected a list, got a scalar");
  std::string many = "    params: {setup: [";
  for (int i = 0; i < 65; ++i) many += "[true], ";
  EXPECT_EQ(custom_error(many + "]}\n"),
            "q.yaml:9:21: workloads[0].params.setup: more than 64 setup commands");
  EXPECT_THAT(custom_error("    params: {setup: [[]]}\n"),
              HasSubstr("q.yaml:9:22: workloads[0].params.setup[0]: empty; expected a command"));
}

TEST(LoaderCustom, RegexMetricsTakeAnAggregate) {
  auto exp = parse_custom(
      "    params: {source: p.c, output: regex}\n    metrics:\n"
      "      total_kb: {regex: 'used (\\d+) kB', aggregate: sum, unit: kB}\n"
      "      tasks: {pattern: 'used (\\d+) kB', aggregate: count}\n"
      "      last_kb: 'used (\\d+) kB'\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const WorkloadSpec& w = exp->workloads[0];
  EXPECT_THAT(w.metric_patterns,
              ElementsAre(Pair("total_kb", "used (\\d+) kB"), Pair("tasks", "used (\\d+) kB"),
                          Pair("last_kb", "used (\\d+) kB")));
  EXPECT_THAT(w.metric_aggregates, ElementsAre(Pair("total_kb", "sum"), Pair("tasks", "count")));
  const std::string head = "    params: {source: p.c, output: regex}\n    metrics:\n";
  EXPECT_EQ(custom_error(head + "      kb: {pattern: 'x(\\d)', aggregate: summ}\n"),
            "q.yaml:11:41: workloads[0].metrics.kb.aggregate: unknown aggregate 'summ'; did you "
            "mean 'sum'? (valid: first, last, sum, min, max, count, distribution)");
  EXPECT_EQ(custom_error(head + "      kb: {unit: kB, aggregate: sum}\n"),
            "q.yaml:11:22: workloads[0].metrics.kb.aggregate: 'aggregate' needs a 'pattern' (or "
            "'regex') beside it");
  EXPECT_THAT(custom_error(head + "      kb: {pattern: 'x(\\d)', regex: 'y(\\d)'}\n"),
              HasSubstr("q.yaml:11:30: workloads[0].metrics.kb.regex: give 'pattern' or 'regex'"));
}

}  // namespace
}  // namespace foliolab
