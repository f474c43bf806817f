// End-to-end tests of the libvirt backend against a real libvirtd that the tests start
// themselves (e2e/libvirt_daemon.h: private configuration, sockets and state), booting real
// guests through `foliolab run --backend libvirt --connect URI`, so the CLI wiring is tested
// too. Kernels and images come from the shared cache, as for the QEMU backend's e2e tests.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <libvirt/libvirt.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <signal.h>

#include <fstream>
#include <regex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "e2e/libvirt_daemon.h"
#include "e2e/quickstart_checks.h"
#include "model/loader.h"
#include "model/matrix.h"
#include "results/store.h"
#include "testing/cli_binary.h"
#include "testing/source_root.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

// A loopback TCP port nobody listens on now (the kernel's pick for port 0).
int free_tcp_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 16509;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  if (fd >= 0) ::close(fd);
  return port;
}

struct CliRun {
  ProcessResult process;
  fs::path session;
  std::vector<RunRecord> records;
};

class E2ELibvirt : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / fmt::format("foliolab-libvirt-{}", ::getpid()));
    // The same daemon also listens on loopback TCP, without authentication (test only): a
    // remote-style URI whose console and records come back through libvirt streams.
    port_ = free_tcp_port();
    auto d = LibvirtDaemon::start(
        *dir_ / "daemon",
        fmt::format("listen_tls = 0\nlisten_tcp = 1\nlisten_addr = \"127.0.0.1\"\n"
                    "tcp_port = \"{}\"\nauth_tcp = \"none\"\n",
                    port_),
        {"--listen"});
    if (d.ok()) {
      daemon_ = d->release();
    } else {
      start_error_ = new std::string(d.error().message);
    }
  }
  static void TearDownTestSuite() {
    delete daemon_;  // destroys leftover domains, then ends libvirtd
    daemon_ = nullptr;
  }
  void SetUp() override {
    ASSERT_NE(daemon_, nullptr) << "cannot start libvirtd: " << (start_error_ ? *start_error_ : "");
  }

  static std::string tcp_uri() { return fmt::format("qemu+tcp://127.0.0.1:{}/system", port_); }

  // `foliolab run YAML --backend libvirt --connect URI` (default: the test daemon's unix
  // socket), and the session it wrote.
  static CliRun run(const fs::path& yaml, const std::string& name, std::string uri = "") {
    if (uri.empty()) uri = daemon_->uri();
    return run_with(yaml, name, {"--backend", "libvirt", "--connect", uri});
  }

  // `foliolab run YAML ARGS... --results <dir>/<name>-results --quiet`.
  static CliRun run_with(const fs::path& yaml, const std::string& name,
                         const std::vector<std::string>& args) {
    const fs::path results = *dir_ / (name + "-results");
    std::error_code ec;
    fs::remove_all(results, ec);
    RealProcessRunner proc;
    CliRun out;
    std::vector<std::string> argv = {foliolab::cli_binary(), "run", yaml.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--results", results.string(), "--quiet"});
    out.process = proc.run({.argv = argv, .log_path = *dir_ / (name + ".log"), .capture = true});
    const std::string marker = "results: ";
    if (auto at = out.process.output.rfind(marker); at != std::string::npos) {
      const auto end = out.process.output.find('\n', at);
      out.session = out.process.output.substr(at + marker.size(), end - at - marker.size());
      auto store = ResultStore::open(out.session);
      EXPECT_TRUE(store.ok()) << store.error().message;
      if (store.ok()) {
        auto all = store->load_all();
        EXPECT_TRUE(all.ok()) << all.error().message;
        if (all.ok()) out.records = *all;
      }
    }
    return out;
  }

  // A one-run experiment on the quickstart kernel (repeat 2), written beside the daemon.
  static fs::path one_run_yaml(const std::string& name, const std::string& arch,
                               const std::string& machine, const std::string& knob_set,
                               const std::string& workload, int timeout) {
    const fs::path f = *dir_ / (name + ".yaml");
    EXPECT_TRUE(write_file_atomic(
                    f, fmt::format("name: {}\nkernels:\n  - name: 6.12-mthp-vmstat\n"
                                   "    patches: mthp-vmstat\narchs: [{}]\nmachine:\n{}knobs:\n{}"
                                   "workloads:\n{}repeat: 2\ntimeout: {}\n",
                                   name, arch, machine, knob_set, workload, timeout))
                    .ok());
    return f;
  }

  // The domains the daemon still runs (a finished or destroyed transient domain is gone).
  static int active_domains() {
    virConnectPtr c = virConnectOpen(daemon_->uri().c_str());
    if (!c) return -1;
    const int n = virConnectNumOfDomains(c);
    virConnectClose(c);
    return n;
  }

  static std::string domain_xml_of(const CliRun& r, const RunRecord& rec) {
    auto x = read_file(r.session / "runs" / rec.id.run_id / "domain.xml");
    return x.ok() ? *x : "";
  }

  static int port_;
  static fs::path* dir_;
  static LibvirtDaemon* daemon_;
  static std::string* start_error_;
};

