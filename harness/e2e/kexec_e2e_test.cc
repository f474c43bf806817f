// End-to-end tests of the kexec backend (issue 47) against a stand-in lab machine: a QEMU guest
// booting a Debian root filesystem with openssh-server and kexec-tools (images/
// debian-kexec-lab.yaml, built by the real mmdebstrap) on a kernel with CONFIG_KEXEC
// (testing/standin_lab.h). foliolab copies the run's kernel and initramfs to it over ssh,
// kexec's them, takes the agent's records over TCP and waits for the machine's own kernel.
//
// One kernel serves both sides: the stand-in's own kernel and the run's kernel are the same build
// (the full guest kernel, foliolab's kexec fragment, and the stand-in's hosts-file fragment
// kexec-standin: VIRTIO_NET and KEXEC), so the tests build one kernel config per arch, not two.
// Every test boots a stand-in of its own (about half a minute under TCG) so none depends on
// another.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "model/arch.h"
#include "results/store.h"
#include "testing/cli_binary.h"
#include "testing/standin_lab.h"
#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/text.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

// The stand-in's own fragment (its hosts-file `config:`): testdata/kexec/kernel-config/.
std::string standin_fragment(const std::string& arch) {
  return arch == "arm64" ? "kexec-standin-arm64" : "kexec-standin";
}

// The quickstart's shape on the lab machine: 4K against 64K mTHP, the fault workload. Under
// backend qemu (`qemu` true) the kexec fragments are written out: the same kernel build.
std::string quick_experiment(const std::string& arch, bool qemu) {
  return fmt::format(
      "name: {}-quick-{}\n"
      "kernels:\n  - name: lab\n    guest: full\n{}"
      "archs: [{}]\n"
      "machine: {{{}memory: 1G}}\n"
      "knobs:\n"
      "  4K: {{hugepages-64kB/enabled: never}}\n"
      "  64K mTHP: {{hugepages-64kB/enabled: always}}\n"
      "workloads: [{{name: fault, params: {{size: 16M}}}}]\n"
      "repeat: 2\ntimeout: 900\n",
      qemu ? "qemu" : "kexec", arch,
      qemu ? "    config: [kexec, " + standin_fragment(arch) + "]\n" : "", arch,
      qemu ? "" : "backend: kexec, ");
}

// The last word of the output line starting with `prefix` ("lab x86_64 <id> built <path>").
std::vector<std::string> line_words(const std::string& output, const std::string& prefix) {
  for (const auto& line : split_lines(output)) {
    if (line.rfind(prefix, 0) == 0) return split_words(line);
  }
  return {};
}

class E2EKexec : public ::testing::Test {
 protected:
  // The stand-in for `arch`, its kernel built (or a cache hit) by foliolab from qemu-ARCH.yaml
  // like any experiment's, its root filesystem by `foliolab image`.
  void start(const std::string& arch) {
    arch_ = arch;
    const fs::path src(source_dir());
    fs::create_directories(dir_ / "kernel-config");
    for (const std::string& f :
         {"kernel-config/" + standin_fragment(arch) + ".config", std::string("qemu-monitor.py")}) {
      fs::copy_file(src / "harness/e2e/testdata/kexec" / f, dir_ / f);
    }
    ASSERT_TRUE(write_file_atomic(dir_ / "qemu.yaml", quick_experiment(arch, true)).ok());
    ASSERT_TRUE(write_file_atomic(dir_ / "exp.yaml", quick_experiment(arch, false)).ok());
    auto built = run_cli({"build-kernel", "qemu.yaml"}, dir_.path(), dir_ / "build.log");
    ASSERT_TRUE(built.ok()) << built.output;
    const auto k = line_words(built.output, "lab " + arch + " ");
    ASSERT_EQ(k.size(), 5u) << built.output;
    build_id_ = k[2];
    auto image = run_cli({"image", "--recipe", "debian-kexec-lab", "--arch", arch}, dir_.path(),
                         dir_ / "image.log");
    ASSERT_TRUE(image.ok()) << image.output;
    const auto d = line_words(image.output, "debian-kexec-lab " + arch + " ");
    ASSERT_GE(d.size(), 5u) << image.output;
    auto lab = StandinLab::start(dir_.path(), *parse_arch(arch), k[4], d[4]);
    ASSERT_TRUE(lab.ok()) << lab.error().message;
    lab_ = std::move(*lab);
    own_release_ = lab_->release();
    ASSERT_FALSE(own_release_.empty());
  }

