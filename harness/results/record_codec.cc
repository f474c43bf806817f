#include "results/record_codec.h"

#include <fmt/format.h>

#include "results/distribution_json.h"

namespace foliolab {
using json = nlohmann::json;

// provenance.host (a key left out reads as empty), the agent's hello (every key), and
// boot.machine of a kexec run (model/lab_machine.h; a key left out reads as empty).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(HostInfo, hostname, cpu_model, kernel,
                                                foliolab_revision, cpus)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(GuestInfo, agent_version, release, version, machine, cmdline,
                                   page_size, nr_cpus, mem_total_kb)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LabMachineInfo, name, own_release, cpu_model, cpus,
                                                mem_total_kb, numa_nodes)

json kv_to_json(const KeyValues& kv) {
  json a = json::array();
  for (const auto& [k, v] : kv) a.push_back(json::array({k, v}));
  return a;
}

KeyValues kv_from_json(const json& a) {
  KeyValues kv;
  for (const json& e : a) {
    if (!e.is_array() || e.size() != 2) throw std::runtime_error("key/value entry is not a pair");
    kv.emplace_back(e.at(0).get<std::string>(), e.at(1).get<std::string>());
  }
  return kv;
}

namespace {

// Reads `key` if present (schema 1 files were written by code that sometimes left keys out).
template <class T>
T opt(const json& j, const char* key, T fallback = T()) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? fallback : it->get<T>();
}

json machine_to_json(const MachineSpec& m) {
  json numa = json::array();
  for (const auto& n : m.numa) numa.push_back({{"cpus", n.cpus}, {"memory_mb", n.memory_mb}});
  return {{"cpus", m.cpus},
          {"memory_mb", m.memory_mb},
          {"numa", numa},
          {"numa_distance", m.numa_distance}};
}

MachineSpec machine_from_json(const json& j) {
  MachineSpec m;
  m.cpus = j.at("cpus").get<int>();
  m.memory_mb = j.at("memory_mb").get<uint64_t>();
  for (const json& n : j.at("numa")) {
    m.numa.push_back(
        NumaNode{n.at("cpus").get<std::vector<int>>(), n.at("memory_mb").get<uint64_t>()});
  }
  m.numa_distance = j.at("numa_distance").get<std::vector<std::vector<int>>>();
  return m;
}

json identity_to_json(const RunIdentity& id) {
  const auto& k = id.kernel;
  return {{"run_id", id.run_id},
          {"experiment", id.experiment},
          {"arch", id.arch},
          {"kernel",
           {{"name", k.name},
            {"source", k.source},
            {"config", k.config},
            {"options", kv_to_json(k.options)},
            {"patches", k.patches},
            {"cmdline", k.cmdline}}},
          {"machine", machine_to_json(id.machine)},
          {"knob_set",
           {{"name", id.knob_set.name},
            {"knobs", kv_to_json(id.knob_set.knobs)},
            {"sysctls", kv_to_json(id.knob_set.sysctls)},
            {"cmdline", id.knob_set.cmdline}}},
          {"workload",
           {{"name", id.workload.name},
            {"label", id.workload.label},
            {"params", kv_to_json(id.workload.params)}}},
          {"repeat", id.repeat}};
}

// Schema 1 kept the identity at the top level with the kernel under "kernel_spec"; schema 2
// nests it under "identity" with the kernel under "kernel". Both have the same fields.
RunIdentity identity_from_json(const json& j, const char* kernel_key) {
  RunIdentity id;
  id.run_id = j.at("run_id").get<std::string>();
  id.experiment = j.at("experiment").get<std::string>();
  id.arch = j.at("arch").get<std::string>();
  const json& k = j.at(kernel_key);
  id.kernel.name = k.at("name").get<std::string>();
  id.kernel.source = k.at("source").get<std::string>();
  id.kernel.config = k.at("config").get<std::vector<std::string>>();
  id.kernel.options = kv_from_json(k.at("options"));
  id.kernel.patches = k.at("patches").get<std::string>();
  id.kernel.cmdline = k.at("cmdline").get<std::string>();
  id.machine = machine_from_json(j.at("machine"));
  const json& ks = j.at("knob_set");
  id.knob_set.name = ks.at("name").get<std::string>();
  id.knob_set.knobs = kv_from_json(ks.at("knobs"));
  id.knob_set.sysctls = kv_from_json(ks.at("sysctls"));
  id.knob_set.cmdline = ks.at("cmdline").get<std::string>();
  const json& w = j.at("workload");
  id.workload.name = w.at("name").get<std::string>();
  id.workload.label = w.at("label").get<std::string>();
  id.workload.params = kv_from_json(w.at("params"));
  id.repeat = j.at("repeat").get<int>();
  return id;
}