int E2ELibvirt::port_ = 0;
fs::path* E2ELibvirt::dir_ = nullptr;
LibvirtDaemon* E2ELibvirt::daemon_ = nullptr;
std::string* E2ELibvirt::start_error_ = nullptr;

std::string hostname() {
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  return host;
}

// The quickstart through libvirt holds the same claims as through the QEMU backend, on both
// arches; the records say where they ran.
TEST_F(E2ELibvirt, QuickstartOnBothArchesMatchesTheQemuBackend) {
  CliRun r = run(kSourceRoot / "experiments/quickstart.yaml", "quickstart");
  EXPECT_EQ(r.process.exit_code, 0) << r.process.describe() << "\n" << r.process.output;
  expect_quickstart_claims(r.records);
  for (const RunRecord& rec : r.records) {
    SCOPED_TRACE(rec.id.run_id);
    EXPECT_EQ(rec.provenance.backend, "libvirt");
    EXPECT_EQ(rec.provenance.hypervisor_uri, daemon_->uri());
    EXPECT_EQ(rec.provenance.hypervisor_host, hostname());
    EXPECT_TRUE(std::regex_match(rec.provenance.libvirt_version, std::regex(R"(\d+\.\d+\.\d+)")))
        << rec.provenance.libvirt_version;
    EXPECT_EQ(rec.provenance.emulator.rfind("QEMU ", 0), 0u) << rec.provenance.emulator;
    EXPECT_NE(rec.provenance.command.find("virsh -c"), std::string::npos) << rec.provenance.command;
    // Under TCG the domain is of type qemu, with QEMU's `max` CPU.
    const std::string xml = domain_xml_of(r, rec);
    const std::string type = rec.provenance.accel == "kvm" ? "kvm" : "qemu";
    EXPECT_EQ(xml.rfind("<domain type='" + type + "'>", 0), 0u) << xml;
  }
  EXPECT_EQ(active_domains(), 0);
}

// A NUMA guest on arm64 virt: two cells with distances and preallocated RAM, as libvirt XML.
TEST_F(E2ELibvirt, Arm64NumaGuestBootsWithItsCellsAndDistances) {
  const fs::path yaml = one_run_yaml(
      "libvirt-numa", "arm64",
      "  cpus: 2\n  numa: {nodes: [{cpus: [0], memory: 512M}, {cpus: [1], memory: 512M}], "
      "distance: [[10, 20], [20, 10]]}\n",
      "  \"64K mTHP\":\n    hugepages-64kB/enabled: always\n",
      "  - name: fault\n    params: {size: 16M}\n", 900);
  CliRun r = run(yaml, "numa");
  EXPECT_EQ(r.process.exit_code, 0) << r.process.describe() << "\n" << r.process.output;
  ASSERT_EQ(r.records.size(), 1u);
  const RunRecord& rec = r.records[0];
  ASSERT_EQ(rec.status, "ok") << rec.reason;
  EXPECT_EQ(rec.provenance.guest.nr_cpus, 2);
  EXPECT_GT(rec.reps[0].deltas.at("mthp.64kB.anon_fault_alloc"), 0);
  const std::string xml = domain_xml_of(r, rec);
  EXPECT_NE(xml.find("<type arch='aarch64' machine='virt'>hvm</type>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<cell id='1' cpus='1' memory='512' unit='MiB'>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<sibling id='0' value='20'/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<allocation mode='immediate'/>"), std::string::npos) << xml;
  fmt::print(stderr, "domain XML of {}:\n{}", rec.id.run_id, xml);
}

