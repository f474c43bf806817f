#include "backend/host_pool.h"

#include <arpa/inet.h>

#include <algorithm>

#include <fmt/format.h>

#include "backend/ssh_target.h"
#include "util/fs.h"
#include "util/process.h"
#include "util/text.h"
#include "util/yaml_reader.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxSlots = 1024;

Result<void> check_uri(const std::string& uri) {
  if (uri.find("://") == std::string::npos) {
    return make_error(fmt::format(
        "'{}' is not a libvirt URI (e.g. qemu:///system, qemu+ssh://root@lab/system)", uri));
  }
  return {};
}

Result<void> check_lab_slots(const PoolHost& h) {
  if (is_lab_uri(h.uri) && h.slots != 1) {
    return make_error(fmt::format(
        "{} is a lab machine: it runs one run at a time (slots: 1); list more machines instead",
        h.uri));
  }
  return {};
}

// One spelling per machine: a lab machine's user@host:port (ssh://lab1, ssh://lab1:22/ and
// ssh://root@lab1 are one), a libvirt host's URI as written.
std::string machine_key(const PoolHost& h) {
  if (!is_lab_uri(h.uri)) return h.uri;
  auto t = parse_ssh_uri(h.uri);
  return t.ok() ? t->name() : h.uri;
}

// "file:line:col: hosts[i]: " when the host's place is known (a hosts file), else "".
std::string place(const PoolHost& h, size_t i) {
  return h.loc.line > 0 ? fmt::format("{}: hosts[{}]: ", h.loc.str(), i) : "";
}

Result<void> check_unique(const std::vector<PoolHost>& hosts) {
  for (size_t i = 0; i < hosts.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (machine_key(hosts[i]) != machine_key(hosts[j])) continue;
      const PoolHost& h = hosts[i];
      const std::string first =
          hosts[j].loc.line > 0
              ? fmt::format(" (first at {}:{})", hosts[j].loc.line, hosts[j].loc.column)
              : "";
      if (is_lab_uri(h.uri)) {
        return make_error(fmt::format(
            "{}{} is {} again{}: a lab machine joins a pool once (it runs one run at a time)",
            place(h, i), h.uri, machine_key(h), first));
      }
      return make_error(
          fmt::format("{}host {} is listed twice{} (give it more slots instead: {}*N)", place(h, i),
                      h.uri, first, h.uri));
    }
  }
  return {};
}

// A lab machine's URI (parse_ssh_uri's refusals), or "" for a libvirt host.
std::string lab_uri_problem(const std::string& uri) {
  if (!is_lab_uri(uri)) return "";
  auto t = parse_ssh_uri(uri);
  return t.ok() ? "" : t.error().message;
}

}  // namespace

bool is_lab_uri(std::string_view uri) { return uri.rfind("ssh://", 0) == 0; }

Result<std::string> pool_backend_name(const std::vector<PoolHost>& hosts) {
  size_t lab = 0;
  for (const PoolHost& h : hosts) lab += is_lab_uri(h.uri) ? 1 : 0;
  if (lab == 0) return std::string("libvirt");
  if (lab == hosts.size()) return std::string("kexec");
  return make_error(
      "a pool is either libvirt hosts or lab machines (ssh://, backend kexec), not both");
}

Result<std::vector<PoolHost>> parse_hosts(std::string_view text) {
  std::vector<PoolHost> hosts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item(trim(text.substr(start, comma - start)));
    start = comma + 1;
    if (item.empty()) return make_error(fmt::format("--hosts '{}': an empty item", text));
    PoolHost h{.uri = item};
    if (const auto star = item.rfind('*'); star != std::string::npos) {
      h.uri = trim(item.substr(0, star));
      const auto slots = parse_uint(trim(std::string_view(item).substr(star + 1)));
      if (!slots || *slots < 1 || *slots > kMaxSlots) {
        return make_error(
            fmt::format("--hosts item '{}': slots after '*' must be a whole number from 1 to {}",
                        item, kMaxSlots));
      }
      h.slots = static_cast<int>(*slots);
    }
    if (auto st = check_uri(h.uri); !st.ok())
      return make_error("--hosts item '" + item + "': " + st.error().message);
    if (auto st = check_lab_slots(h); !st.ok()) return make_error("--hosts: " + st.error().message);
    if (const std::string why = lab_uri_problem(h.uri); !why.empty()) {
      return make_error("--hosts item '" + item + "': " + why);
    }
    hosts.push_back(std::move(h));
  }
  if (auto st = check_unique(hosts); !st.ok()) return make_error("--hosts: " + st.error().message);
  return hosts;
}