json provenance_to_json(const Provenance& p) {
  json j = {{"host", json(p.host)},
            {"kernel",
             {{"build_id", p.kernel_build_id},
              {"version", p.kernel_version},
              {"image", p.kernel_image},
              {"source", p.kernel_source},
              {"cache_hit", p.kernel_cache_hit},
              {"build_seconds", p.kernel_build_seconds}}},
            {"image", {{"id", p.image_id}, {"workloads", p.image_workloads}}},
            {"boot",
             {{"backend", p.backend},
              {"accel", p.accel},
              {"accel_requested", p.accel_requested},
              {"accel_reason", p.accel_reason},
              {"guests_beside", p.guests_beside},
              {"emulator", p.emulator},
              {"command", p.command},
              {"emulator_exit", p.emulator_exit},
              {"seconds", p.boot_seconds},
              {"timings_emulated", p.timings_emulated},
              {"timing", p.timing}}},
            {"guest", p.has_guest ? json(p.guest) : json()}};
  // Only runs on a Debian root filesystem have it (a key added: schema kept).
  if (!p.rootfs_id.empty()) {
    j["image"]["rootfs"] = {{"recipe", p.rootfs_recipe}, {"id", p.rootfs_id}};
  }
  // Only libvirt runs have it: the QEMU backend's records stay as they were.
  if (!p.hypervisor_uri.empty()) {
    j["boot"]["libvirt"] = {
        {"uri", p.hypervisor_uri}, {"host", p.hypervisor_host}, {"version", p.libvirt_version}};
    if (!p.lost_hosts.empty()) j["boot"]["libvirt"]["lost_hosts"] = p.lost_hosts;
  }
  // Only kexec runs have it (a pool's lost machines beside it).
  if (!p.lab_machine.empty()) j["boot"]["machine"] = p.lab_machine;
  if (!p.lab_machine.empty() && !p.lost_hosts.empty()) j["boot"]["lost_hosts"] = p.lost_hosts;
  return j;
}

void kernel_from_json(const json& k, Provenance& p) {
  p.kernel_build_id = opt<std::string>(k, "build_id");
  p.kernel_version = opt<std::string>(k, "version");
  p.kernel_image = opt<std::string>(k, "image");
  p.kernel_source = opt<std::string>(k, "source");
  p.kernel_cache_hit = opt<bool>(k, "cache_hit");
  p.kernel_build_seconds = opt<double>(k, "build_seconds");
}

void image_from_json(const json& i, Provenance& p) {
  p.image_id = opt<std::string>(i, "id");
  p.image_workloads = opt<std::vector<std::string>>(i, "workloads");
  if (i.contains("rootfs") && i["rootfs"].is_object()) {
    p.rootfs_recipe = opt<std::string>(i["rootfs"], "recipe");
    p.rootfs_id = opt<std::string>(i["rootfs"], "id");
  }
}

void boot_from_json(const json& b, Provenance& p) {
  p.backend = opt<std::string>(b, "backend");
  p.accel = opt<std::string>(b, "accel");
  p.accel_requested = opt<std::string>(b, "accel_requested");  // absent before the accel probe
  p.accel_reason = opt<std::string>(b, "accel_reason");
  p.guests_beside = opt<int>(b, "guests_beside");
  p.emulator = opt<std::string>(b, "emulator");
  p.command = opt<std::string>(b, "command");
  p.emulator_exit = opt<std::string>(b, "emulator_exit");
  p.boot_seconds = opt<double>(b, "seconds");
  p.timings_emulated = opt<bool>(b, "timings_emulated");
  p.timing = opt<std::string>(b, "timing", std::string("wall"));
  const json lv = opt<json>(b, "libvirt", json::object());
  p.hypervisor_uri = opt<std::string>(lv, "uri");
  p.hypervisor_host = opt<std::string>(lv, "host");
  p.libvirt_version = opt<std::string>(lv, "version");
  p.lost_hosts = opt<std::vector<std::string>>(lv, "lost_hosts");
  p.lab_machine = opt<LabMachineInfo>(b, "machine");
  if (p.lost_hosts.empty()) p.lost_hosts = opt<std::vector<std::string>>(b, "lost_hosts");
}

