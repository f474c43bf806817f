#include "backend/libvirt_backend.h"

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <unistd.h>

#include <fmt/format.h>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "backend/libvirt_streams.h"
#include "backend/libvirt_xml.h"
#include "util/fs.h"

namespace foliolab {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

// libvirt prints every error to stderr unless told otherwise; ours are returned as values. The
// default event loop (one thread for the process) carries lifecycle events and keepalives.
void init_libvirt_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    virSetErrorFunc(nullptr, [](void*, virErrorPtr) {});
    virEventRegisterDefaultImpl();
    std::thread([] {
      while (true) virEventRunDefaultImpl();
    }).detach();
  });
}

// "7002022" -> "7.2.22" (libvirt encodes versions as major * 1e6 + minor * 1e3 + micro).
std::string version_text(unsigned long v) {
  return fmt::format("{}.{}.{}", v / 1000000, (v / 1000) % 1000, v % 1000);
}

std::string local_hostname() {
  char host[256] = {};
  (void)::gethostname(host, sizeof host - 1);
  return host;
}

std::string stop_reason(int detail) {
  switch (detail) {
    case VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN:
      return "domain shut down";
    case VIR_DOMAIN_EVENT_STOPPED_DESTROYED:
      return "domain destroyed";
    case VIR_DOMAIN_EVENT_STOPPED_CRASHED:
      return "guest crashed";
    case VIR_DOMAIN_EVENT_STOPPED_FAILED:
      return "the emulator failed (libvirt: host emulator/management failure)";
    default:
      return fmt::format("domain stopped (libvirt stop reason {})", detail);
  }
}

// The sizes of `files`, -1 for a missing one.
std::vector<int64_t> sizes(const std::vector<fs::path>& files) {
  std::vector<int64_t> out;
  for (const auto& f : files) {
    std::error_code ec;
    const auto n = fs::file_size(f, ec);
    out.push_back(ec ? -1 : static_cast<int64_t>(n));
  }
  return out;
}

// Deletes a run's initrd volume from the remote host however boot() ends (once uploaded).
struct DropInitrd {
  RemoteFiles* files;
  std::string name;
  ~DropInitrd() {
    if (files) files->drop(name);
  }
};

class LibvirtBackend final : public Backend {
 public:
  LibvirtBackend(ProcessRunner& runner, LibvirtOptions opt, virConnectPtr conn)
      : opt_(std::move(opt)),
        conn_(conn),
        probe_(runner, opt_.probe),
        streams_(libvirt_uri_names_host(opt_.uri)),
        files_(conn_, opt_.uri) {}

  ~LibvirtBackend() override {
    if (callback_ >= 0) virConnectDomainEventDeregisterAny(conn_, callback_);
    virConnectClose(conn_);
  }

  Result<void> init() {
    if (char* h = virConnectGetHostname(conn_)) {
      host_ = h;
      free(h);
    } else {
      return make_error(fmt::format("libvirt at {}: cannot get the host name: {}", opt_.uri,
                                    libvirt_last_error()));
    }
    unsigned long lib = 0, hv = 0;
    if (virConnectGetLibVersion(conn_, &lib) < 0 || virConnectGetVersion(conn_, &hv) < 0) {
      return make_error(
          fmt::format("libvirt at {}: cannot get versions: {}", opt_.uri, libvirt_last_error()));
    }
    libvirt_version_ = version_text(lib);
    emulator_ = "QEMU " + version_text(hv);
    (void)virConnectSetKeepAlive(conn_, 5, 3);  // a remote host that goes away is noticed
    callback_ = virConnectDomainEventRegisterAny(
        conn_, nullptr, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
        VIR_DOMAIN_EVENT_CALLBACK(&LibvirtBackend::on_lifecycle), this, nullptr);
    if (callback_ < 0) {
      return make_error(fmt::format("libvirt at {}: cannot watch domain events: {}", opt_.uri,
                                    libvirt_last_error()));
    }
    return {};
  }

  std::string name() const override { return "libvirt"; }

  Result<void> reachable() override {
    if (virConnectIsAlive(conn_) == 1) return {};
    return make_error(fmt::format("the connection to libvirt at {} is lost", opt_.uri));
  }

  Result<AccelVerdict> resolve_accel(const AccelRequest& req) override {
    LibvirtKvmOffer offer{.same_machine = host_ == local_hostname()};
    if (req.choice != AccelChoice::kTcg) {
      const std::string arch(arch_info(req.arch).uname_machine);
      char* caps = virConnectGetDomainCapabilities(conn_, nullptr, arch.c_str(), nullptr, "kvm", 0);
      offer.offered = caps != nullptr;
      if (caps)
        free(caps);
      else
        offer.why_not = libvirt_last_error();
    }
    return libvirt_accel(req, opt_.uri, offer,
                         [this](const AccelRequest& r) { return probe_.resolve(r); });
  }