  // The hosts file of the stand-in, with the known_hosts file named (ssh-keyscan's by default).
  void write_hosts(const std::string& known_hosts = "known_hosts") {
    ASSERT_TRUE(
        write_file_atomic(
            dir_ / "lab.yaml",
            fmt::format("hosts:\n  - uri: {}\n    identity: lab-key\n"
                        "    known_hosts: {}\n"
                        "    power_cycle: [python3, qemu-monitor.py, \"{}\", system_reset]\n"
                        "    config: [{}]\n"
                        "    boot_timeout: 120\n    reboot_timeout: 600\n",
                        lab_->uri(), known_hosts, lab_->monitor_port(), standin_fragment(arch_)))
            .ok());
  }

  std::vector<RunRecord> records_of(const std::string& name) {
    auto session = ResultStore::latest(dir_ / "results", name);
    EXPECT_TRUE(session);
    if (!session) return {};
    auto all = ResultStore::open(*session)->load_all();
    EXPECT_TRUE(all.ok()) << all.error().message;
    return all.ok() ? *all : std::vector<RunRecord>{};
  }

  ScopedTestDir dir_{"kexec"};
  std::unique_ptr<StandinLab> lab_;
  std::string arch_, build_id_, own_release_;
};

class E2EKexecArch : public E2EKexec, public ::testing::WithParamInterface<std::string> {};

const RunRecord* knob_run(const std::vector<RunRecord>& records, const std::string& knob_set) {
  for (const RunRecord& r : records) {
    if (r.id.knob_set.name == knob_set) return &r;
  }
  return nullptr;
}

// The run's kernel ran on the machine (its release and build id in the record), the counts are
// those of the same runs under backend qemu, and the machine is back on its own kernel after.
// arm64 too: kexec works in a TCG virt guest (measured 2026-12-07; docs/backends.md).
TEST_P(E2EKexecArch, AQuickstartShapedRunBootsTheRunsKernelAndCountsMatchQemu) {
  ASSERT_NO_FATAL_FAILURE(start(GetParam()));
  write_hosts();
  const std::string boot_before = lab_->boot_id();
  auto r = run_cli({"run", "exp.yaml", "--hosts", "lab.yaml", "--results", "results"}, dir_.path(),
                   dir_ / "run.log");
  ASSERT_TRUE(r.ok()) << r.output;
  const auto lab = records_of("kexec-quick-" + arch_);
  ASSERT_EQ(lab.size(), 2u);
  for (const RunRecord& rec : lab) {
    SCOPED_TRACE(rec.id.knob_set.name);
    ASSERT_EQ(rec.status, "ok") << rec.reason;
    EXPECT_EQ(rec.provenance.backend, "kexec");
    EXPECT_EQ(rec.provenance.accel, "none");
    EXPECT_EQ(rec.provenance.timing, "hardware");
    EXPECT_FALSE(rec.provenance.timings_emulated);
    EXPECT_EQ(rec.provenance.kernel_build_id, build_id_);
    EXPECT_EQ(rec.provenance.guest.release, rec.provenance.kernel_version);
    EXPECT_NE(rec.provenance.guest.cmdline.find(" ip=dhcp foliolab.report=tcp:10.0.2.2:"),
              std::string::npos)
        << rec.provenance.guest.cmdline;
    // What foliolab read of the machine before the run.
    const LabMachineInfo& m = rec.provenance.lab_machine;
    EXPECT_EQ(m.name, lab_->uri().substr(6) /* root@127.0.0.1:PORT */);
    EXPECT_EQ(m.own_release, own_release_);
    EXPECT_EQ(m.cpus, 1);
    EXPECT_GT(m.mem_total_kb, 900 * 1024);
    EXPECT_EQ(m.numa_nodes, 1);
    EXPECT_FALSE(m.cpu_model.empty());
  }
  // Back on its own kernel: a new boot, the release it had.
  const std::string boot_after = lab_->boot_id();
  EXPECT_FALSE(boot_after.empty());
  EXPECT_NE(boot_after, boot_before);
  EXPECT_EQ(lab_->release(), own_release_);
  // The same runs under backend qemu on the same kernel build: the same counts.
  auto q = run_cli({"run", "qemu.yaml", "--results", "results"}, dir_.path(), dir_ / "qemu.log");
  ASSERT_TRUE(q.ok()) << q.output;
  const auto qemu = records_of("qemu-quick-" + arch_);
  ASSERT_EQ(qemu.size(), 2u);
  for (const char* knobs : {"4K", "64K mTHP"}) {
    SCOPED_TRACE(knobs);
    const RunRecord* a = knob_run(lab, knobs);
    const RunRecord* b = knob_run(qemu, knobs);
    ASSERT_TRUE(a && b);
    ASSERT_EQ(b->status, "ok") << b->reason;
    EXPECT_EQ(b->provenance.kernel_build_id, build_id_);
    ASSERT_EQ(a->reps.size(), b->reps.size());
    for (size_t i = 0; i < a->reps.size(); ++i) {
      for (const char* count : {"faults", "pages", "page_size"}) {
        EXPECT_EQ(a->reps[i].metrics.at(count), b->reps[i].metrics.at(count)) << count;
      }
    }
  }
  const RunRecord* mthp = knob_run(lab, "64K mTHP");
  ASSERT_TRUE(mthp);
  EXPECT_EQ(mthp->reps[0].metrics.at("faults"), 256);  // 16 MiB in 64 KiB folios
}

