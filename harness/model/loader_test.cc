#include "model/loader.h"
#include "util/build_info.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "util/text.h"

namespace foliolab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

// Every key of the schema, in the shape of the documentation.
constexpr const char* kFull = R"(name: quickstart
description: a test
kernels:
  - name: "6.12-mthp-vmstat"
    source: debian
    config: [numa, debug]
    options: {CONFIG_DEBUG_VM: y, CONFIG_NR_CPUS: 8}
    patches: mthp-vmstat
    cmdline: "transparent_hugepage=always"
archs: [x86_64, arm64]
machine: {cpus: 2, memory: 1G, numa: {nodes: [{cpus: [0], memory: 512M}, {cpus: [1], memory: 512M}], distance: [[10,20],[20,10]]}}
knobs:
  "4K":
    hugepages-64kB/enabled: never
  "64K mTHP":
    hugepages-64kB/enabled: always
    sysctl: {vm/drop_caches: 2}
    cmdline: "thp_anon=64K:always"
workloads:
  - name: fault
    label: fault-anon
    params: {size: 64M, threads: 1, mapping: anon}
repeat: 3
timeout: 600
)";

// Smallest valid file; error tests spell out their variant of it.
constexpr const char* kMinimal = R"(name: q
kernels:
  - name: k
archs: [x86_64]
knobs:
  a: {enabled: never}
workloads:
  - name: fault
)";

Result<Experiment> parse(const std::string& text) { return parse_experiment(text, "q.yaml"); }

// The error message of a document that must fail to load.
std::string error_of(const std::string& text) {
  auto exp = parse(text);
  if (exp.ok()) return "<parsed without error>";
  return exp.error().message;
}

TEST(LoaderTest, ParsesEveryKey) {
  auto exp = parse(kFull);
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->file, "q.yaml");
  EXPECT_EQ(exp->name, "quickstart");
  EXPECT_EQ(exp->description, "a test");
  ASSERT_EQ(exp->kernels.size(), 1u);
  const KernelSpec& k = exp->kernels[0];
  EXPECT_EQ(k.name, "6.12-mthp-vmstat");
  EXPECT_EQ(k.source, "debian");
  EXPECT_THAT(k.config, ElementsAre("numa", "debug"));
  EXPECT_THAT(k.options, ElementsAre(Pair("CONFIG_DEBUG_VM", "y"), Pair("CONFIG_NR_CPUS", "8")));
  EXPECT_EQ(k.patches, "mthp-vmstat");
  EXPECT_EQ(k.cmdline, "transparent_hugepage=always");
  EXPECT_EQ(k.loc.str(), "q.yaml:4:5");
  EXPECT_EQ(k.source_loc.str(), "q.yaml:5:13");
  ASSERT_EQ(k.config_locs.size(), 2u);
  EXPECT_EQ(k.config_locs[1].str(), "q.yaml:6:20");
  EXPECT_EQ(k.patches_loc.str(), "q.yaml:8:14");
  EXPECT_THAT(exp->archs, ElementsAre(Arch::kX86_64, Arch::kArm64));
  EXPECT_EQ(exp->arch_locs[1].str(), "q.yaml:10:17");
  const MachineSpec& m = exp->machine;
  EXPECT_EQ(m.cpus, 2);
  EXPECT_EQ(m.memory_mb, 1024u);
  ASSERT_EQ(m.numa.size(), 2u);
  EXPECT_THAT(m.numa[1].cpus, ElementsAre(1));
  EXPECT_EQ(m.numa[1].memory_mb, 512u);
  EXPECT_THAT(m.numa_distance, ElementsAre(ElementsAre(10, 20), ElementsAre(20, 10)));
  ASSERT_EQ(exp->knob_sets.size(), 2u);
  EXPECT_EQ(exp->knob_sets[0].name, "4K");
  EXPECT_THAT(exp->knob_sets[0].knobs, ElementsAre(Pair("hugepages-64kB/enabled", "never")));
  EXPECT_EQ(exp->knob_sets[0].loc.str(), "q.yaml:13:3");
  const KnobSet& mthp = exp->knob_sets[1];
  EXPECT_EQ(mthp.name, "64K mTHP");
  EXPECT_THAT(mthp.knobs, ElementsAre(Pair("hugepages-64kB/enabled", "always")));
  EXPECT_THAT(mthp.sysctls, ElementsAre(Pair("vm/drop_caches", "2")));
  EXPECT_EQ(mthp.cmdline, "thp_anon=64K:always");
  ASSERT_EQ(exp->workloads.size(), 1u);
  const WorkloadSpec& w = exp->workloads[0];
  EXPECT_EQ(w.name, "fault");
  EXPECT_EQ(w.label, "fault-anon");
  EXPECT_THAT(w.params,
              ElementsAre(Pair("size", "64M"), Pair("threads", "1"), Pair("mapping", "anon")));
  EXPECT_EQ(w.loc.str(), "q.yaml:20:5");
  EXPECT_EQ(exp->repeat, 3);
  EXPECT_EQ(exp->timeout_s, 600);
}

TEST(LoaderTest, DefaultsForOptionalKeys) {
  auto exp = parse(kMinimal);
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->kernels[0].source, "debian");
  EXPECT_TRUE(exp->kernels[0].config.empty());
  EXPECT_EQ(exp->kernels[0].patches, "");
  EXPECT_EQ(exp->machine.cpus, 1);
  EXPECT_EQ(exp->machine.memory_mb, 1024u);
  EXPECT_TRUE(exp->machine.numa.empty());
  EXPECT_EQ(exp->machine.accel, AccelChoice::kAuto);
  EXPECT_EQ(exp->workloads[0].label, "fault");
  EXPECT_EQ(exp->repeat, 3);
  EXPECT_EQ(exp->timeout_s, 600);
}

TEST(LoaderTest, KnobSetOrderIsDocumentOrder) {
  auto exp = parse(R"(name: q
kernels: [{name: k}]
archs: [x86_64]
knobs:
  zeta: {enabled: never}
  alpha: {enabled: always}
  "64K": {hugepages-64kB/enabled: always}
  baseline:
  empty: {}
  mid: {enabled: madvise, defrag: defer, khugepaged/pages_to_scan: 4096}
workloads: [{name: fault}]
)");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  std::vector<std::string> names;
  for (const auto& s : exp->knob_sets) names.push_back(s.name);
  EXPECT_THAT(names, ElementsAre("zeta", "alpha", "64K", "baseline", "empty", "mid"));
  EXPECT_TRUE(exp->knob_sets[3].knobs.empty());
  EXPECT_THAT(exp->knob_sets[5].knobs,
              ElementsAre(Pair("enabled", "madvise"), Pair("defrag", "defer"),
                          Pair("khugepaged/pages_to_scan", "4096")));
}