json knob_results_to_json(const std::vector<KnobResult>& ks) {
  json a = json::array();
  for (const KnobResult& k : ks) {
    a.push_back({{"path", k.path},
                 {"requested", k.requested},
                 {"readback", k.readback},
                 {"status", k.status},
                 {"error", k.error}});
  }
  return a;
}

std::vector<KnobResult> knob_results_from_json(const json& a) {
  std::vector<KnobResult> out;
  for (const json& k : a) {
    out.push_back(KnobResult{k.at("path").get<std::string>(), k.at("requested").get<std::string>(),
                             k.at("readback").get<std::string>(), k.at("status").get<std::string>(),
                             k.at("error").get<std::string>()});
  }
  return out;
}

// "repeat_stop": {"reason": "reached", "n": 7, "warmup": 1, "target": 0.02,
//                 "half_width": [{"metric": "sys_s", "half_width": 0.0183}]} (null: none).
json repeat_stop_to_json(const RepeatStop& s) {
  json widths = json::array();
  for (const auto& [metric, hw] : s.half_width) {
    widths.push_back({{"metric", metric}, {"half_width", hw ? json(*hw) : json()}});
  }
  return {{"reason", repeat_stop_reason_name(s.reason)},
          {"n", s.n},
          {"warmup", s.warmup},
          {"target", s.target},
          {"half_width", widths}};
}

RepeatStop repeat_stop_from_json(const json& j) {
  RepeatStop s;
  auto reason = parse_repeat_stop_reason(j.at("reason").get<std::string>());
  if (!reason) throw std::runtime_error("repeat_stop.reason is not reached, max or fixed");
  s.reason = *reason;
  s.n = j.at("n").get<int>();
  s.warmup = j.at("warmup").get<int>();
  s.target = j.at("target").get<double>();
  for (const json& w : j.at("half_width")) {
    const json& hw = w.at("half_width");
    s.half_width.emplace_back(w.at("metric").get<std::string>(),
                              hw.is_null() ? std::nullopt : std::optional(hw.get<double>()));
  }
  return s;
}

json monitor_to_json(const MonitorSeries& m) {
  return {
      {"period_ms", m.period_ms}, {"counters", m.counters}, {"t_ms", m.t_ms}, {"values", m.values}};
}

MonitorSeries monitor_from_json(const json& j) {
  MonitorSeries m;
  m.period_ms = j.at("period_ms").get<int>();
  m.counters = j.at("counters").get<std::vector<std::string>>();
  m.t_ms = j.at("t_ms").get<std::vector<int64_t>>();
  m.values = j.at("values").get<std::vector<std::vector<int64_t>>>();
  if (m.values.size() != m.counters.size()) throw std::runtime_error("monitor: values per counter");
  for (const auto& v : m.values) {
    if (v.size() != m.t_ms.size()) throw std::runtime_error("monitor: a value per sample");
  }
  return m;
}

Repetition rep_from_json(const json& e) {
  Repetition rep;
  rep.rep = e.at("rep").get<int>();
  rep.warmup = opt<bool>(e, "warmup");  // written only for warm-up reps
  rep.wall_ns = e.at("wall_ns").get<int64_t>();
  rep.exit_status = e.at("exit_status").get<int64_t>();
  rep.signal = e.at("signal").get<int64_t>();
  rep.metrics = e.at("metrics").get<std::map<std::string, double>>();
  rep.deltas = e.at("deltas").get<std::map<std::string, int64_t>>();
  // Optional within schema 2 (issue 29): the machine's state around the rep, and a monitor's
  // samples.
  if (auto s = e.find("state"); s != e.end()) {
    rep.state_before = s->at("before").get<std::map<std::string, int64_t>>();
    rep.state_after = s->at("after").get<std::map<std::string, int64_t>>();
  }
  if (auto m = e.find("monitor"); m != e.end()) rep.monitor = monitor_from_json(*m);
  // Optional within schema 2 (issue 56): distribution metrics.
  if (auto d = e.find("distributions"); d != e.end()) {
    rep.distributions = distributions_from_json(*d);
  }
  // Optional within schema 2: written only when the workload reported tests.
  if (auto t = e.find("tests"); t != e.end()) {
    for (const json& x : *t) {
      rep.tests.push_back({x.at("number").get<int>(), x.at("name").get<std::string>(),
                           x.at("status").get<std::string>(), x.at("reason").get<std::string>()});
    }
  }
  return rep;
}