INSTANTIATE_TEST_SUITE_P(E2E, E2EKexecArch, ::testing::Values("x86_64", "arm64"),
                         [](const auto& info) { return info.param; });

// A kernel that hangs after kexec (a panic with panic=0): no record connection by the host's
// boot_timeout, the watchdog's power cycle (the stand-in's QEMU monitor system_reset) brings
// the machine back on its own kernel, the run is failed with the reason, and the next run is ok.
TEST_F(E2EKexec, AKernelThatPanicsIsPowerCycledAndTheNextRunIsOk) {
  ASSERT_NO_FATAL_FAILURE(start("x86_64"));
  write_hosts();
  ASSERT_TRUE(
      write_file_atomic(dir_ / "panic.yaml",
                        "name: kexec-panic\n"
                        "kernels:\n"
                        "  - {name: hangs, guest: full, cmdline: \"rdinit=/nope panic=0\"}\n"
                        "  - {name: lab, guest: full}\n"
                        "archs: [x86_64]\nmachine: {backend: kexec, memory: 1G}\n"
                        "knobs: {64K mTHP: {hugepages-64kB/enabled: always}}\n"
                        "workloads: [{name: fault, params: {size: 16M}}]\n"
                        "repeat: 2\ntimeout: 900\n")
          .ok());
  auto r = run_cli({"run", "panic.yaml", "--hosts", "lab.yaml", "--results", "results"},
                   dir_.path(), dir_ / "run.log");
  EXPECT_FALSE(r.ok());  // one run failed
  EXPECT_NE(r.output.find("runs: 1 ok, 1 failed"), std::string::npos) << r.output;
  const auto records = records_of("kexec-panic");
  ASSERT_EQ(records.size(), 2u);
  for (const RunRecord& rec : records) {
    if (rec.id.kernel.name == "hangs") {
      EXPECT_EQ(rec.status, "timed-out");
      EXPECT_NE(rec.reason.find("watchdog on root@127.0.0.1:"), std::string::npos) << rec.reason;
      EXPECT_NE(rec.reason.find("no record connection within 120s of kexec -e"), std::string::npos)
          << rec.reason;
      const fs::path log = ResultStore::latest(dir_ / "results", "kexec-panic").value() / "runs" /
                           rec.id.run_id / rec.artifacts.console_log;
      auto text = read_file(log);
      ASSERT_TRUE(text.ok()) << log;
      EXPECT_NE(text->find("power cycle: `python3 qemu-monitor.py"), std::string::npos) << *text;
      EXPECT_NE(text->find("back on its own kernel " + own_release_), std::string::npos) << *text;
    } else {
      EXPECT_EQ(rec.status, "ok") << rec.reason;
      EXPECT_EQ(rec.provenance.kernel_build_id, build_id_);
    }
  }
  EXPECT_EQ(lab_->release(), own_release_);
}

// ssh checks the machine's host key: one it does not know stops the session before anything is
// copied (the machine's /tmp/foliolab, where the kernel would go, is not there).
TEST_F(E2EKexec, AnUnknownHostKeyStopsTheRunBeforeAnythingIsCopied) {
  ASSERT_NO_FATAL_FAILURE(start("x86_64"));
  ASSERT_TRUE(write_file_atomic(dir_ / "empty_known_hosts", "").ok());
  write_hosts("empty_known_hosts");
  auto r = run_cli({"run", "exp.yaml", "--hosts", "lab.yaml", "--results", "results"}, dir_.path(),
                   dir_ / "run.log");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.output.find("host key"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nothing was copied"), std::string::npos) << r.output;
  ProcessResult there = lab_->ssh({"test", "-e", "/tmp/foliolab"});
  EXPECT_EQ(there.exit_code, 1) << there.output;  // ssh worked, and the folder is not there
}

}  // namespace
}  // namespace foliolab
