// The kexec backend against a fake lab machine: ssh, scp and the power-cycle command are
// played (the machine's state is a boot id and what was loaded), the record channel is real
// (the fake machine's "agent" connects back over loopback with the nonce it finds in the
// initrd it was sent). The real stand-in (a QEMU guest with sshd) is the e2e test's.
#include "backend/kexec_backend.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "image/cpio.h"
#include "testing/fake_process_runner.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {
using namespace std::chrono_literals;

void agent_sends(uint16_t port, const std::string& greeting_and_records) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    (void)!write(fd, greeting_and_records.data(), greeting_and_records.size());
  }
  close(fd);
}

// A lab machine as ssh, scp and its power switch see it.
struct FakeLabMachine {
  FakeProcessRunner runner;
  std::mutex mu;
  std::string boot_id = "boot-1";
  std::string nonce;
  uint16_t port = 0;
  bool hangs = false;          // the kexec'ed kernel never reports (a panic)
  bool host_key_known = true;  // ssh's StrictHostKeyChecking verdict
  int power_cycles = 0, scps = 0, boots = 1;
  size_t base_initrd_size = 0;
  std::vector<std::thread> agents;

  void reboot() {
    std::lock_guard<std::mutex> l(mu);
    boot_id = "boot-" + std::to_string(++boots);
  }

  FakeLabMachine() {
    runner.on(FakeProcessRunner::program("ssh"), [this](const ProcessSpec& s) {
      if (!host_key_known) {
        ProcessResult r;
        r.exit_code = 255;
        r.output = "Host key verification failed.\n";
        return r;
      }
      const std::string& cmd = s.argv.back();
      if (cmd.find("uname -r") != std::string::npos) {
        std::lock_guard<std::mutex> l(mu);
        return FakeProcessRunner::ok("release=6.1.0-lab\nboot_id=" + boot_id +
                                     "\nclient=127.0.0.1\ncpu=Lab CPU @ 2.0GHz\narch=x86_64\n"
                                     "cpus=8\nmem_kb=16318504\nnodes=2\n");
      }
      if (const size_t at = cmd.find("foliolab.report=tcp:127.0.0.1:"); at != std::string::npos) {
        port = static_cast<uint16_t>(std::stoi(cmd.substr(at + 30)));
      }
      if (cmd.find("kexec -e") != std::string::npos && !hangs) {
        agents.emplace_back([this] {
          agent_sends(port, "FOLIOLAB-RECORDS " + nonce + "\n@FL1 done 0 0 0\n\n");
          reboot();
        });
      }
      return FakeProcessRunner::ok();
    });
    runner.on(FakeProcessRunner::program("scp"), [this](const ProcessSpec& s) {
      ++scps;
      // The run's initrd, then the archive with the nonce (read_cpio reads one archive).
      const std::string sent = *read_file(s.argv[s.argv.size() - 2]);
      auto entries = read_cpio(sent.substr(base_initrd_size));
      for (const CpioEntry& e : *entries) {
        if (e.path == "job/nonce") nonce = std::string(e.data.substr(0, e.data.size() - 1));
      }
      return FakeProcessRunner::ok();
    });
    runner.on(FakeProcessRunner::program("power-cycle"), [this](const ProcessSpec&) {
      ++power_cycles;
      reboot();
      return FakeProcessRunner::ok();
    });
  }
  ~FakeLabMachine() {
    for (auto& t : agents) t.join();
  }
};

class KexecBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(write_file_atomic(dir_ / "bzImage", "kernel").ok());
    auto base = write_cpio({{.path = "init", .mode = 0755, .data = "agent"}});
    ASSERT_TRUE(write_file_atomic(dir_ / "initrd.cpio", *base).ok());
    lab_.base_initrd_size = base->size();
  }
  KexecBackend backend(std::vector<std::string> power_cycle = {"power-cycle"}) {
    return KexecBackend(lab_.runner, {.ssh = {.host = "lab1"},
                                      .power_cycle = std::move(power_cycle),
                                      .listen = "127.0.0.1",
                                      .reboot_timeout = 1s,
                                      .poll_interval = 20ms});
  }
  BootRequest request(std::chrono::seconds timeout = 20s) {
    return {.kernel = dir_ / "bzImage",
            .initrd = dir_ / "initrd.cpio",
            .cmdline = "console=ttyS0",
            .run_dir = dir_ / "run",
            .timeout = timeout};
  }
  ScopedTestDir dir_{"foliolab-kexec"};
  FakeLabMachine lab_;
};