  Result<BootOutcome> boot(const BootRequest& req) override;

 private:
  // The outcome's fixed fields (backend, accel, versions, host) and its files in the run dir.
  BootOutcome outcome_for(const BootRequest& req) const;

  // Uploads the kernel and the initrd to the remote host, into `kernel` and `initrd`.
  Result<void> upload_boot_files(const BootRequest& req, DropInitrd& drop_initrd, fs::path& kernel,
                                 fs::path& initrd);

  // The domain XML of the run, also written to <run_dir>/domain.xml (out.command shows it).
  Result<std::string> write_domain(const BootRequest& req, const std::string& dom_name,
                                   const fs::path& kernel, const fs::path& initrd,
                                   BootOutcome& out);

  // The started, paused domain: streams opened, resumed, waited for, its end described.
  Result<BootOutcome> run_domain(virDomainPtr dom, const std::string& dom_name,
                                 Clock::time_point start, Clock::time_point deadline,
                                 BootOutcome out);

  static int on_lifecycle(virConnectPtr, virDomainPtr dom, int event, int detail, void* opaque) {
    if (event != VIR_DOMAIN_EVENT_STOPPED) return 0;
    auto* self = static_cast<LibvirtBackend*>(opaque);
    const char* name = virDomainGetName(dom);
    if (!name) return 0;
    {
      std::lock_guard<std::mutex> lock(self->mu_);
      if (!self->waiting_.count(name)) return 0;  // not one of this backend's boots
      self->stopped_[name] = detail;
    }
    self->cv_.notify_all();
    return 0;
  }

  // Waits for the domain's stop event, the deadline or a cancellation; destroys the domain
  // at the deadline. Returns the stop detail (-1: destroyed by us, -2: vanished unseen).
  Result<int> wait_for_end(virDomainPtr dom, const std::string& name, Clock::time_point deadline,
                           BootOutcome& out);

  // Opens the result channel (and, for a remote host, the console) of the paused `dom` into
  // out's files, then resumes it.
  Result<void> start_streams(virDomainPtr dom, const BootOutcome& out,
                             std::vector<std::unique_ptr<StreamCopy>>& copies);

  LibvirtOptions opt_;
  virConnectPtr conn_;
  AccelProbe probe_;
  bool streams_;  // console and records through the stream API instead of files on the host
  int callback_ = -1;
  std::string host_, libvirt_version_, emulator_;
  std::atomic<int> boots_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> waiting_;       // names of the domains boot() waits for
  std::map<std::string, int> stopped_;  // domain name -> VIR_DOMAIN_EVENT_STOPPED_* detail
  RemoteFiles files_;                   // used for a URI that names a host
};

Result<int> LibvirtBackend::wait_for_end(virDomainPtr dom, const std::string& name,
                                         Clock::time_point deadline, BootOutcome& out) {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Events are the fast path; the state check below covers a missed one.
      cv_.wait_for(lock, std::chrono::milliseconds(500), [&] { return stopped_.count(name) > 0; });
      if (auto it = stopped_.find(name); it != stopped_.end()) {
        const int detail = it->second;
        stopped_.erase(it);
        return detail;
      }
    }
    int state = 0, reason = 0;
    bool gone = virDomainGetState(dom, &state, &reason, 0) < 0;
    if (gone) {
      virErrorPtr e = virGetLastError();
      if (!e || e->code != VIR_ERR_NO_DOMAIN) {
        return make_error(
            fmt::format("libvirt at {}: lost domain {}: {}", opt_.uri, name, libvirt_last_error()));
      }
    }
    if (gone || state == VIR_DOMAIN_SHUTOFF) {
      // A transient domain vanishes as it stops; its event may still be on the way.
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, std::chrono::seconds(2), [&] { return stopped_.count(name) > 0; });
      auto it = stopped_.find(name);
      if (it == stopped_.end()) return -2;
      const int detail = it->second;
      stopped_.erase(it);
      return detail;
    }
    const bool late = Clock::now() >= deadline;
    if (late || cancel_requested()) {
      out.timed_out = late;
      if (virDomainDestroy(dom) < 0) {
        virErrorPtr e = virGetLastError();
        if (!e || e->code != VIR_ERR_OPERATION_INVALID) {  // already gone: nothing to destroy
          return make_error(fmt::format("libvirt at {}: cannot destroy {}: {}", opt_.uri, name,
                                        libvirt_last_error()));
        }
      }
      std::lock_guard<std::mutex> lock(mu_);
      stopped_.erase(name);
      return -1;
    }
  }
}