RunRecord decode_v2(const json& j) {
  RunRecord r;
  r.schema = 2;
  r.id = identity_from_json(j.at("identity"), "kernel");
  r.status = j.at("status").get<std::string>();
  r.failure = parse_failure_class(j.at("failure_class").get<std::string>());
  r.reason = j.at("reason").get<std::string>();
  r.started = j.at("started").get<std::string>();
  r.finished = j.at("finished").get<std::string>();
  const json& p = j.at("provenance");
  r.provenance.host = p.at("host").get<HostInfo>();
  kernel_from_json(p.at("kernel"), r.provenance);
  image_from_json(p.at("image"), r.provenance);
  boot_from_json(p.at("boot"), r.provenance);
  if (!p.at("guest").is_null()) {
    r.provenance.has_guest = true;
    r.provenance.guest = p.at("guest").get<GuestInfo>();
  }
  const json& a = j.at("artifacts");
  r.artifacts =
      Artifacts{a.at("console_log").get<std::string>(), a.at("records").get<std::string>(),
                a.at("emulator_log").get<std::string>(), a.at("job").get<std::string>()};
  const json& k = j.at("knobs");
  r.knobs_found = kv_from_json(k.at("found"));
  r.knobs_set = kv_from_json(k.at("set"));
  r.knob_results = knob_results_from_json(k.at("results"));
  for (const json& e : j.at("reps")) r.reps.push_back(rep_from_json(e));
  // Optional within schema 2 (issue 29): only runs with machine state steps have it.
  if (auto s = j.find("prepared"); s != j.end()) {
    for (const json& x : *s) {
      r.prepared.push_back({x.at("step").get<std::string>(), kv_from_json(x.at("fields"))});
    }
  }
  // Absent from records written before adaptive repetitions (issue 18).
  if (auto s = j.find("repeat_stop"); s != j.end() && !s->is_null()) {
    r.repeat_stop = repeat_stop_from_json(*s);
  }
  r.guest_errors = j.at("guest_errors").get<std::vector<std::string>>();
  r.problems = j.at("problems").get<std::vector<std::string>>();
  if (r.ok() != (r.failure == FailureClass::kNone)) {
    throw std::runtime_error("status and failure_class disagree");
  }
  return r;
}

// Schema 1 did not record who failed; infer it from the status word and the reason.
FailureClass v1_failure_class(const std::string& status, const std::string& reason) {
  if (status == "ok") return FailureClass::kNone;
  if (status == "build-failed" || status == "image-failed" || status == "boot-failed") {
    return FailureClass::kHost;
  }
  if (reason.starts_with("rep ") && reason.find("workload") != std::string::npos) {
    return FailureClass::kWorkload;
  }
  return FailureClass::kGuest;
}

RunRecord decode_v1(const json& j) {
  RunRecord r;
  r.schema = 1;
  r.id = identity_from_json(j, "kernel_spec");
  r.status = j.at("status").get<std::string>();
  r.reason = opt<std::string>(j, "reason");
  r.failure = v1_failure_class(r.status, r.reason);
  r.started = opt<std::string>(j, "started");
  r.finished = opt<std::string>(j, "finished");
  r.provenance.host = opt<HostInfo>(j, "host");
  kernel_from_json(opt<json>(j, "kernel", json::object()), r.provenance);
  image_from_json(opt<json>(j, "image", json::object()), r.provenance);
  boot_from_json(opt<json>(j, "provenance", json::object()), r.provenance);
  if (!r.provenance.backend.empty()) {
    r.artifacts = Artifacts{"console.log", "records.bin", "qemu.log", "job.txt"};
  }
  const auto report = j.find("report");
  if (report == j.end()) return r;
  const json& rep = *report;
  if (rep.at("run_report_version").get<int>() != 1) {
    throw std::runtime_error("report.run_report_version is not 1");
  }
  if (rep.at("has_hello").get<bool>()) {
    r.provenance.has_guest = true;
    r.provenance.guest = rep.at("hello").get<GuestInfo>();
  }
  r.knobs_found = kv_from_json(rep.at("knobs_initial"));
  r.knobs_set = kv_from_json(rep.at("knobs_final"));
  for (const json& k : rep.at("knob_sets")) {
    r.knob_results.push_back(
        KnobResult{k.at("path").get<std::string>(), k.at("requested").get<std::string>(),
                   k.at("readback").get<std::string>(), k.at("status").get<std::string>(),
                   k.at("error").get<std::string>()});
  }
  for (const json& e : rep.at("reps")) r.reps.push_back(rep_from_json(e));
  for (const json& e : rep.at("errors")) {
    const std::string stage = e.at("stage").get<std::string>();
    const std::string message = e.at("message").get<std::string>();
    r.guest_errors.push_back(stage.empty() ? message : stage + ": " + message);
  }
  r.problems = rep.at("problems").get<std::vector<std::string>>();
  return r;
}

}  // namespace