TEST(LoaderTest, LoadsQuickstartExample) {
  auto exp = load_experiment(std::string(foliolab::source_dir()) + "/experiments/quickstart.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->name, "quickstart");
  ASSERT_EQ(exp->kernels.size(), 1u);
  EXPECT_EQ(exp->kernels[0].name, "6.12-mthp-vmstat");
  EXPECT_EQ(exp->kernels[0].patches, "mthp-vmstat");
  EXPECT_THAT(exp->archs, ElementsAre(Arch::kX86_64, Arch::kArm64));
  EXPECT_EQ(exp->machine.cpus, 1);
  EXPECT_EQ(exp->machine.memory_mb, 1024u);
  ASSERT_EQ(exp->knob_sets.size(), 2u);
  EXPECT_EQ(exp->knob_sets[0].name, "4K");
  EXPECT_THAT(exp->knob_sets[0].knobs, ElementsAre(Pair("hugepages-64kB/enabled", "never")));
  EXPECT_EQ(exp->knob_sets[1].name, "64K mTHP");
  EXPECT_THAT(exp->knob_sets[1].knobs, ElementsAre(Pair("hugepages-64kB/enabled", "always")));
  ASSERT_EQ(exp->workloads.size(), 1u);
  EXPECT_THAT(exp->workloads[0].params,
              ElementsAre(Pair("size", "64M"), Pair("threads", "1"), Pair("mapping", "anon")));
  EXPECT_EQ(exp->repeat, 3);
  EXPECT_EQ(exp->timeout_s, 300);
}

TEST(LoaderTest, MissingFileNamesPath) {
  auto exp = load_experiment("/nonexistent/dir/x.yaml");
  ASSERT_FALSE(exp.ok());
  EXPECT_THAT(exp.error().message, HasSubstr("/nonexistent/dir/x.yaml: cannot open"));
}

TEST(LoaderTest, LoadExperimentUsesPathInLocations) {
  const std::string path = ::testing::TempDir() + "/loader_test_bad.yaml";
  {
    std::ofstream out(path);
    out << "name: q\nkernal: []\n";
  }
  auto exp = load_experiment(path);
  std::remove(path.c_str());
  ASSERT_FALSE(exp.ok());
  EXPECT_EQ(exp.error().message, path + ":2:1: kernal: unknown key; did you mean 'kernels'?");
}

// ---- unknown keys ----

TEST(LoaderTest, UnknownKernelKeySuggestsClosest) {
  EXPECT_EQ(error_of(R"(name: quickstart
kernels:
  - name: k
    patchs: mthp-vmstat
archs: [x86_64]
knobs: {a: {}}
workloads: [{name: fault}]
)"),
            "q.yaml:4:5: kernels[0].patchs: unknown key; did you mean 'patches'?");
}

TEST(LoaderTest, UnknownTopLevelKeySuggestsClosest) {
  EXPECT_EQ(error_of("name: q\nworklaods: []\n"),
            "q.yaml:2:1: worklaods: unknown key; did you mean 'workloads'?");
  EXPECT_EQ(error_of("name: q\nrepeats: 3\n"),
            "q.yaml:2:1: repeats: unknown key; did you mean 'repeat'?");
}

TEST(LoaderTest, UnknownKeyFarFromAnyListsValidKeys) {
  EXPECT_EQ(error_of("name: q\nmachine:\n  frobnicate: 1\n"),
            "q.yaml:3:3: machine.frobnicate: unknown key; valid keys here: accel, backend, "
            "connect, cpus, image, memory, numa, swap, timing, zswap");
}

TEST(LoaderTest, MachineTimingIsWallOrIcount) {
  auto plain = parse(std::string(kMinimal));
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->machine.timing, TimingMode::kWall);
  EXPECT_EQ(plain->machine.timing_loc.line, 0);
  for (const char* name : {"wall", "icount"}) {
    auto exp = parse(std::string(kMinimal) + "machine: {timing: " + name + "}\n");
    ASSERT_TRUE(exp.ok()) << exp.error().message;
    EXPECT_EQ(timing_mode_name(exp->machine.timing), name);
    EXPECT_GT(exp->machine.timing_loc.line, 0);
  }
  EXPECT_EQ(error_of("name: q\nmachine: {timing: icont}\n"),
            "q.yaml:2:19: machine.timing: unknown timing mode 'icont'; did you mean 'icount'? "
            "(valid: wall, icount)");
  EXPECT_EQ(error_of("name: q\nmachine:\n  timing: [icount]\n"),
            "q.yaml:3:11: machine.timing: expected a scalar, got a list");
}

TEST(LoaderTest, MachineAccelIsAutoKvmOrTcg) {
  for (const char* name : {"auto", "kvm", "tcg"}) {
    auto exp = parse(std::string(kMinimal) + "machine: {accel: " + name + "}\n");
    ASSERT_TRUE(exp.ok()) << exp.error().message;
    EXPECT_EQ(accel_choice_name(exp->machine.accel), name);
  }
  EXPECT_EQ(error_of("name: q\nmachine: {accel: kmv}\n"),
            "q.yaml:2:18: machine.accel: unknown accelerator 'kmv'; did you mean 'kvm'? "
            "(valid: auto, kvm, tcg)");
}

TEST(LoaderTest, MachineBackendIsQemuOrLibvirtWithAConnectionUri) {
  auto exp = parse(std::string(kMinimal) +
                   "machine: {backend: libvirt, connect: 'qemu+tcp://127.0.0.1/system'}\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->machine.backend, "libvirt");
  EXPECT_EQ(exp->machine.connect, "qemu+tcp://127.0.0.1/system");
  auto plain = parse(std::string(kMinimal));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->machine.backend,
            "qemu");  // names are checked against the backend table (BackendTableTest)
  EXPECT_EQ(error_of("name: q\nmachine: {connect: 'qemu:///system'}\n"),
            "q.yaml:2:20: machine.connect: a libvirt connection URI (needs backend: libvirt) or a "
            "lab machine's ssh:// URI (needs backend: kexec)");
  // backend kexec: a lab machine's ssh:// URI, nothing else.
  auto lab =
      parse(std::string(kMinimal) + "machine: {backend: kexec, connect: 'ssh://root@lab1'}\n");
  ASSERT_TRUE(lab.ok()) << lab.error().message;
  EXPECT_EQ(lab->machine.connect, "ssh://root@lab1");
  EXPECT_EQ(
      error_of("name: q\nmachine: {backend: kexec, connect: 'qemu:///system'}\n"),
      "q.yaml:2:36: machine.connect: a lab machine's ssh://[user@]host[:port]; backend kexec");
}