Result<void> LibvirtBackend::start_streams(virDomainPtr dom, const BootOutcome& out,
                                           std::vector<std::unique_ptr<StreamCopy>>& copies) {
  if (streams_) {  // a local console is a file QEMU (or virtlogd) writes here
    virStreamPtr console = virStreamNew(conn_, 0);
    if (!console || virDomainOpenConsole(dom, nullptr, console, VIR_DOMAIN_CONSOLE_FORCE) < 0) {
      if (console) virStreamFree(console);
      return make_error(fmt::format("libvirt at {}: cannot open the console: {}", opt_.uri,
                                    libvirt_last_error()));
    }
    copies.push_back(std::make_unique<StreamCopy>(console, out.console_log));
  }
  virStreamPtr records = virStreamNew(conn_, 0);
  if (!records ||
      virDomainOpenChannel(dom, kResultsPortName, records, VIR_DOMAIN_CHANNEL_FORCE) < 0) {
    if (records) virStreamFree(records);
    return make_error(fmt::format("libvirt at {}: cannot open channel {}: {}", opt_.uri,
                                  kResultsPortName, libvirt_last_error()));
  }
  copies.push_back(std::make_unique<StreamCopy>(records, out.records_file));
  if (virDomainResume(dom) < 0) {
    return make_error(
        fmt::format("libvirt at {}: cannot resume the domain: {}", opt_.uri, libvirt_last_error()));
  }
  return {};
}

// The domain's stop detail as BootOutcome's exit text and abnormal flag.
void describe_stop(int detail, BootOutcome& out) {
  if (detail == -1) {
    out.exit =
        out.timed_out ? "domain destroyed at the deadline" : "domain destroyed (interrupted)";
    return;
  }
  out.exit = detail == -2 ? "domain shut off" : stop_reason(detail);
  out.abnormal_exit = detail == VIR_DOMAIN_EVENT_STOPPED_CRASHED ||
                      detail == VIR_DOMAIN_EVENT_STOPPED_FAILED ||
                      detail == VIR_DOMAIN_EVENT_STOPPED_DESTROYED;
}

// With libvirt's default stdio_handler "logd", virtlogd (not QEMU) writes the console file and
// may still be draining the pipe when the stop event arrives: wait until it stops growing.
void wait_for_console_file(const fs::path& console_log) {
  const std::vector<fs::path> files = {console_log};
  auto last = sizes(files);
  for (int i = 0; i < 25; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto now = sizes(files);
    if (now == last) break;
    last = now;
  }
}

BootOutcome LibvirtBackend::outcome_for(const BootRequest& req) const {
  BootOutcome out;
  out.backend = name();
  out.accel = req.accel;
  out.emulator = emulator_;
  out.hypervisor_uri = opt_.uri;
  out.hypervisor_host = host_;
  out.libvirt_version = libvirt_version_;
  prepare_boot_files(req, out);
  return out;
}

Result<void> LibvirtBackend::upload_boot_files(const BootRequest& req, DropInitrd& drop_initrd,
                                               fs::path& kernel, fs::path& initrd) {
  auto k = files_.kernel(req.kernel);
  if (!k.ok()) return k.error();
  kernel = *k;
  if (!req.initrd.empty()) {
    drop_initrd.files = &files_;
    auto i = files_.per_run(drop_initrd.name, req.initrd);
    if (!i.ok()) return i.error();
    initrd = *i;
  }
  return {};
}

Result<std::string> LibvirtBackend::write_domain(const BootRequest& req,
                                                 const std::string& dom_name,
                                                 const fs::path& kernel, const fs::path& initrd,
                                                 BootOutcome& out) {
  const DomainSpec spec{.name = dom_name,
                        .arch = req.arch,
                        .accel = req.accel,
                        .machine = req.machine,
                        .kernel = kernel,
                        .initrd = initrd,
                        .cmdline = req.cmdline,
                        .console_log = streams_ ? fs::path() : out.console_log,
                        // Always a unix-socket channel read through a stream, never a file chardev:
                        // with Debian's default stdio_handler "logd", virtlogd writes file chardevs
                        // and rolls them over at 2 MiB (virtlogd.conf max_size), which would tear a
                        // long record stream.
                        .records_file = fs::path()};
  std::string xml = domain_xml(spec);
  const fs::path xml_file = req.run_dir / "domain.xml";
  if (auto st = write_file_atomic(xml_file, xml); !st.ok()) return st.error();
  out.command = format_argv({"virsh", "-c", opt_.uri, "create", xml_file.string()});
  return xml;
}