json encode_record(const RunRecord& r) {
  json reps = json::array();
  for (const Repetition& rep : r.reps) {
    json e = {{"rep", rep.rep},       {"wall_ns", rep.wall_ns}, {"exit_status", rep.exit_status},
              {"signal", rep.signal}, {"metrics", rep.metrics}, {"deltas", rep.deltas}};
    if (rep.warmup) e["warmup"] = true;
    if (!rep.tests.empty()) {
      json tests = json::array();
      for (const SubtestOutcome& t : rep.tests) {
        tests.push_back(
            {{"number", t.number}, {"name", t.name}, {"status", t.status}, {"reason", t.reason}});
      }
      e["tests"] = std::move(tests);
    }
    if (!rep.state_before.empty() || !rep.state_after.empty()) {
      e["state"] = {{"before", rep.state_before}, {"after", rep.state_after}};
    }
    if (!rep.monitor.empty()) e["monitor"] = monitor_to_json(rep.monitor);
    if (!rep.distributions.empty()) e["distributions"] = distributions_to_json(rep.distributions);
    reps.push_back(std::move(e));
  }
  json out = {{"schema", kRunRecordSchema},
              {"identity", identity_to_json(r.id)},
              {"status", r.status},
              {"failure_class", failure_class_name(r.failure)},
              {"reason", r.reason},
              {"started", r.started},
              {"finished", r.finished},
              {"provenance", provenance_to_json(r.provenance)},
              {"artifacts",
               {{"console_log", r.artifacts.console_log},
                {"records", r.artifacts.records},
                {"emulator_log", r.artifacts.emulator_log},
                {"job", r.artifacts.job}}},
              {"knobs",
               {{"found", kv_to_json(r.knobs_found)},
                {"set", kv_to_json(r.knobs_set)},
                {"results", knob_results_to_json(r.knob_results)}}},
              {"reps", reps},
              {"guest_errors", r.guest_errors},
              {"problems", r.problems}};
  if (r.repeat_stop) out["repeat_stop"] = repeat_stop_to_json(*r.repeat_stop);
  if (!r.prepared.empty()) {
    json steps = json::array();
    for (const PreparedStep& s : r.prepared) {
      steps.push_back({{"step", s.step}, {"fields", kv_to_json(s.fields)}});
    }
    out["prepared"] = std::move(steps);
  }
  return out;
}

Result<RunRecord> decode_record(const json& j, std::string_view where) {
  if (!j.is_object()) return make_error(fmt::format("{}: not a JSON object", where));
  const auto schema = j.find("schema");
  if (schema == j.end() || !schema->is_number_integer()) {
    return make_error(fmt::format("{}: no schema version", where));
  }
  const int version = schema->get<int>();
  try {
    if (version == 2) return decode_v2(j);
    if (version == 1) return decode_v1(j);
  } catch (const std::exception& e) {
    return make_error(fmt::format("{}: schema {} record is damaged: {}", where, version, e.what()));
  }
  return make_error(fmt::format("{}: schema {} (this foliolab reads schemas 1 and {})", where,
                                version, kRunRecordSchema));
}

json encode_identity(const RunIdentity& id) { return identity_to_json(id); }

Result<RunIdentity> decode_identity(const json& j, std::string_view where) {
  try {
    return identity_from_json(j, "kernel");
  } catch (const std::exception& e) {
    return make_error(fmt::format("{}: run identity is damaged: {}", where, e.what()));
  }
}

Result<RunRecord> parse_record(std::string_view text, std::string_view where) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return make_error(fmt::format("{}: not valid JSON", where));
  return decode_record(j, where);
}

}  // namespace foliolab