namespace {

const YamlReader::Keys kHostsFileKeys = {"hosts"};
const YamlReader::Keys kLabOnlyKeys = {"power_cycle",    "config",       "cmdline",
                                       "identity",       "known_hosts",  "listen",
                                       "report_address", "boot_timeout", "reboot_timeout"};
const YamlReader::Keys kHostKeys = [] {
  YamlReader::Keys keys = {"uri", "slots"};
  keys.insert(keys.end(), kLabOnlyKeys.begin(), kLabOnlyKeys.end());
  return keys;
}();

// A list of non-empty single-line strings (an argv, fragment names).
Result<std::vector<std::string>> read_words(const YamlReader& r, const YamlField& f,
                                            std::vector<SourceLoc>* locs) {
  auto items = r.read_list(f, "a non-empty list");
  FL_TRY(items);
  std::vector<std::string> out;
  for (const YamlField& item : *items) {
    auto word = r.read_nonempty(item);
    FL_TRY(word);
    out.push_back(*word);
    if (locs) {
      const YamlPos at = YamlReader::pos(item);
      locs->push_back({r.file(), at.line, at.column});
    }
  }
  return out;
}

// A lab machine's keys (LabHost); paths relative to the hosts file's folder.
Result<void> read_lab_host(const YamlReader& r, const YamlFields& fields, const fs::path& dir,
                           LabHost& lab) {
  if (const YamlField* f = fields.find("power_cycle")) {
    auto argv = read_words(r, *f, nullptr);
    FL_TRY(argv);
    lab.power_cycle = std::move(*argv);
  }
  if (const YamlField* f = fields.find("config")) {
    auto names = read_words(r, *f, &lab.config_locs);
    FL_TRY(names);
    lab.config = std::move(*names);
  }
  for (auto [key, path] :
       {std::pair{"identity", &lab.identity}, {"known_hosts", &lab.known_hosts}}) {
    if (const YamlField* f = fields.find(key)) {
      auto text = r.read_nonempty(*f);
      FL_TRY(text);
      *path = fs::absolute(dir / *text);  // an absolute *text stays itself
      if (const std::string why = ssh_file_problem(*path); !why.empty()) {
        return r.error(*f, fmt::format("{} file {}: {}", key, path->string(), why));
      }
    }
  }
  for (auto [key, text] : {std::pair{"cmdline", &lab.cmdline},
                           {"listen", &lab.listen},
                           {"report_address", &lab.report_address}}) {
    if (const YamlField* f = fields.find(key)) {
      auto value = r.read_scalar(*f);
      FL_TRY(value);
      *text = *value;
      in_addr v4{};
      if (text != &lab.cmdline && ::inet_pton(AF_INET, value->c_str(), &v4) != 1) {
        return r.error(*f,
                       "an IPv4 address (the records come back over IPv4: the run's kernel "
                       "takes ip=dhcp)");
      }
    }
  }
  for (auto [key, seconds] : {std::pair{"boot_timeout", &lab.boot_timeout_s},
                              {"reboot_timeout", &lab.reboot_timeout_s}}) {
    if (const YamlField* f = fields.find(key)) {
      auto s = r.read_int(*f, 10, 24 * 3600);
      FL_TRY(s);
      *seconds = static_cast<int>(*s);
    }
  }
  return {};
}

// An item's URI into h (its place kept): a libvirt URI, or a lab machine's checked ssh:// URI.
Result<void> read_uri(const YamlReader& r, const YamlField& f, PoolHost& h) {
  auto text = r.read_scalar(f);
  FL_TRY(text);
  h.uri = *text;
  const YamlPos at = YamlReader::pos(f);
  h.loc = {r.file(), at.line, at.column};
  if (auto st = check_uri(h.uri); !st.ok()) return r.error(f, st.error().message);
  if (const std::string why = lab_uri_problem(h.uri); !why.empty()) return r.error(f, why);
  return {};
}

// The records of a run come back over IPv4: a machine ssh reaches over IPv6 says where.
Result<void> check_ipv6_machine(const YamlReader& r, const YamlField& uri, const PoolHost& h) {
  auto t = parse_ssh_uri(h.uri);
  if (!t.ok() || !t->ipv6 || (!h.lab.listen.empty() && !h.lab.report_address.empty())) return {};
  return r.error(uri,
                 "a lab machine at an IPv6 address needs listen and report_address (IPv4): the "
                 "run's kernel sends its records over IPv4 (ip=dhcp), and ssh's address cannot "
                 "tell it where");
}

// One item of `hosts:`: a bare URI or {uri: URI, slots: N, ...}.
Result<PoolHost> read_host(const YamlReader& r, const YamlField& item, const fs::path& dir) {
  PoolHost h;
  if (item.value.IsScalar()) {
    FL_TRY(read_uri(r, item, h));
    FL_TRY(check_ipv6_machine(r, item, h));
    return h;
  }
  if (!item.value.IsMap()) return r.error(item, "a URI or {uri: URI, slots: N}");
  auto fields = r.read_map(item, &kHostKeys);
  FL_TRY(fields);
  FL_TRY(r.require(*fields, item, {"uri"}));
  const YamlField& uri = *fields->find("uri");
  FL_TRY(read_uri(r, uri, h));
  if (const YamlField* slots = fields->find("slots")) {
    auto n = r.read_int(*slots);
    FL_TRY(n);
    if (*n < 1 || *n > kMaxSlots) {
      return r.error(*slots, fmt::format("a whole number from 1 to {}", kMaxSlots));
    }
    h.slots = static_cast<int>(*n);
    if (auto st = check_lab_slots(h); !st.ok()) return r.error(*slots, st.error().message);
  }
  if (!is_lab_uri(h.uri)) {
    for (const std::string& key : kLabOnlyKeys) {
      if (const YamlField* f = fields->find(key)) {
        return r.key_error(*f, "only a lab machine (an ssh:// URI, backend kexec) takes " + key);
      }
    }
    return h;
  }
  FL_TRY(read_lab_host(r, *fields, dir, h.lab));
  FL_TRY(check_ipv6_machine(r, uri, h));
  return h;
}

// Every host of a file the kind of its first: lab machines or libvirt hosts, not both.
Result<void> check_one_kind(const std::vector<PoolHost>& hosts) {
  for (size_t i = 0; i < hosts.size(); ++i) {
    const PoolHost& h = hosts[i];
    if (is_lab_uri(h.uri) == is_lab_uri(hosts.front().uri)) continue;
    const auto kind = [](const PoolHost& x) {
      return is_lab_uri(x.uri) ? "a lab machine (ssh://, backend kexec)" : "a libvirt host";
    };
    return make_error(fmt::format(
        "{}{} is {}, but {} (at {}:{}) is {}: a pool is either libvirt hosts or lab machines, "
        "not both",
        place(h, i), h.uri, kind(h), hosts.front().uri, hosts.front().loc.line,
        hosts.front().loc.column, kind(hosts.front())));
  }
  return {};
}

}  // namespace