TEST(LoaderTest, UnknownWorkloadAndNumaKeys) {
  EXPECT_EQ(error_of("name: q\nworkloads:\n  - name: fault\n    param: {}\n"),
            "q.yaml:4:5: workloads[0].param: unknown key; did you mean 'params'?");
  EXPECT_EQ(error_of("name: q\nmachine: {numa: {node: []}}\n"),
            "q.yaml:2:18: machine.numa.node: unknown key; did you mean 'nodes'?");
}

TEST(LoaderTest, MisspeltReservedKnobKey) {
  EXPECT_EQ(error_of(R"(name: q
kernels: [{name: k}]
archs: [x86_64]
knobs:
  a:
    sysctls: {vm/drop_caches: 2}
)"),
            "q.yaml:6:5: knobs.a.sysctls: unknown key; did you mean 'sysctl'?");
}

// ---- missing keys ----

TEST(LoaderTest, MissingRequiredKeyPointsAtEnclosingMap) {
  EXPECT_EQ(error_of(R"(name: q
kernels:
  - source: debian
    patches: x
)"),
            "q.yaml:3:5: kernels[0]: missing required key 'name'");
}

TEST(LoaderTest, MissingTopLevelKey) {
  EXPECT_EQ(error_of("name: q\nkernels: [{name: k}]\narchs: [x86_64]\nknobs: {a: {}}\n"),
            "q.yaml:1:1: missing required key 'workloads'");
}

TEST(LoaderTest, MissingNumaNodeMemory) {
  EXPECT_EQ(error_of(R"(name: q
machine:
  cpus: 2
  numa:
    nodes:
      - {cpus: [0, 1]}
)"),
            "q.yaml:6:9: machine.numa.nodes[0]: missing required key 'memory'");
}

// ---- wrong types ----

TEST(LoaderTest, ExpectedAList) {
  EXPECT_EQ(error_of("name: q\nkernels: [{name: k}]\narchs: x86_64\n"),
            "q.yaml:3:8: archs: expected a list, got a scalar");
  EXPECT_EQ(error_of("name: q\nkernels:\n  name: k\n"),
            "q.yaml:3:3: kernels: expected a list, got a map");
  EXPECT_EQ(error_of("name: q\nkernels: [{name: k, config: numa}]\n"),
            "q.yaml:2:29: kernels[0].config: expected a list, got a scalar");
}

TEST(LoaderTest, ExpectedAScalar) {
  EXPECT_EQ(error_of("name: [a, b]\n"), "q.yaml:1:7: name: expected a scalar, got a list");
  EXPECT_EQ(error_of(R"(name: q
kernels: [{name: k}]
archs: [x86_64]
knobs: {a: {}}
workloads:
  - name: fault
    params: {size: {a: 1}}
)"),
            "q.yaml:7:20: workloads[0].params.size: expected a scalar, got a map");
}

TEST(LoaderTest, EmptyValuePointsAtItsKey) {
  EXPECT_EQ(error_of("name: q\nkernels:\n  - name:\n    source: debian\n"),
            "q.yaml:3:5: kernels[0].name: expected a scalar, got nothing");
}

TEST(LoaderTest, ExpectedAMap) {
  EXPECT_EQ(error_of("name: q\nmachine: 3\n"),
            "q.yaml:2:10: machine: expected a map, got a scalar");
  EXPECT_EQ(error_of("- a\n- b\n"), "q.yaml:1:1: expected a map, got a list");
  EXPECT_EQ(error_of("name: q\nkernels: [{name: k}]\narchs: [x86_64]\nknobs: {a: [x]}\n"),
            "q.yaml:4:12: knobs.a: expected a map, got a list");
}

TEST(LoaderTest, ExpectedAnInteger) {
  EXPECT_EQ(error_of("name: q\nmachine: {cpus: two}\n"),
            "q.yaml:2:17: machine.cpus: expected an integer, got 'two'");
}

// ---- duplicates ----

TEST(LoaderTest, DuplicateKernelName) {
  EXPECT_EQ(error_of(R"(name: q
kernels:
  - name: k
  - name: j
  - name: k
)"),
            "q.yaml:5:11: kernels[2].name: duplicate kernel name 'k' (first at 3:11)");
}

TEST(LoaderTest, DuplicateArchIncludingAlias) {
  EXPECT_EQ(error_of("name: q\nkernels: [{name: k}]\narchs: [arm64, x86_64, aarch64]\n"),
            "q.yaml:3:24: archs[2]: arch 'arm64' listed twice (first at 3:9)");
}

TEST(LoaderTest, DuplicateWorkloadLabel) {
  EXPECT_EQ(error_of(R"(name: q
kernels: [{name: k}]
archs: [x86_64]
knobs: {a: {}}
workloads:
  - name: fault
  - name: fault
)"),
            "q.yaml:7:11: workloads[1].name: duplicate workload label 'fault' (first at 6:11); "
            "give one of them a distinct 'label'");
  // Distinct labels make the same workload usable twice.
  auto exp = parse(R"(name: q
kernels: [{name: k}]
archs: [x86_64]
knobs: {a: {}}
workloads:
  - {name: fault, params: {size: 1M}}
  - {name: fault, label: fault-big, params: {size: 1G}}
)");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->workloads[1].label, "fault-big");
}

TEST(LoaderTest, DuplicateMapKey) {
  EXPECT_EQ(error_of(R"(name: q
kernels: [{name: k}]
archs: [x86_64]
knobs:
  a: {enabled: never}
  a: {enabled: always}
)"),
            "q.yaml:6:3: knobs.a: duplicate key (first at 5:3)");
  EXPECT_EQ(error_of("name: q\nname: r\n"), "q.yaml:2:1: name: duplicate key (first at 1:1)");
}

TEST(LoaderTest, DuplicateConfigFragment) {
  EXPECT_EQ(error_of("name: q\nkernels: [{name: k, config: [numa, debug, numa]}]\n"),
            "q.yaml:2:43: kernels[0].config[2]: fragment 'numa' listed twice (first at 2:30)");
}

// ---- bad values ----

TEST(LoaderTest, InvalidArchListsValidOnes) {
  EXPECT_EQ(error_of("name: q\nkernels: [{name: k}]\narchs: [x86_64, riscv64]\n"),
            "q.yaml:3:17: archs[1]: unknown arch 'riscv64' (valid: x86_64, arm64)");
  EXPECT_EQ(error_of("name: q\nkernels: [{name: k}]\narchs: [amr64]\n"),
            "q.yaml:3:9: archs[0]: unknown arch 'amr64'; did you mean 'arm64'? "
            "(valid: x86_64, arm64)");
}