// A guest that never finishes (its workload spins forever) is destroyed at its deadline
// (virDomainDestroy): timed-out, its console kept, no domain left behind.
TEST_F(E2ELibvirt, HungGuestIsDestroyedAtItsDeadline) {
  ASSERT_TRUE(write_file_atomic(*dir_ / "spin.c",
                                "int main(void) {\n  for (;;) __asm__ volatile(\"\");\n}\n")
                  .ok());
  const fs::path yaml = one_run_yaml(
      "libvirt-spin", "x86_64", "  cpus: 1\n  memory: 1G\n", "  spin:\n    enabled: never\n",
      "  - name: custom\n    label: spin\n    params: {source: spin.c}\n", 20);
  CliRun r = run(yaml, "spin");
  EXPECT_EQ(r.process.exit_code, 1) << r.process.describe() << "\n" << r.process.output;
  ASSERT_EQ(r.records.size(), 1u);
  const RunRecord& rec = r.records[0];
  EXPECT_EQ(rec.status, "timed-out") << rec.reason;
  EXPECT_EQ(rec.provenance.emulator_exit, "domain destroyed at the deadline");
  auto console = read_file(r.session / "runs" / rec.id.run_id / "console.log");
  ASSERT_TRUE(console.ok());
  EXPECT_NE(console->find("foliolab-agent:"),
            std::string::npos);  // hung in the workload, not in boot
  EXPECT_EQ(active_domains(), 0);
}