Result<std::vector<PoolHost>> parse_hosts_file(const std::string& yaml_text,
                                               const std::string& file_name) {
  auto root = parse_yaml(yaml_text, file_name, "hosts file");
  FL_TRY(root);
  const YamlReader r(file_name);
  const YamlField top = YamlReader::root(*root);
  if (!root->IsMap()) {
    return r.error(top, "expected a map with `hosts: [{uri: URI, slots: N}, ...]`");
  }
  auto fields = r.read_map(top, &kHostsFileKeys);
  FL_TRY(fields);
  FL_TRY(r.require(*fields, top, {"hosts"}));
  auto items = r.read_list(*fields->find("hosts"), "a non-empty list of {uri, slots}");
  FL_TRY(items);
  std::vector<PoolHost> hosts;
  for (const YamlField& item : *items) {
    auto h = read_host(r, item, fs::path(file_name).parent_path());
    FL_TRY(h);
    hosts.push_back(std::move(*h));
  }
  FL_TRY(check_one_kind(hosts));
  FL_TRY(check_unique(hosts));
  return hosts;
}

Result<std::vector<PoolHost>> load_hosts(const std::string& value) {
  std::error_code ec;
  if (value.find("://") == std::string::npos && fs::is_regular_file(value, ec)) {
    auto text = read_file(value);
    if (!text.ok()) return make_error("--hosts " + value + ": " + text.error().message);
    return parse_hosts_file(*text, value);
  }
  return parse_hosts(value);
}

