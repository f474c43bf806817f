#include "report/kcidb.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "analysis/stats.h"
#include "catalog/metric_catalog.h"
#include "util/hash.h"
#include "util/text.h"

namespace foliolab {
using json = nlohmann::json;

namespace {

constexpr std::string_view kOrigin = "foliolab";
constexpr size_t kLogExcerptMax = 16384;  // the schema's maxLength
constexpr size_t kIdDigits = 16;          // of a SHA-256, in checkout and build ids

using Runs = std::vector<const RunRecord*>;

struct Checkout {
  std::string id;
  Runs runs;
};
struct Build {
  std::string id;
  size_t checkout = 0;
  Runs runs;
};
struct Groups {
  Runs runs;  // in run-id order
  std::vector<Checkout> checkouts;
  std::vector<Build> builds;
  std::map<const RunRecord*, size_t> build_of;
};

std::string origin_id(std::string_view rest) { return fmt::format("{}:{}", kOrigin, rest); }

// Text as every string of the schema takes it: without NUL.
std::string no_nul(std::string_view s) {
  std::string out(s);
  std::erase(out, '\0');
  return out;
}

void put(json& j, const char* key, std::string_view value) {
  if (!value.empty()) j[key] = no_nul(value);
}

json key_values(const KeyValues& kv) {
  json j = json::object();
  for (const auto& [k, v] : kv) j[no_nul(k)] = no_nul(v);
  return j;
}

// RFC 3339 date-time (the schema's "date-time" format): records write "2026-11-30T05:14:30Z".
bool is_rfc3339(const std::string& s) {
  static const std::regex kDateTime(
      R"(\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))");
  return std::regex_match(s, kDateTime);
}

std::string first_of(const Runs& runs, std::string Provenance::*field) {
  for (const RunRecord* r : runs) {
    if (!(r->provenance.*field).empty()) return r->provenance.*field;
  }
  return "";
}

bool any_status(const Runs& runs, std::string_view status) {
  return std::any_of(runs.begin(), runs.end(),
                     [&](const RunRecord* r) { return r->status == status; });
}

const std::string& workload_label(const RunRecord& r) {
  return r.id.workload.label.empty() ? r.id.workload.name : r.id.workload.label;
}

// Runs by kernel (name, source, series) and by kernel and arch, in run-id order; the ids hash
// what the kernel is and what it became (its source as built, its build id).
Groups group_runs(const std::vector<RunRecord>& records) {
  Groups g;
  for (const RunRecord& r : records) g.runs.push_back(&r);
  std::stable_sort(g.runs.begin(), g.runs.end(), [](const RunRecord* a, const RunRecord* b) {
    return a->id.run_id < b->id.run_id;
  });
  std::map<std::string, size_t> checkout_index, build_index;
  for (const RunRecord* r : g.runs) {
    const auto& k = r->id.kernel;
    const std::string key = Hasher().add(k.name).add(k.source).add(k.patches).hex();
    auto [c, new_checkout] = checkout_index.try_emplace(key, g.checkouts.size());
    if (new_checkout) g.checkouts.emplace_back();
    g.checkouts[c->second].runs.push_back(r);
    auto [b, new_build] = build_index.try_emplace(key + "\n" + r->id.arch, g.builds.size());
    if (new_build) g.builds.push_back({.checkout = c->second});
    g.builds[b->second].runs.push_back(r);
    g.build_of[r] = b->second;
  }
  for (Checkout& c : g.checkouts) {
    const auto& k = c.runs.front()->id.kernel;
    Hasher h;
    h.add(k.name).add(k.source).add(k.patches).add(first_of(c.runs, &Provenance::kernel_source));
    c.id = origin_id(h.hex().substr(0, kIdDigits));
  }
  for (Build& b : g.builds) {
    const RunRecord& r = *b.runs.front();
    Hasher h;
    h.add(g.checkouts[b.checkout].id).add(r.id.arch);
    for (const std::string& frag : r.id.kernel.config) h.add(frag);
    for (const auto& [opt, value] : r.id.kernel.options) h.add(opt).add(value);
    h.add(first_of(b.runs, &Provenance::kernel_build_id));
    b.id = origin_id(h.hex().substr(0, kIdDigits));
  }
  return g;
}

json checkout_json(const Checkout& c) {
  const RunRecord& r = *c.runs.front();
  const std::string source = first_of(c.runs, &Provenance::kernel_source);
  json j = {{"origin", kOrigin}, {"id", c.id}};
  put(j, "git_commit_name", first_of(c.runs, &Provenance::kernel_version));
  put(j, "comment", source.empty() ? r.id.kernel.name : r.id.kernel.name + ": " + source);
  // A build from it: the series applied. Without one, whether it would have is not known.
  if (!first_of(c.runs, &Provenance::kernel_build_id).empty()) j["valid"] = true;
  json misc = json::object();
  put(misc, "kernel", r.id.kernel.name);
  put(misc, "source", r.id.kernel.source);
  put(misc, "patches", r.id.kernel.patches);
  put(misc, "source_as_built", source);
  j["misc"] = misc;
  return j;
}

std::string architecture(std::string_view arch) {
  std::string out;
  for (char ch : arch) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    out += (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '_';
  }
  return out;
}

json build_json(const Build& b, const Groups& g) {
  const RunRecord& r = *b.runs.front();
  json j = {{"origin", kOrigin},
            {"id", b.id},
            {"checkout_id", g.checkouts[b.checkout].id},
            {"architecture", architecture(r.id.arch)}};
  if (!r.id.kernel.config.empty()) j["config_name"] = no_nul(join(r.id.kernel.config, "+"));
  const std::string build_id = first_of(b.runs, &Provenance::kernel_build_id);
  if (!build_id.empty()) {
    j["status"] = "PASS";
  } else if (any_status(b.runs, "build-failed")) {
    j["status"] = "FAIL";
  }
  json misc = json::object();
  put(misc, "kernel_build_id", build_id);
  put(misc, "kernel_version", first_of(b.runs, &Provenance::kernel_version));
  if (!r.id.kernel.options.empty()) misc["options"] = key_values(r.id.kernel.options);
  put(misc, "cmdline", r.id.kernel.cmdline);
  for (const RunRecord* run : b.runs) {
    if (run->provenance.kernel_build_id.empty()) continue;
    misc["cache_hit"] = run->provenance.kernel_cache_hit;
    if (!run->provenance.kernel_cache_hit && run->provenance.kernel_build_seconds > 0) {
      j["duration"] = run->provenance.kernel_build_seconds;
    }
    break;
  }
  j["misc"] = misc;
  return j;
}

// The guest and the host it ran on.
json environment_json(const RunRecord& r) {
  const Provenance& p = r.provenance;
  json host = json::object(), guest = json::object(), misc = json::object();
  put(host, "hostname", p.host.hostname);
  put(host, "cpu_model", p.host.cpu_model);
  put(host, "kernel", p.host.kernel);
  if (p.host.cpus > 0) host["cpus"] = p.host.cpus;
  if (p.has_guest) {
    put(guest, "release", p.guest.release);
    put(guest, "machine", p.guest.machine);
    if (p.guest.nr_cpus > 0) guest["cpus"] = p.guest.nr_cpus;
    if (p.guest.mem_total_kb > 0) guest["mem_total_kb"] = p.guest.mem_total_kb;
    if (p.guest.page_size > 0) guest["page_size"] = p.guest.page_size;
  }
  misc["cpus"] = r.id.machine.cpus;
  misc["memory_mb"] = r.id.machine.memory_mb;
  put(misc, "image", r.id.machine.image);
  put(misc, "backend", p.backend);
  put(misc, "accel", p.accel);
  put(misc, "emulator", p.emulator);
  put(misc, "hypervisor_host", p.hypervisor_host);
  if (!host.empty()) misc["host"] = host;
  if (!guest.empty()) misc["guest"] = guest;
  std::string comment =
      fmt::format("{} CPU, {} MiB guest", r.id.machine.cpus, r.id.machine.memory_mb);
  if (!p.backend.empty())
    comment += fmt::format(" ({}{}{})", p.backend, p.accel.empty() ? "" : ", ", p.accel);
  if (!p.host.hostname.empty()) comment += " on " + p.host.hostname;
  return {{"comment", no_nul(comment)}, {"misc", misc}};
}

json run_misc(const RunRecord& r, const std::string& session) {
  const auto measured = std::count_if(r.reps.begin(), r.reps.end(),
                                      [](const Repetition& rep) { return !rep.warmup; });
  json misc = json::object();
  put(misc, "session", session);
  put(misc, "run_id", r.id.run_id);
  put(misc, "experiment", r.id.experiment);
  put(misc, "kernel", r.id.kernel.name);
  put(misc, "knob_set", r.id.knob_set.name);
  if (!r.id.knob_set.knobs.empty()) misc["knobs"] = key_values(r.id.knob_set.knobs);
  if (!r.id.knob_set.sysctls.empty()) misc["sysctls"] = key_values(r.id.knob_set.sysctls);
  put(misc, "workload", r.id.workload.name);
  if (!r.id.workload.params.empty()) misc["workload_params"] = key_values(r.id.workload.params);
  misc["reps"] = measured;
  if (static_cast<size_t>(measured) < r.reps.size()) misc["warmup_reps"] = r.reps.size() - measured;
  put(misc, "accel", r.provenance.accel);
  put(misc, "accel_requested", r.provenance.accel_requested);
  put(misc, "timing", r.provenance.timing);
  misc["timings_emulated"] = r.provenance.timings_emulated;
  put(misc, "status", r.status);
  put(misc, "failure", failure_class_name(r.failure));
  return misc;
}

std::string_view test_status(const RunRecord& r) {
  if (r.ok()) return "PASS";
  // FAIL: the kernel or the workload failed; ERROR: the host or foliolab could not run it.
  return r.failure == FailureClass::kGuest || r.failure == FailureClass::kWorkload ? "FAIL"
                                                                                   : "ERROR";
}

// The test of the run itself: its outcome, and why it failed.
json run_test(const RunRecord& r, const std::string& build_id, const KcidbSession& s) {
  const std::string id = s.name.empty() ? r.id.run_id : s.name + "/" + r.id.run_id;
  json t = {{"origin", kOrigin},
            {"id", origin_id(no_nul(id))},
            {"build_id", build_id},
            {"path", kcidb_test_path(workload_label(r))},
            {"status", test_status(r)}};
  if (is_rfc3339(r.started)) t["start_time"] = r.started;
  put(t, "comment",
      fmt::format("{} on {} ({}, {})", workload_label(r), r.id.kernel.name, r.id.arch,
                  r.id.knob_set.name));
  if (!r.ok()) put(t, "log_excerpt", r.reason.substr(0, kLogExcerptMax));
  t["environment"] = environment_json(r);
  t["misc"] = run_misc(r, s.name);
  return t;
}

// One test per metric of the run: the mean of its measured reps, in the metric's unit.
void add_metric_tests(const RunRecord& r, const json& run, const KcidbSession& s, json& tests) {
  for (const std::string& metric : r.metric_names()) {
    json t = run;
    t["id"] = no_nul(run["id"].get<std::string>() + "/" + metric);
    t["path"] = kcidb_test_path(workload_label(r), metric);
    t.erase("log_excerpt");
    const std::vector<double> samples = r.samples(metric);
    const double value = mean(samples);
    if (!samples.empty() && std::isfinite(value)) {
      json number = {{"value", value}};
      put(number, "unit", metric_info(metric, s.declared).unit);
      t["number"] = number;
    }
    t["misc"]["metric"] = no_nul(metric);
    t["misc"]["samples"] = samples.size();
    tests.push_back(std::move(t));
  }
}

}  // namespace

std::string kcidb_path_part(std::string_view name) {
  std::string out;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    out += ok ? c : '_';
  }
  return out.empty() ? "_" : out;
}