TEST_F(KexecBackendTest, TheRunsRecordsComeBackAndTheMachineIsOnItsOwnKernelAgain) {
  KexecBackend b = backend();
  auto out = b.boot(request());
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_FALSE(out->timed_out) << out->exit << "\n" << *read_file(out->console_log);
  EXPECT_FALSE(out->abnormal_exit) << out->exit;
  EXPECT_EQ(out->backend, "kexec");
  EXPECT_EQ(*read_file(out->records_file), "@FL1 done 0 0 0\n\n");
  EXPECT_EQ(lab_.nonce.size(), 32u);
  EXPECT_EQ(lab_.power_cycles, 0);
  EXPECT_NE(out->command.find("'--append=console=ttyS0 ip=dhcp foliolab.report=tcp:127.0.0.1:"),
            std::string::npos)
      << out->command;
  const std::string console = *read_file(out->console_log);
  EXPECT_NE(console.find("back on its own kernel 6.1.0-lab (boot id boot-2)"), std::string::npos)
      << console;
  EXPECT_TRUE(b.reachable().ok());
  // The machine as it said over ssh before the run: the record's boot.machine.
  EXPECT_EQ(out->lab_machine.name, "root@lab1:22");
  EXPECT_EQ(out->lab_machine.own_release, "6.1.0-lab");
  EXPECT_EQ(out->lab_machine.cpu_model, "Lab CPU @ 2.0GHz");
  EXPECT_EQ(out->lab_machine.cpus, 8);
  EXPECT_EQ(out->lab_machine.mem_total_kb, 16318504);
  EXPECT_EQ(out->lab_machine.numa_nodes, 2);
}

TEST_F(KexecBackendTest, AMachineWithAnUnknownHostKeyIsNotOpened) {
  lab_.host_key_known = false;
  auto b = KexecBackend::open(lab_.runner, {.ssh = {.host = "lab1"}});
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("host key"), std::string::npos) << b.error().message;
  EXPECT_EQ(lab_.scps, 0);
}

TEST_F(KexecBackendTest, RunsOfAnotherArchAreRefusedBeforeAnyBoot) {
  auto b = KexecBackend::open(lab_.runner, {.ssh = {.host = "lab1"}});
  ASSERT_TRUE(b.ok()) << b.error().message;
  Experiment exp;
  EXPECT_TRUE((*b)->preflight(exp, {foliolab::Run{.id = "x", .arch = Arch::kX86_64}}).ok());
  auto st = (*b)->preflight(exp, {foliolab::Run{.id = "a1", .arch = Arch::kArm64}});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("root@lab1:22 is x86_64 (uname -m): it cannot kexec the "
                                    "arm64 kernel of run a1"),
            std::string::npos)
      << st.error().message;
}

TEST(KexecHostSpec, TakesTheHostsFileKeys) {
  PoolHost h{.uri = "ssh://admin@lab2:2222"};
  h.lab.power_cycle = {"ipmitool", "-H", "lab2-bmc", "chassis", "power", "cycle"};
  h.lab.identity = "keys/lab";
  h.lab.cmdline = "console=ttyS1,115200";
  h.lab.reboot_timeout_s = 600;
  auto spec = kexec_host_spec(h);
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->ssh.name(), "admin@lab2:2222");
  EXPECT_EQ(spec->ssh.identity, "keys/lab");
  EXPECT_EQ(spec->power_cycle.front(), "ipmitool");
  EXPECT_EQ(spec->cmdline, "console=ttyS1,115200");
  EXPECT_EQ(spec->listen, "");  // the interface that routes to the machine
  EXPECT_EQ(spec->reboot_timeout, 600s);
  EXPECT_FALSE(kexec_host_spec({.uri = "qemu:///system"}).ok());
}

TEST_F(KexecBackendTest, AKernelThatNeverReportsIsPowerCycledFailedAndTheNextRunIsOk) {
  KexecBackend b = backend();
  lab_.hangs = true;
  auto hung = b.boot(request(1s));
  ASSERT_TRUE(hung.ok()) << hung.error().message;
  EXPECT_TRUE(hung->timed_out);
  EXPECT_NE(hung->exit.find("no record connection within 1s of kexec -e"), std::string::npos)
      << hung->exit;
  EXPECT_EQ(lab_.power_cycles, 1);
  EXPECT_NE(read_file(hung->console_log)->find("power cycle: `power-cycle`: ok"),
            std::string::npos);
  EXPECT_TRUE(b.reachable().ok());
  lab_.hangs = false;
  auto next = b.boot(request());
  ASSERT_TRUE(next.ok()) << next.error().message;
  EXPECT_FALSE(next->timed_out);
  EXPECT_EQ(*read_file(next->records_file), "@FL1 done 0 0 0\n\n");
}

TEST_F(KexecBackendTest, AMachineThatDoesNotComeBackWithoutAPowerSwitchIsDown) {
  KexecBackend b = backend({});
  lab_.hangs = true;
  auto hung = b.boot(request(1s));
  ASSERT_TRUE(hung.ok()) << hung.error().message;
  EXPECT_TRUE(hung->abnormal_exit);
  EXPECT_NE(hung->exit.find("no power_cycle command for this machine"), std::string::npos)
      << hung->exit;
  ASSERT_FALSE(b.reachable().ok());
  EXPECT_NE(b.reachable().error().message.find("root@lab1:22 is down"), std::string::npos);
  EXPECT_FALSE(b.boot(request()).ok());
}

TEST_F(KexecBackendTest, AnUnknownHostKeyStopsTheRunBeforeAnythingIsCopied) {
  KexecBackend b = backend();
  lab_.host_key_known = false;
  auto out = b.boot(request());
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.error().message.find("its host key is not in ~/.ssh/known_hosts"),
            std::string::npos)
      << out.error().message;
  EXPECT_EQ(lab_.scps, 0);
}

}  // namespace
}  // namespace foliolab