Result<BootOutcome> LibvirtBackend::boot(const BootRequest& req) {
  BootOutcome out = outcome_for(req);
  const std::string dom_name =
      domain_name(req.run_dir.filename().string(), fmt::format("{}-{}", ::getpid(), boots_++));
  // A host that is not this machine gets the kernel and the initrd as storage volumes.
  fs::path kernel = req.kernel, initrd = req.initrd;
  DropInitrd drop_initrd{nullptr, "initrd-" + dom_name};
  if (streams_) {
    if (auto st = upload_boot_files(req, drop_initrd, kernel, initrd); !st.ok()) return st.error();
  }
  auto xml = write_domain(req, dom_name, kernel, initrd, out);
  if (!xml.ok()) return xml.error();
  {
    std::lock_guard<std::mutex> lock(mu_);
    waiting_.insert(dom_name);
  }
  struct Forget {  // however boot() ends
    LibvirtBackend* self;
    std::string name;
    ~Forget() {
      std::lock_guard<std::mutex> lock(self->mu_);
      self->waiting_.erase(name);
      self->stopped_.erase(name);
    }
  } forget{this, dom_name};
  const auto start = Clock::now();
  // Paused until the streams are open, so nothing the guest says is missed.
  const unsigned flags = VIR_DOMAIN_START_AUTODESTROY | VIR_DOMAIN_START_PAUSED;
  virDomainPtr dom = virDomainCreateXML(conn_, xml->c_str(), flags);
  if (!dom) {
    const std::string why = libvirt_last_error();
    if (virConnectIsAlive(conn_) != 1)
      return make_error(fmt::format("libvirt at {}: {}", opt_.uri, why));
    // QEMU refused the domain or died at start: the emulator's failure, in libvirt's words.
    out.abnormal_exit = true;
    out.exit = "libvirt could not start the domain: " + why;
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
  }
  return run_domain(dom, dom_name, start, start + req.timeout, std::move(out));
}

Result<BootOutcome> LibvirtBackend::run_domain(virDomainPtr dom, const std::string& dom_name,
                                               Clock::time_point start, Clock::time_point deadline,
                                               BootOutcome out) {
  std::vector<std::unique_ptr<StreamCopy>> copies;
  if (auto st = start_streams(dom, out, copies); !st.ok()) {
    virDomainDestroy(dom);
    virDomainFree(dom);
    return st.error();
  }
  auto detail = wait_for_end(dom, dom_name, deadline, out);
  virDomainFree(dom);
  for (auto& c : copies) c->finish(std::chrono::seconds(30));  // each ends as QEMU closes its side
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!detail.ok()) return detail.error();
  describe_stop(*detail, out);
  // The copies read to the end; a console file on this machine may still be growing.
  if (*detail != -1 && !streams_) wait_for_console_file(out.console_log);
  return out;
}

}  // namespace

bool libvirt_uri_names_host(const std::string& uri) {
  const auto at = uri.find("://");
  return at != std::string::npos && at + 3 < uri.size() && uri[at + 3] != '/';
}

Result<AccelVerdict> libvirt_accel(
    const AccelRequest& req, const std::string& uri, const LibvirtKvmOffer& offer,
    const std::function<Result<AccelVerdict>(const AccelRequest&)>& local_probe) {
  if (req.choice == AccelChoice::kTcg) return AccelVerdict{Accel::kTcg, "tcg requested"};
  if (!offer.offered) {
    return accel_without_kvm(
        req, fmt::format("libvirt at {} offers no kvm domain: {}", uri, offer.why_not));
  }
  if (!offer.same_machine) {
    if (req.choice == AccelChoice::kKvm) {
      return AccelVerdict{Accel::kKvm,
                          fmt::format("kvm requested; libvirt at {} offers a kvm domain", uri)};
    }
    return accel_without_kvm(
        req, fmt::format("libvirt at {} offers kvm, but a remote host's KVM cannot be "
                         "probed from here (accel: kvm trusts it)",
                         uri));
  }
  // The same machine: the QEMU probe boot decides, as for the QEMU backend (and shares its cache).
  return local_probe(req);
}

Result<std::unique_ptr<Backend>> make_libvirt_backend(ProcessRunner& runner,
                                                      LibvirtOptions options) {
  init_libvirt_once();
  virConnectPtr conn = virConnectOpen(options.uri.c_str());
  if (!conn) {
    return make_error(
        fmt::format("cannot connect to libvirt at {}: {} (is libvirtd running? scripts/setup.sh "
                    "installs it)",
                    options.uri, libvirt_last_error()));
  }
  auto backend = std::make_unique<LibvirtBackend>(runner, std::move(options), conn);
  if (auto st = backend->init(); !st.ok()) return st.error();
  return std::unique_ptr<Backend>(std::move(backend));
}

}  // namespace foliolab