std::string kcidb_test_path(std::string_view workload, std::string_view metric) {
  std::string path = fmt::format("{}.{}", kOrigin, kcidb_path_part(workload));
  if (metric.empty()) return path;
  for (size_t start = 0;;) {
    const size_t dot = metric.find('.', start);
    path += "." + kcidb_path_part(metric.substr(start, dot - start));
    if (dot == std::string_view::npos) return path;
    start = dot + 1;
  }
}

json kcidb_document(const KcidbSession& session) {
  const Groups g = group_runs(session.records);
  json checkouts = json::array(), builds = json::array(), tests = json::array();
  for (const Checkout& c : g.checkouts) checkouts.push_back(checkout_json(c));
  for (const Build& b : g.builds) builds.push_back(build_json(b, g));
  for (const RunRecord* r : g.runs) {
    json run = run_test(*r, g.builds[g.build_of.at(r)].id, session);
    tests.push_back(run);
    add_metric_tests(*r, run, session, tests);
  }
  return {{"version", {{"major", kKcidbMajor}, {"minor", kKcidbMinor}}},
          {"checkouts", checkouts},
          {"builds", builds},
          {"tests", tests}};
}

void write_kcidb(const KcidbSession& session, std::ostream& out) {
  out << kcidb_document(session).dump(2, ' ', false, json::error_handler_t::replace) << '\n';
}

}  // namespace foliolab