Result<std::unique_ptr<PoolBackend>> PoolBackend::open(const std::vector<PoolHost>& hosts,
                                                       const Factory& factory,
                                                       std::vector<std::string>& warnings) {
  std::vector<Member> members;
  std::vector<std::string> failures;
  for (const PoolHost& h : hosts) {
    auto b = factory(h);
    if (!b.ok()) {
      failures.push_back(b.error().message);
      warnings.push_back(fmt::format("host {} left out of the pool: {}", h.uri, b.error().message));
      continue;
    }
    members.push_back(Member{.host = h, .backend = std::move(*b)});
  }
  if (members.empty())
    return make_error("no host of the pool can be reached: " + join(failures, "; "));
  if (auto kind = pool_backend_name(hosts); !kind.ok()) return kind.error();
  return std::unique_ptr<PoolBackend>(new PoolBackend(std::move(members)));
}

std::string PoolBackend::name() const { return members_.front().backend->name(); }

Result<void> PoolBackend::preflight(const Experiment& exp, const std::vector<Run>& runs) {
  for (Member& m : members_) {
    if (auto st = m.backend->preflight(exp, runs); !st.ok())
      return make_error(m.host.uri + ": " + st.error().message);
  }
  return {};
}

Result<AccelVerdict> PoolBackend::resolve_accel(const AccelRequest& req) {
  std::vector<std::string> why;
  bool all_kvm = true, all_bare = true;
  for (Member& m : members_) {
    if (m.lost) continue;
    auto v = m.backend->resolve_accel(req);
    if (!v.ok()) return make_error(m.host.uri + ": " + v.error().message);
    all_kvm = all_kvm && v->accel == Accel::kKvm;
    all_bare = all_bare && v->accel == Accel::kNone;
    why.push_back(m.host.uri + ": " + v->reason);
  }
  if (all_bare) return AccelVerdict{Accel::kNone, join(why, "; ")};  // lab machines: no emulator
  if (all_kvm)
    return AccelVerdict{Accel::kKvm, "kvm on every host of the pool (" + join(why, "; ") + ")"};
  if (req.choice == AccelChoice::kTcg) return AccelVerdict{Accel::kTcg, "tcg requested"};
  return accel_without_kvm(
      req,
      "not every host of the pool can run kvm, and one matrix does not mix KVM and "
      "TCG timings (" +
          join(why, "; ") + ")");
}

int PoolBackend::slots() const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const Member& m : members_) n += m.lost ? 0 : m.host.slots;
  return n;
}

std::vector<PoolHostUse> PoolBackend::usage() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PoolHostUse> out;
  for (const Member& m : members_)
    out.push_back({m.host.uri, m.host.slots, m.runs, m.lost, m.lost_why});
  return out;
}

Result<void> PoolBackend::reachable() {
  return slots() > 0 ? Result<void>() : make_error("every host of the pool is lost");
}

PoolBackend::Member* PoolBackend::acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    Member* best = nullptr;
    bool any_live = false;
    for (Member& m : members_) {
      if (m.lost) continue;
      any_live = true;
      const int free = m.host.slots - m.busy;
      if (free > 0 && (!best || free > best->host.slots - best->busy)) best = &m;
    }
    if (!any_live) return nullptr;
    if (best) {
      ++best->busy;
      return best;
    }
    // Every live slot is taken (a lost host shrank the pool below the executor's -j).
    cv_.wait(lock);
  }
}

void PoolBackend::release(Member* m, bool ran) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --m->busy;
    if (ran) ++m->runs;
  }
  cv_.notify_all();
}

Result<BootOutcome> PoolBackend::boot(const BootRequest& req) {
  std::vector<std::string> lost;
  while (true) {
    Member* m = acquire();
    if (!m) {
      return make_error(
          fmt::format("every host of the pool is lost ({}); the run is not recorded and "
                      "--resume reruns it",
                      join(lost, "; ")));
    }
    auto out = m->backend->boot(req);
    if (out.ok()) {
      release(m, true);
      out->lost_hosts = lost;
      return out;
    }
    Result<void> alive = m->backend->reachable();
    if (alive.ok() || cancel_requested()) {
      release(m, false);
      return make_error(m->host.uri + ": " +
                        out.error().message);  // this boot failed, not the host
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      m->lost = true;
      m->lost_why = out.error().message;
    }
    const std::string& why = out.error().message;  // libvirt's errors name the URI already
    lost.push_back(why.find(m->host.uri) != std::string::npos ? why : m->host.uri + ": " + why);
    release(m, false);
  }
}

}  // namespace foliolab