TEST(LoaderTest, InvalidNames) {
  EXPECT_EQ(error_of("name: quick start\n"),
            "q.yaml:1:7: name: invalid name 'quick start': use letters, digits, '.', '_' and '-'");
  EXPECT_EQ(error_of("name: q\nkernels: [{name: 'a/b'}]\n"),
            "q.yaml:2:18: kernels[0].name: invalid kernel name 'a/b': use letters, digits, '.', "
            "'_', '+' and '-'");
  EXPECT_EQ(error_of(R"(name: q
kernels: [{name: k}]
archs: [x86_64]
knobs: {a: {}}
workloads: [{name: Fault}]
)"),
            "q.yaml:5:20: workloads[0].name: invalid workload name 'Fault': use [a-z0-9_-]");
}

TEST(LoaderTest, RepeatMustBeAtLeastTwo) {
  EXPECT_EQ(error_of(std::string(kMinimal) + "repeat: 1\n"),
            "q.yaml:9:9: repeat: must be at least 2 (no aggregate from fewer than 2 samples), "
            "got 1");
}

TEST(LoaderTest, TimeoutMustBePositive) {
  EXPECT_EQ(error_of(std::string(kMinimal) + "timeout: 0\n"),
            "q.yaml:9:10: timeout: must be a positive number of seconds");
  EXPECT_EQ(error_of(std::string(kMinimal) + "timeout: 1.5\n"),
            "q.yaml:9:10: timeout: expected an integer, got '1.5'");
}

TEST(LoaderTest, InvalidOptionName) {
  EXPECT_EQ(error_of("name: q\nkernels:\n  - name: k\n    options: {CONFIG_debug_vm: y}\n"),
            "q.yaml:4:15: kernels[0].options.CONFIG_debug_vm: invalid option name "
            "'CONFIG_debug_vm': expected CONFIG_[A-Z0-9_]+");
  EXPECT_EQ(error_of("name: q\nkernels:\n  - name: k\n    options: {DEBUG_VM: y}\n"),
            "q.yaml:4:15: kernels[0].options.DEBUG_VM: invalid option name 'DEBUG_VM': "
            "expected CONFIG_[A-Z0-9_]+");
}

TEST(LoaderTest, FragmentNameWithSuffixGetsHint) {
  EXPECT_EQ(error_of("name: q\nkernels: [{name: k, config: [numa.config]}]\n"),
            "q.yaml:2:30: kernels[0].config[0]: write the fragment name without '.config': "
            "'numa'");
  EXPECT_THAT(error_of("name: q\nkernels: [{name: k, config: [../x]}]\n"),
              HasSubstr("q.yaml:2:30: kernels[0].config[0]: invalid config fragment name"));
}

TEST(LoaderTest, PatchSeriesMustBeRelative) {
  EXPECT_THAT(error_of("name: q\nkernels: [{name: k, patches: ../evil}]\n"),
              HasSubstr("q.yaml:2:30: kernels[0].patches: invalid patch series '../evil'"));
}

TEST(LoaderTest, KnobPathRules) {
  const std::string head = "name: q\nkernels: [{name: k}]\narchs: [x86_64]\nknobs:\n  a:\n";
  EXPECT_THAT(error_of(head + "    ../enabled: never\n"),
              HasSubstr("q.yaml:6:5: knobs.a[\"../enabled\"]: invalid path '../enabled'"));
  EXPECT_EQ(error_of(head + "    /sys/kernel/mm/transparent_hugepage/enabled: never\n"),
            "q.yaml:6:5: knobs.a[\"/sys/kernel/mm/transparent_hugepage/enabled\"]: write the "
            "path relative to /sys/kernel/mm/transparent_hugepage/: 'enabled'");
  EXPECT_THAT(error_of(head + "    \"hugepages 64kB/enabled\": never\n"),
              HasSubstr("q.yaml:6:5: knobs.a[\"hugepages 64kB/enabled\"]: invalid path"));
  EXPECT_EQ(error_of(head + "    enabled: ''\n"),
            "q.yaml:6:14: knobs.a.enabled: must not be empty");
  EXPECT_EQ(error_of(head + "    sysctl: {vm.drop_caches: 3}\n"),
            "q.yaml:6:14: knobs.a.sysctl[\"vm.drop_caches\"]: sysctl keys are paths under "
            "/proc/sys/; did you mean 'vm/drop_caches'?");
  EXPECT_EQ(error_of(head + "    cmdline: [a]\n"),
            "q.yaml:6:14: knobs.a.cmdline: expected a scalar, got a list");
}