// A remote-style URI (loopback TCP): the domain's console is a pty and its records a unix
// socket on the libvirt host, brought back through virDomainOpenConsole / virDomainOpenChannel
// streams, and the run is the same as over the local socket.
TEST_F(E2ELibvirt, RemoteStyleUriBringsConsoleAndRecordsBackThroughStreams) {
  const fs::path yaml = one_run_yaml("libvirt-tcp", "x86_64", "  cpus: 1\n  memory: 1G\n",
                                     "  \"64K mTHP\":\n    hugepages-64kB/enabled: always\n",
                                     "  - name: fault\n    params: {size: 16M}\n", 600);
  CliRun r = run(yaml, "tcp", tcp_uri());
  EXPECT_EQ(r.process.exit_code, 0) << r.process.describe() << "\n" << r.process.output;
  ASSERT_EQ(r.records.size(), 1u);
  const RunRecord& rec = r.records[0];
  ASSERT_EQ(rec.status, "ok") << rec.reason;
  EXPECT_EQ(rec.provenance.hypervisor_uri, tcp_uri());
  EXPECT_EQ(rec.reps.size(), 2u);
  EXPECT_GT(rec.reps[0].deltas.at("mthp.64kB.anon_fault_alloc"), 0);
  const std::string xml = domain_xml_of(r, rec);
  EXPECT_NE(xml.find("<serial type='pty'>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<channel type='unix'>"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("console.log"), std::string::npos) << xml;  // no file on the libvirt host
  auto console = read_file(r.session / "runs" / rec.id.run_id / "console.log");
  ASSERT_TRUE(console.ok());
  EXPECT_NE(console->find("Linux version 6.12"), std::string::npos);
  EXPECT_NE(console->find("foliolab-agent:"), std::string::npos);
  EXPECT_EQ(active_domains(), 0);
}

// The run ids an experiment plans: what one plain single-host run of it runs.
std::set<std::string> planned_ids(const fs::path& yaml) {
  auto exp = load_experiment(yaml.string());
  EXPECT_TRUE(exp.ok()) << exp.error().message;
  std::set<std::string> ids;
  if (exp.ok()) {
    for (const Run& r : expand(*exp)) ids.insert(r.id);
  }
  return ids;
}

std::set<std::string> recorded_ids(const CliRun& r) {
  std::set<std::string> ids;
  for (const RunRecord& rec : r.records)
    EXPECT_TRUE(ids.insert(rec.id.run_id).second) << rec.id.run_id;
  return ids;
}

// Seed 001 (20 runs on three kernels, both arches) over a pool of two hosts: this machine's
// libvirtd through its unix socket, and the same daemon through loopback TCP, a remote-style
// URI whose kernels and initrds go up as storage volumes and whose consoles and records come
// back through streams. Both hosts get runs, the run set is the plan's (what one plain run
// runs), every expectation holds, each kernel went to the remote host once, and no per-run
// initrd is left there.
TEST_F(E2ELibvirt, PoolOfTwoHostsRunsSeed001OnBothAndUploadsEachKernelOnce) {
  const fs::path yaml = kSourceRoot / "experiments/seeds/001-anon-mthp.yaml";
  const std::string hosts = daemon_->uri() + "*1," + tcp_uri() + "*1";
  CliRun r = run_with(yaml, "pool", {"--hosts", hosts});
  EXPECT_EQ(r.process.exit_code, 0) << r.process.describe() << "\n" << r.process.output;
  EXPECT_EQ(recorded_ids(r), planned_ids(yaml));
  std::map<std::string, int> per_host;
  std::set<std::string> kernels_remote;
  for (const RunRecord& rec : r.records) {
    SCOPED_TRACE(rec.id.run_id);
    EXPECT_EQ(rec.status, "ok") << rec.reason;
    EXPECT_TRUE(rec.provenance.lost_hosts.empty());
    ++per_host[rec.provenance.hypervisor_uri];
    const std::string xml = domain_xml_of(r, rec);
    if (rec.provenance.hypervisor_uri == tcp_uri()) {
      std::smatch m;
      ASSERT_TRUE(std::regex_search(
          xml, m, std::regex("<kernel>(/var/lib/libvirt/images/foliolab/kernel-[^<]+)</kernel>")))
          << xml;
      kernels_remote.insert(m[1]);
      EXPECT_NE(xml.find("<initrd>/var/lib/libvirt/images/foliolab/initrd-"), std::string::npos)
          << xml;
    } else {
      EXPECT_EQ(xml.find("/var/lib/libvirt/images/foliolab"), std::string::npos)
          << xml;  // files of this machine
    }
  }
  EXPECT_EQ(per_host.size(), 2u);
  fmt::print(stderr, "runs per host: {} {}, {} {}\n", daemon_->uri(), per_host[daemon_->uri()],
             tcp_uri(), per_host[tcp_uri()]);
  EXPECT_NE(r.process.output.find(
                fmt::format("host {} (1 slot): {} run", tcp_uri(), per_host[tcp_uri()])),
            std::string::npos)
      << r.process.output;
  // On the "remote" host (the daemon's /var/lib/libvirt is <daemon>/lib): one volume per
  // kernel it booted, each with its upload-complete marker, and no initrd left over.
  std::set<std::string> volumes;
  for (const auto& e : fs::directory_iterator(daemon_->dir() / "lib/images/foliolab")) {
    volumes.insert(e.path().filename().string());
  }
  for (const std::string& k : kernels_remote) {
    const std::string name = fs::path(k).filename().string();
    EXPECT_TRUE(volumes.count(name)) << name;
    EXPECT_TRUE(volumes.count(name + ".ok")) << name;
  }
  EXPECT_EQ(volumes.size(), 2 * kernels_remote.size());
  for (const std::string& v : volumes) EXPECT_EQ(v.rfind("initrd-", 0), std::string::npos) << v;
  EXPECT_EQ(active_domains(), 0);
}

// QEMU processes whose command line mentions `needle` (a results folder of this test).
std::vector<pid_t> qemu_processes_mentioning(const std::string& needle) {
  std::vector<pid_t> out;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "cmdline", std::ios::binary);
    const std::string cmd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (cmd.find("qemu-system") != std::string::npos && cmd.find(needle) != std::string::npos) {
      out.push_back(static_cast<pid_t>(std::stol(pid)));
    }
  }
  return out;
}

