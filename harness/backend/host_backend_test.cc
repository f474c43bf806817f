#include "backend/host_backend.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/utsname.h>

#include "backend/backend_table.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string host_arch_name() { return std::string(arch_info(host_arch()).name); }

Experiment parse_host(const std::string& yaml) {
  auto exp = parse_experiment(yaml, "h.yaml");
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  return exp.ok() ? *exp : Experiment{};
}

std::string yaml_with(const std::string& knobs, const std::string& archs = host_arch_name(),
                      const std::string& kernels = "  - name: k\n") {
  return "name: h\nkernels:\n" + kernels + "archs: [" + archs +
         "]\nmachine: {backend: host}\nknobs:\n" + knobs + "workloads:\n  - name: fault\n";
}

struct Fixture {
  fs::path dir = fresh_test_dir("foliolab-hostbackend");
  fs::path sys = dir / "root";
  bool root = true;
  HostBackend backend{
      {.state_dir = dir / "state", .sys_root = sys, .is_root = [this] { return root; }}};
  Fixture() {
    for (const char* f : {"enabled", "hugepages-64kB/enabled", "khugepaged/defrag"}) {
      EXPECT_TRUE(write_file_atomic(sys / "sys/kernel/mm/transparent_hugepage" / f, "x\n").ok());
    }
    EXPECT_TRUE(write_file_atomic(sys / "proc/sys/vm/overcommit_memory", "0\n").ok());
  }
  Result<void> preflight(const std::string& yaml) {
    Experiment exp = parse_host(yaml);
    return backend.preflight(exp, expand(exp));
  }
};

std::string release() {
  utsname u{};
  ::uname(&u);
  return u.release;
}

TEST(HostBackendTest, JobKnobPathsAreTheHostPathsTheJobWrites) {
  const std::string job =
      "foliolab-job 1\nrun_id x\nknob enabled always\nknob hugepages-64kB/enabled inherit\n"
      "sysctl vm/overcommit_memory 1\nworkload fault\narg size 64M\n";
  EXPECT_EQ(job_knob_paths(job),
            (std::vector<std::string>{"/sys/kernel/mm/transparent_hugepage/enabled",
                                      "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled",
                                      "/proc/sys/vm/overcommit_memory"}));
}

TEST(HostBackendTest, PreflightAcceptsKnobsTheHostHas) {
  Fixture f;
  auto st =
      f.preflight(yaml_with("  a: {enabled: never, hugepages-64kB/enabled: always, sysctl: "
                            "{vm/overcommit_memory: 1}}\n  b: {enabled: always}\n"));
  EXPECT_TRUE(st.ok()) << st.error().message;
}

TEST(HostBackendTest, PreflightRefusesWithoutRoot) {
  Fixture f;
  f.root = false;
  auto st = f.preflight(yaml_with("  a: {enabled: never}\n"));
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message, HasSubstr("backend host needs root"));
}

TEST(HostBackendTest, PreflightNamesAMissingKnobAndTheHostKernel) {
  Fixture f;
  auto st =
      f.preflight(yaml_with("  a: {enabled: never}\n  b: {hugepages-16kB/enabled: always}\n"));
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message, HasSubstr("hugepages-16kB/enabled"));
  EXPECT_THAT(st.error().message, HasSubstr(release()));
  EXPECT_THAT(st.error().message, HasSubstr("knob set 'b'"));
  auto sysctl = f.preflight(yaml_with("  a: {sysctl: {vm/no_such_sysctl: 1}}\n"));
  ASSERT_FALSE(sysctl.ok());
  EXPECT_THAT(sysctl.error().message,
              HasSubstr("sysctl no_such_sysctl (/proc/sys/vm/no_such_sysctl)"));
}

TEST(HostBackendTest, PreflightRefusesOtherArchsSeveralKernelsAndACmdline) {
  Fixture f;
  const std::string other = host_arch() == Arch::kX86_64 ? "arm64" : "x86_64";
  auto arch = f.preflight(yaml_with("  a: {enabled: never}\n", host_arch_name() + ", " + other));
  ASSERT_FALSE(arch.ok());
  EXPECT_THAT(arch.error().message, HasSubstr("--arch " + host_arch_name()));
  auto kernels = f.preflight(
      yaml_with("  a: {enabled: never}\n", host_arch_name(), "  - name: k\n  - name: k2\n"));
  ASSERT_FALSE(kernels.ok());
  EXPECT_THAT(kernels.error().message, HasSubstr("2 kernels"));
  auto cmdline =
      f.preflight(yaml_with("  a: {enabled: never, cmdline: \"thp_anon=64K:always\"}\n"));
  ASSERT_FALSE(cmdline.ok());
  EXPECT_THAT(cmdline.error().message, HasSubstr("kernel command line"));
}

TEST(HostBackendTest, PreflightRefusesWhileAnotherProcessHoldsTheHost) {
  Fixture f;
  auto lock = HostLock::acquire(f.dir / "state");
  ASSERT_TRUE(lock.ok());
  auto st = f.preflight(yaml_with("  a: {enabled: never}\n"));
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message, HasSubstr("another foliolab"));
}

TEST(BackendTableTest, EntriesDeclareWhatTheyNeed) {
  const BackendEntry* qemu = find_backend("qemu");
  const BackendEntry* host = find_backend("host");
  ASSERT_TRUE(qemu && host);
  EXPECT_TRUE(qemu->needs.kernel && qemu->needs.initrd && qemu->needs.parallel);
  EXPECT_FALSE(host->needs.kernel || host->needs.initrd || host->needs.parallel);
  EXPECT_EQ(host->transport, ResultTransport::kInheritedFd);
  EXPECT_EQ(find_backend("nope"), nullptr);
}

TEST(BackendTableTest, OnlyQemuPassesIcount) {  // libvirt's domain XML has no <qemu:commandline>
  for (const BackendEntry& e : backend_table()) EXPECT_EQ(e.needs.icount, e.name == "qemu");
  EXPECT_TRUE(BackendNeeds{}.icount);  // the default needs are QEMU's
}

TEST(BackendTableTest, UnknownMachineBackendIsALocatedErrorWithASuggestion) {
  Experiment exp = parse_host(
      "name: h\nkernels:\n  - name: k\narchs: [x86_64]\nmachine:\n  backend: hots\n"
      "knobs:\n  a: {enabled: never}\nworkloads:\n  - name: fault\n");
  EXPECT_EQ(exp.machine.backend, "hots");
  auto st = validate_backend(exp);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message,
              HasSubstr("h.yaml:6:12: machine.backend: unknown backend 'hots'; did you mean "
                        "'host'? (valid: qemu, host, libvirt, kexec)"));
  exp.machine.backend = "host";
  EXPECT_TRUE(validate_backend(exp).ok());
  EXPECT_EQ(parse_host(yaml_with("  a: {enabled: never}\n")).machine.backend, "host");
}

}  // namespace
}  // namespace foliolab