TEST(LoaderTest, ValuesMustBeOneLine) {
  EXPECT_EQ(error_of("name: q\nkernels:\n  - name: k\n    cmdline: \"a\\tb\"\n"),
            "q.yaml:4:14: kernels[0].cmdline: value must not contain a tab or newline");
  EXPECT_EQ(error_of("name: q\nkernels:\n  - name: k\n    cmdline: |\n      a\n      b\n"),
            "q.yaml:4:14: kernels[0].cmdline: value must not contain a tab or newline");
  // The description is not sent to the guest: it may span lines.
  auto exp = parse(std::string(kMinimal) + "description: |\n  two\n  lines\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->description, "two\nlines\n");
}

TEST(LoaderTest, EmptyListsAndMaps) {
  EXPECT_EQ(error_of("name: q\nkernels: []\n"),
            "q.yaml:2:10: kernels: must list at least one kernel");
  EXPECT_EQ(error_of("name: q\nkernels: [{name: k}]\narchs: []\n"),
            "q.yaml:3:8: archs: must list at least one arch");
  EXPECT_EQ(error_of("name: q\nkernels: [{name: k}]\narchs: [x86_64]\nknobs: {}\n"),
            "q.yaml:4:8: knobs: must define at least one knob set");
}

// ---- machine ----

TEST(LoaderTest, MemorySizes) {
  auto memory_of = [](const std::string& value) -> std::string {
    auto exp = parse(std::string(kMinimal) + "machine: {memory: " + value + "}\n");
    return exp.ok() ? std::to_string(exp->machine.memory_mb) : exp.error().message;
  };
  EXPECT_EQ(memory_of("2048"), "2048");
  EXPECT_EQ(memory_of("512M"), "512");
  EXPECT_EQ(memory_of("2G"), "2048");
  EXPECT_EQ(memory_of("1GiB"), "1024");
  EXPECT_EQ(memory_of("1048576K"), "1024");
  EXPECT_EQ(memory_of("1536K"),
            "q.yaml:9:19: machine.memory: invalid memory size '1536K': not a whole number of MiB");
  EXPECT_THAT(memory_of("1.5G"), HasSubstr("machine.memory: invalid memory size '1.5G'"));
  EXPECT_THAT(memory_of("1X"), HasSubstr("unknown size suffix 'X'"));
  EXPECT_EQ(memory_of("0"), "q.yaml:9:19: machine.memory: must be more than 0");
}

TEST(LoaderTest, NumaMemoryIsComputedWhenOmitted) {
  auto exp = parse(std::string(kMinimal) +
                   "machine: {cpus: 2, numa: {nodes: [{cpus: [0], memory: 256M}, "
                   "{cpus: [1], memory: 1G}]}}\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->machine.memory_mb, 1280u);
  EXPECT_TRUE(exp->machine.numa_distance.empty());
}

TEST(LoaderTest, NumaErrors) {
  const std::string head = std::string(kMinimal) + "machine:\n  cpus: 2\n  memory: 1G\n  numa:\n";
  // Lines 9..12 are the head's machine block; nodes start on line 13.
  EXPECT_EQ(error_of(head + "    nodes:\n      - {cpus: [0], memory: 512M}\n"
                            "      - {cpus: [1], memory: 256M}\n"),
            "q.yaml:14:7: machine.numa.nodes: node memories sum to 768 MiB but machine.memory is "
            "1024 MiB");
  EXPECT_EQ(error_of(head + "    nodes:\n      - {cpus: [0], memory: 1G}\n"),
            "q.yaml:14:7: machine.numa.nodes: cpu 1 is in no node");
  EXPECT_EQ(error_of(head + "    nodes:\n      - {cpus: [0, 1], memory: 512M}\n"
                            "      - {cpus: [1], memory: 512M}\n"),
            "q.yaml:15:17: machine.numa.nodes[1].cpus[0]: cpu 1 is already in node 0");
  EXPECT_EQ(error_of(head + "    nodes:\n      - {cpus: [0, 2], memory: 1G}\n"),
            "q.yaml:14:20: machine.numa.nodes[0].cpus[1]: cpu 2 out of range (machine has 2 "
            "cpus: 0..1)");
  const std::string nodes = "    nodes: [{cpus: [0], memory: 512M}, {cpus: [1], memory: 512M}]\n";
  EXPECT_EQ(error_of(head + nodes + "    distance: [[10, 20]]\n"),
            "q.yaml:14:15: machine.numa.distance: expected 2 rows (one per node), got 1");
  EXPECT_EQ(error_of(head + nodes + "    distance: [[10, 20], [20]]\n"),
            "q.yaml:14:26: machine.numa.distance[1]: expected 2 entries, got 1");
  EXPECT_EQ(error_of(head + nodes + "    distance: [[10, 20], [20, 11]]\n"),
            "q.yaml:14:31: machine.numa.distance[1][1]: distance from a node to itself must be 10");
  EXPECT_EQ(error_of(head + nodes + "    distance: [[10, 5], [20, 10]]\n"),
            "q.yaml:14:21: machine.numa.distance[0][1]: distance must be in 10..255");
}

// ---- YAML-level problems ----

TEST(LoaderTest, SyntaxErrorHasLocation) {
  EXPECT_EQ(error_of("name: q\narchs: [x86_64\nknobs: {}\n"),
            "q.yaml:3:6: end of sequence flow not found");
  EXPECT_EQ(error_of("name: q\n  bad: indent\n"), "q.yaml:2:6: illegal map value");
}

TEST(LoaderTest, AliasesWorkMergeKeysAreRejected) {
  const std::string head = "name: q\nkernels: [{name: k}]\narchs: [x86_64]\n";
  auto exp = parse(head + "knobs: {a: &k {enabled: never}, b: *k}\nworkloads: [{name: w}]\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->knob_sets[1].knobs, exp->knob_sets[0].knobs);
  EXPECT_EQ(error_of(head + "knobs: {a: &k {enabled: never}, b: {<<: *k}}\n"),
            "q.yaml:4:37: knobs.b[\"<<\"]: YAML merge keys ('<<') are not supported; repeat the "
            "keys");
}

TEST(LoaderTest, EmptyAndMultiDocumentFiles) {
  EXPECT_EQ(error_of(""), "q.yaml:1:1: empty experiment file");
  EXPECT_EQ(error_of("# only a comment\n"), "q.yaml:1:1: empty experiment file");
  EXPECT_EQ(error_of(std::string(kMinimal) + "---\nname: r\n"),
            "q.yaml:10:1: only one YAML document per experiment file");
}

// ---- text helpers used by the loader ----

TEST(LoaderTextTest, EditDistance) {
  EXPECT_EQ(edit_distance("patches", "patchs"), 1u);
  EXPECT_EQ(edit_distance("archs", "arhcs"), 1u);  // transposition
  EXPECT_EQ(edit_distance("Kernels", "kernels"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  const std::vector<std::string> keys = {"name", "source", "config", "options", "patches"};
  EXPECT_EQ(closest_match("patchs", keys), "patches");
  EXPECT_EQ(closest_match("xyz", keys), std::nullopt);
  EXPECT_EQ(closest_match("opts", keys), std::nullopt);  // distance 3: too far
}

TEST(LoaderTextTest, Paths) {
  EXPECT_TRUE(is_relative_path("hugepages-64kB/enabled"));
  EXPECT_TRUE(is_relative_path("khugepaged/max_ptes_none"));
  EXPECT_FALSE(is_relative_path("/enabled"));
  EXPECT_FALSE(is_relative_path("a/../b"));
  EXPECT_FALSE(is_relative_path("a//b"));
  EXPECT_FALSE(is_relative_path("a/"));
  EXPECT_FALSE(is_relative_path(""));
}

// ---- expectations, exclude, per-kernel archs ----

// Two kernels, two archs, two knob sets, one workload; `tail` is appended.
std::string with_tail(const std::string& tail) {
  return std::string(R"(name: q
kernels:
  - name: k
  - name: k64
    config: [arm64-64k]
    archs: [arm64]
archs: [x86_64, arm64]
knobs:
  "4K": {hugepages-64kB/enabled: never}
  "64K": {hugepages-64kB/enabled: always}
workloads:
  - name: fault
)") + tail;
}

TEST(LoaderExpectTest, ParsesExpectations) {
  auto exp = parse(with_tail(R"(expect:
  - name: "64K mTHP serves anonymous faults"
    runs: {knobs: "64K", arch: arm64, kernel: k, workload: fault}
    metric: mthp.64kB.anon_fault_alloc
    ">": 0
  - runs: {knobs: "64K"}
    metric: faults
    stat: median
    ratio_to: {knobs: "4K"}
    "<=": 0.08
  - metric: faults
    approx: 1e3
    tolerance: 0.1
  - metric: faults
    "==": 0
)"));
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  ASSERT_EQ(exp->expectations.size(), 4u);
  const Expectation& a = exp->expectations[0];
  EXPECT_EQ(a.name, "64K mTHP serves anonymous faults");
  EXPECT_EQ(a.runs.kernel, "k");
  EXPECT_EQ(a.runs.arch, Arch::kArm64);
  EXPECT_EQ(a.runs.knobs, "64K");
  EXPECT_EQ(a.runs.workload, "fault");
  EXPECT_EQ(a.metric, "mthp.64kB.anon_fault_alloc");
  EXPECT_EQ(a.stat, Statistic::kMean);
  EXPECT_FALSE(a.ratio_to);
  EXPECT_EQ(a.op, CompareOp::kGreater);
  EXPECT_EQ(a.value, 0);
  EXPECT_EQ(a.loc.str(), "q.yaml:14:5");

  const Expectation& b = exp->expectations[1];
  EXPECT_EQ(b.stat, Statistic::kMedian);
  ASSERT_TRUE(b.ratio_to);
  EXPECT_EQ(b.ratio_to->knobs, "4K");
  EXPECT_EQ(b.op, CompareOp::kLessEqual);
  EXPECT_DOUBLE_EQ(b.value, 0.08);
  EXPECT_EQ(b.name, "median faults / knobs=4K <= 0.08 (knobs=64K)");

  const Expectation& c = exp->expectations[2];
  EXPECT_EQ(c.op, CompareOp::kApprox);
  EXPECT_DOUBLE_EQ(c.value, 1000);
  EXPECT_DOUBLE_EQ(c.tolerance, 0.1);
  EXPECT_TRUE(c.runs.empty());
  EXPECT_EQ(c.name, "faults approx 1e3 ±10% (all runs)");
  EXPECT_EQ(exp->expectations[3].op, CompareOp::kEqual);
}

TEST(LoaderExpectTest, ComparisonErrors) {
  EXPECT_EQ(error_of(with_tail("expect:\n  - metric: faults\n")),
            "q.yaml:14:5: expect[0]: missing comparison: give exactly one of <, <=, >, >=, ==, "
            "approx");
  EXPECT_EQ(error_of(with_tail("expect:\n  - metric: faults\n    \">\": 0\n    \"<\": 9\n")),
            "q.yaml:16:5: expect[0][\"<\"]: only one comparison per expectation ('>' (first at "
            "15:5)); write two expectations");
  EXPECT_EQ(error_of(with_tail("expect:\n  - metric: faults\n    \">\": 0\n    tolerance: 1\n")),
            "q.yaml:16:5: expect[0].tolerance: 'tolerance' applies only to 'approx'");
  EXPECT_EQ(error_of(with_tail("expect:\n  - metric: faults\n    approx: 5\n")),
            "q.yaml:15:5: expect[0].approx: 'approx' needs a relative 'tolerance' (e.g. "
            "tolerance: 0.1)");
  EXPECT_EQ(error_of(with_tail("expect:\n  - metric: faults\n    approx: 5\n    tolerance: -1\n")),
            "q.yaml:16:16: expect[0].tolerance: must not be negative");
  EXPECT_EQ(error_of(with_tail("expect:\n  - metric: faults\n    \">\": lots\n")),
            "q.yaml:15:10: expect[0][\">\"]: expected a number, got 'lots'");
  EXPECT_EQ(error_of(with_tail("expect:\n  - metric: faults\n    \"=\": 1\n")),
            "q.yaml:15:5: expect[0][\"=\"]: unknown key; did you mean '=='?");
}

TEST(LoaderExpectTest, FieldErrors) {
  EXPECT_EQ(error_of(with_tail("expect:\n  - \">\": 0\n")),
            "q.yaml:14:5: expect[0]: missing required key 'metric'");
  EXPECT_EQ(error_of(with_tail("expect:\n  - metric: faults\n    stat: meen\n    \">\": 0\n")),
            "q.yaml:15:11: expect[0].stat: unknown stat 'meen'; did you mean 'mean'? (valid: "
            "mean, min, max, median)");
  EXPECT_EQ(error_of(with_tail("expect:\n  - metric: faults\n    ratio_to: {}\n    \">\": 0\n")),
            "q.yaml:15:15: expect[0].ratio_to: give the fields in which the reference run "
            "differs, e.g. {knobs: \"4K\"}");
  EXPECT_EQ(
      error_of(with_tail("expect:\n  - metric: faults\n    runs: {knob: \"4K\"}\n    \">\": 0\n")),
      "q.yaml:15:12: expect[0].runs.knob: unknown key; did you mean 'knobs'?");
}

TEST(LoaderExpectTest, SelectionNamesMustExist) {
  EXPECT_EQ(error_of(with_tail(
                "expect:\n  - runs: {knobs: \"64k\"}\n    metric: faults\n    \">\": 0\n")),
            "q.yaml:14:19: expect[0].runs.knobs: no knob set named '64k'; did you mean '64K'?");
  EXPECT_EQ(
      error_of(with_tail("expect:\n  - runs: {kernel: zzz}\n    metric: faults\n    \">\": 0\n")),
      "q.yaml:14:20: expect[0].runs.kernel: no kernel named 'zzz' (defined: k, k64)");
  EXPECT_EQ(error_of(with_tail(
                "expect:\n  - runs: {workload: falt}\n    metric: faults\n    \">\": 0\n")),
            "q.yaml:14:22: expect[0].runs.workload: no workload label named 'falt'; did you mean "
            "'fault'?");
  EXPECT_EQ(
      error_of(with_tail("expect:\n  - runs: {arch: arm46}\n    metric: faults\n    \">\": 0\n")),
      "q.yaml:14:18: expect[0].runs.arch: unknown arch 'arm46'; did you mean 'arm64'? "
      "(valid: x86_64, arm64)");
  EXPECT_EQ(error_of(with_tail(
                "expect:\n  - metric: faults\n    ratio_to: {knobs: \"2M\"}\n    \">\": 0\n")),
            "q.yaml:15:23: expect[0].ratio_to.knobs: no knob set named '2M' (defined: 4K, 64K)");
}

TEST(LoaderExpectTest, ExpectBeforeTheSectionsItNames) {
  auto exp = parse(R"(name: q
expect:
  - {runs: {knobs: b}, metric: faults, ">": 0}
kernels: [{name: k}]
archs: [x86_64]
knobs: {a: {}, b: {}}
workloads: [{name: fault}]
)");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->expectations[0].runs.knobs, "b");
}

TEST(LoaderExpectTest, SelectionArchMustBeInExperiment) {
  EXPECT_EQ(error_of(R"(name: q
kernels: [{name: k}]
archs: [x86_64]
knobs: {a: {}}
workloads: [{name: fault}]
exclude: [{arch: arm64}]
)"),
            "q.yaml:6:18: exclude[0].arch: arch 'arm64' is not in the experiment's archs (x86_64)");
}

TEST(LoaderExpectTest, ParsesExcludeAndKernelArchs) {
  auto exp =
      parse(with_tail("exclude:\n  - {kernel: k, arch: arm64, knobs: \"4K\"}\n  - {workload: "
                      "fault, knobs: \"64K\"}\n"));
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  ASSERT_EQ(exp->excludes.size(), 2u);
  EXPECT_EQ(exp->excludes[0].kernel, "k");
  EXPECT_EQ(exp->excludes[0].arch, Arch::kArm64);
  EXPECT_EQ(exp->excludes[0].knobs, "4K");
  EXPECT_EQ(exp->excludes[1].workload, "fault");
  EXPECT_THAT(exp->kernels[0].archs, ElementsAre());
  EXPECT_THAT(exp->kernels[1].archs, ElementsAre(Arch::kArm64));
  EXPECT_EQ(exp->kernels[1].arch_locs[0].str(), "q.yaml:6:13");
}

TEST(LoaderExpectTest, ExcludeErrors) {
  EXPECT_EQ(error_of(with_tail("exclude:\n  - {}\n")),
            "q.yaml:14:5: exclude[0]: an empty entry would exclude every run; give at least one "
            "of kernel, arch, knobs, workload");
  EXPECT_EQ(error_of(with_tail("exclude:\n  - {knobs: \"128K\"}\n")),
            "q.yaml:14:13: exclude[0].knobs: no knob set named '128K' (defined: 4K, 64K)");
  EXPECT_EQ(error_of(with_tail("exclude: {knobs: \"4K\"}\n")),
            "q.yaml:13:10: exclude: expected a list, got a map");
}

TEST(LoaderExpectTest, KernelArchsErrors) {
  const std::string base = R"(name: q
archs: [x86_64]
knobs: {a: {}}
workloads: [{name: fault}]
kernels:
  - name: k
)";
  EXPECT_EQ(error_of(base + "    archs: [arm64]\n"),
            "q.yaml:7:13: kernels[0].archs[0]: arch 'arm64' is not in the experiment's archs "
            "(x86_64)");
  EXPECT_EQ(error_of(base + "    archs: []\n"),
            "q.yaml:7:12: kernels[0].archs: must list at least one arch (or leave 'archs' out: "
            "all archs)");
  EXPECT_EQ(error_of(base + "    archs: [x86_64, x86_64]\n"),
            "q.yaml:7:21: kernels[0].archs[1]: arch 'x86_64' listed twice (first at 7:13)");
  EXPECT_EQ(error_of(base + "    archs: [x68_64]\n"),
            "q.yaml:7:13: kernels[0].archs[0]: unknown arch 'x68_64'; did you mean 'x86_64'? "
            "(valid: x86_64, arm64)");
}

TEST(LoaderExpectTest, KnobLocations) {
  auto exp = parse(kMinimal);
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  ASSERT_EQ(exp->knob_sets[0].knob_locs.size(), 1u);
  EXPECT_EQ(exp->knob_sets[0].knob_locs[0].str(), "q.yaml:6:16");
}

TEST(LoaderExpectTest, QuickstartHasExpectations) {
  auto exp = load_experiment(std::string(foliolab::source_dir()) + "/experiments/quickstart.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  ASSERT_EQ(exp->expectations.size(), 3u);
  EXPECT_EQ(exp->expectations[0].metric, "mthp.64kB.anon_fault_alloc");
  EXPECT_EQ(exp->expectations[0].op, CompareOp::kGreater);
  EXPECT_EQ(exp->expectations[1].metric, "faults");
  ASSERT_TRUE(exp->expectations[1].ratio_to);
  EXPECT_EQ(exp->expectations[1].ratio_to->knobs, "4K");
  EXPECT_EQ(exp->expectations[2].op, CompareOp::kEqual);
}

}  // namespace
}  // namespace foliolab

namespace foliolab {
namespace {

std::string with_kernel(const std::string& kernel_lines) {
  return "name: q\nkernels:\n  - name: k\n" + kernel_lines +
         "archs: [x86_64]\nknobs: {a: {}}\nworkloads: [{name: fault}]\n";
}

TEST(LoaderGitTest, GitSourceAndCommitRangeParse) {
  auto exp = parse_experiment(with_kernel("    source: {git: ../linux, ref: my-branch}\n"
                                          "    patches: {git: v6.12..my-branch}\n"),
                              "q.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  const KernelSpec& k = exp->kernels[0];
  EXPECT_TRUE(k.source_git);
  EXPECT_EQ(k.source, "../linux");
  EXPECT_EQ(k.source_ref, "my-branch");
  EXPECT_EQ(k.patches_range, "v6.12..my-branch");
  EXPECT_TRUE(k.patches.empty());
}

TEST(LoaderGitTest, MalformedSourceAndPatchesEntriesAreLocated) {
  auto err = [](const std::string& lines) {
    auto exp = parse_experiment(with_kernel(lines), "q.yaml");
    return exp.ok() ? std::string("<parsed without error>") : exp.error().message;
  };
  EXPECT_EQ(err("    source: {ref: main}\n"),
            "q.yaml:4:13: kernels[0].source: missing required key 'git'");
  EXPECT_EQ(err("    source: {git: ../linux, rev: main}\n"),
            "q.yaml:4:29: kernels[0].source.rev: unknown key; did you mean 'ref'?");
  EXPECT_EQ(err("    source: {git: ../linux, ref: a..b}\n"),
            "q.yaml:4:34: kernels[0].source.ref: invalid git ref 'a..b': expected one revision (a "
            "branch, tag or commit)");
  EXPECT_EQ(err("    patches: {git: my-branch}\n"),
            "q.yaml:4:20: kernels[0].patches.git: invalid commit range 'my-branch': expected "
            "BASE..TIP (e.g. v6.12..my-branch)");
  EXPECT_EQ(err("    patches: {git: a...b}\n"),
            "q.yaml:4:20: kernels[0].patches.git: invalid commit range 'a...b': expected BASE..TIP "
            "(e.g. v6.12..my-branch)");
}

// `repeat:` as a count or a map (adaptive repetitions), `warmup:`, `primary: true` and
// `run --repeat-until-ci`, on kMinimal plus `extra`.
Result<Experiment> parse_with(const std::string& extra) {
  return parse(std::string(kMinimal) + extra);
}
std::string repeat_error_of(const std::string& extra) {
  return error_of(std::string(kMinimal) + extra);
}

TEST(LoaderRepeat, APlainCountStaysFixed) {
  auto exp = parse_with("repeat: 5\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->repeat, 5);
  EXPECT_FALSE(exp->adaptive);
  EXPECT_EQ(exp->warmup, 0);
}

TEST(LoaderRepeat, AMapIsAdaptive) {
  auto exp = parse_with("repeat: {min: 4, max: 12, ci: 2.5%}\nwarmup: 1\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->repeat, 4);
  ASSERT_TRUE(exp->adaptive);
  EXPECT_EQ(exp->adaptive->max, 12);
  EXPECT_DOUBLE_EQ(exp->adaptive->ci, 0.025);
  EXPECT_EQ(exp->warmup, 1);
  auto defaults = parse_with("repeat: {ci: 2 %}\n");
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ(defaults->repeat, 3);
  EXPECT_EQ(defaults->adaptive->max, 30);
  EXPECT_DOUBLE_EQ(defaults->adaptive->ci, 0.02);
}

TEST(LoaderRepeat, BadMapsAreLocated) {
  EXPECT_EQ(repeat_error_of("repeat: {min: 1, max: 30, ci: 2%}\n"),
            "q.yaml:9:15: repeat.min: must be at least 2 (no aggregate from fewer than 2 "
            "samples), got 1");
  EXPECT_EQ(repeat_error_of("repeat: {min: 5, max: 4, ci: 2%}\n"),
            "q.yaml:9:23: repeat.max: max 4 is below min 5");
  EXPECT_EQ(repeat_error_of("repeat: {min: 31, ci: 2%}\n"),
            "q.yaml:9:9: repeat: max 30 is below min 31");
  EXPECT_EQ(repeat_error_of("repeat: {max: 20000, ci: 2%}\n"),
            "q.yaml:9:15: repeat.max: at most 10000 repetitions per run, got 20000");
  for (const char* ci : {"2", "0%", "100%", "-1%", "two%", "nan%"}) {
    EXPECT_THAT(repeat_error_of(std::string("repeat: {ci: '") + ci + "'}\n"),
                HasSubstr("q.yaml:9:14: repeat.ci: expected the target half-width of the 95 % CI "
                          "as a percentage of the mean in (0, 100 %), such as 2%, got"))
        << ci;
  }
  EXPECT_EQ(repeat_error_of("repeat: {min: 3, max: 30, cl: 2%}\n"),
            "q.yaml:9:27: repeat.cl: unknown key; did you mean 'ci'?");
  EXPECT_THAT(repeat_error_of("repeat: {min: 3, max: 30}\n"), HasSubstr("q.yaml:9:9: repeat: "));
  EXPECT_THAT(repeat_error_of("repeat: {min: 3, max: 30}\n"), HasSubstr("ci"));
  EXPECT_EQ(repeat_error_of("warmup: -1\n"),
            "q.yaml:9:9: warmup: warm-up reps per boot: 0..100, got -1");
  EXPECT_EQ(repeat_error_of("warmups: 1\n"),
            "q.yaml:9:1: warmups: unknown key; did you mean 'warmup'?");
}

TEST(LoaderRepeat, OnlyATimingCanBePrimary) {
  auto custom = [](const std::string& decl) {
    return std::string(R"(name: q
kernels: [{name: k}]
archs: [x86_64]
knobs: {a: {}}
workloads:
  - name: custom
    params: {source: probe.c}
    metrics:
      lat_ns: )") +
           decl + "\n";
  };
  auto exp = parse_experiment(custom("{kind: timing, primary: true}"), "q.yaml");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->workloads[0].primary_metrics, std::vector<std::string>{"lat_ns"});
  auto count = parse_experiment(custom("{primary: true}"), "q.yaml");
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.error().message,
            "q.yaml:9:25: workloads[0].metrics.lat_ns.primary: only a timing can be primary (a "
            "count needs no more reps); add 'kind: timing' if 'lat_ns' is one");
}

TEST(LoaderRepeat, RepeatUntilCiOnTheCommandLine) {
  auto exp = parse_with("repeat: 5\n");
  ASSERT_TRUE(exp.ok());
  ASSERT_TRUE(apply_repeat_until_ci(*exp, "2%").ok());
  EXPECT_EQ(exp->repeat, 5);  // the file's count is the minimum: its run ids stay
  EXPECT_EQ(exp->adaptive->max, 30);
  EXPECT_DOUBLE_EQ(exp->adaptive->ci, 0.02);
  // The file's min and max stay.
  auto map = parse_with("repeat: {min: 4, max: 8, ci: 10%}\n");
  ASSERT_TRUE(map.ok());
  ASSERT_TRUE(apply_repeat_until_ci(*map, "1.5%").ok());
  EXPECT_EQ(map->repeat, 4);
  EXPECT_EQ(map->adaptive->max, 8);
  EXPECT_DOUBLE_EQ(map->adaptive->ci, 0.015);
  EXPECT_TRUE(apply_repeat_until_ci(*map, "").ok());  // no flag: nothing changes
  EXPECT_DOUBLE_EQ(map->adaptive->ci, 0.015);
  EXPECT_EQ(apply_repeat_until_ci(*map, "2").error().message,
            "--repeat-until-ci 2: expected a percentage of the mean in (0, 100 %), such as 2%");
}

}  // namespace
}  // namespace foliolab

namespace foliolab {
namespace {

TEST(LoaderTest, GateRuleTimingsTrueFalseOrIcount) {
  const std::string gate = std::string(kMinimal) +
                           "gate:\n"
                           "  - {metric: sys_s, max_regression: 5%, timings: icount}\n"
                           "  - {metric: sys_s, max_regression: 5%, timings: true}\n"
                           "  - {metric: sys_s, max_regression: 5%}\n";
  auto exp = parse(gate);
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  ASSERT_EQ(exp->gate_rules.size(), 3u);
  EXPECT_EQ(exp->gate_rules[0].timings, GateTimings::kIcount);
  EXPECT_EQ(exp->gate_rules[1].timings, GateTimings::kAll);
  EXPECT_EQ(exp->gate_rules[2].timings, GateTimings::kNone);
  EXPECT_NE(error_of(std::string(kMinimal) +
                     "gate:\n  - {metric: sys_s, max_regression: 5%, timings: wall}\n"),
            "<parsed without error>");
}

// machine.image names a recipe under images/ (checked by validate_project); `initramfs`, the
// default, means none.
TEST(LoaderTest, MachineImageNamesARecipeAndInitramfsMeansNone) {
  auto exp = parse(std::string(kMinimal) + "machine: {image: debian-redis}\n");
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->machine.image, "debian-redis");
  EXPECT_EQ(exp->machine.image_loc.str(), "q.yaml:9:18");
  auto initramfs = parse(std::string(kMinimal) + "machine: {image: initramfs}\n");
  ASSERT_TRUE(initramfs.ok()) << initramfs.error().message;
  EXPECT_EQ(initramfs->machine.image, "");
  EXPECT_EQ(initramfs->machine.image_loc.line, 0);
  auto plain = parse(std::string(kMinimal));
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->machine.image, "");
  EXPECT_EQ(error_of("name: q\nmachine: {image: ''}\n"),
            "q.yaml:2:18: machine.image: must not be empty");
  EXPECT_EQ(error_of("name: q\nmachine: {image: [debian-redis]}\n"),
            "q.yaml:2:18: machine.image: expected a scalar, got a list");
  EXPECT_EQ(error_of("name: q\nmachine: {imgae: debian-redis}\n"),
            "q.yaml:2:11: machine.imgae: unknown key; did you mean 'image'?");
}

}  // namespace
}  // namespace foliolab