// A host lost mid-matrix: a second libvirtd is SIGKILLed while its guest runs (each guest
// sleeps 5 s in each of its two reps, and the kill follows the domain's appearance within about
// 0.1 s, so it lands inside a run however fast the machine is).
// Its run is retried on the other host and says so in its record; the matrix finishes with
// every planned run recorded once.
TEST_F(E2ELibvirt, KillingOneHostsDaemonMovesItsRunToTheOther) {
  auto doomed = LibvirtDaemon::start(*dir_ / "doomed");
  ASSERT_TRUE(doomed.ok()) << doomed.error().message;
  ASSERT_TRUE(
      write_file_atomic(*dir_ / "nap.c",
                        "#include <unistd.h>\nint main(void) {\n  sleep(5);\n  return 0;\n}\n")
          .ok());
  const fs::path yaml = *dir_ / "pool-kill.yaml";
  ASSERT_TRUE(
      write_file_atomic(
          yaml,
          "name: pool-kill\nkernels:\n  - name: 6.12-mthp-vmstat\n    patches: mthp-vmstat\n"
          "archs: [x86_64]\nmachine: {cpus: 1, memory: 512M}\nknobs:\n"
          "  a: {enabled: never}\n  b: {enabled: madvise}\n  c: {enabled: always}\n"
          "workloads:\n  - name: custom\n    label: nap\n"
          "    params: {source: nap.c, output: exit-status}\nrepeat: 2\ntimeout: 900\n")
          .ok());
  const std::string doomed_uri = (*doomed)->uri();
  CliRun r;
  std::thread cli([&] {
    r = run_with(yaml, "pool-kill", {"--hosts", doomed_uri + "*1," + tcp_uri() + "*1"});
  });
  // Wait for the doomed host's first guest, then kill its daemon (not the guest).
  bool seen = false;
  while (!seen) {
    if (virConnectPtr c = virConnectOpen(doomed_uri.c_str())) {
      seen = virConnectNumOfDomains(c) > 0;
      virConnectClose(c);
    }
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(::kill((*doomed)->pid(), SIGKILL), 0);
  cli.join();
  // The orphaned guest of the killed daemon runs on by itself: end it.
  for (pid_t p : qemu_processes_mentioning((*dir_ / "pool-kill-results").string()))
    ::kill(p, SIGKILL);
  (*doomed)->stop();

  EXPECT_EQ(r.process.exit_code, 0) << r.process.describe() << "\n" << r.process.output;
  EXPECT_EQ(recorded_ids(r), planned_ids(yaml));
  int moved = 0;
  for (const RunRecord& rec : r.records) {
    SCOPED_TRACE(rec.id.run_id);
    EXPECT_EQ(rec.status, "ok") << rec.reason;
    EXPECT_EQ(rec.provenance.hypervisor_uri, tcp_uri());  // every run that finished, finished there
    if (!rec.provenance.lost_hosts.empty()) {
      ++moved;
      ASSERT_EQ(rec.provenance.lost_hosts.size(), 1u);
      EXPECT_NE(rec.provenance.lost_hosts[0].find(doomed_uri + ": "), std::string::npos)
          << rec.provenance.lost_hosts[0];
    }
  }
  EXPECT_EQ(moved, 1);
  EXPECT_NE(r.process.output.find(fmt::format("host {} (1 slot): 0 runs; lost: ", doomed_uri)),
            std::string::npos)
      << r.process.output;
  EXPECT_NE(r.process.output.find("runs moved off a lost host:"), std::string::npos)
      << r.process.output;
  EXPECT_EQ(active_domains(), 0);
}

// A URI nobody listens on is an error at the CLI boundary, naming the URI: exit 2 (no daemon
// needed, so not an e2e test).
TEST(LibvirtCli, UnreachableUriIsAnErrorNamingIt) {
  const std::string bad =
      "qemu:///system?socket=" + (fs::temp_directory_path() / "foliolab-no-such-sock").string();
  RealProcessRunner proc;
  ProcessResult p = proc.run({.argv = {foliolab::cli_binary(), "run",
                                       (kSourceRoot / "experiments/quickstart.yaml").string(),
                                       "--backend", "libvirt", "--connect", bad},
                              .capture = true});
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("error: cannot connect to libvirt at " + bad), std::string::npos)
      << p.output;
}

}  // namespace
}  // namespace foliolab
