// Test helper: builds a record stream the way the guest agent writes it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "protocol/record_stream.h"

namespace foliolab {

// Builds a record stream the way the agent writes it.
class StreamBuilder {
 public:
  StreamBuilder& kv(std::string_view type, const KeyValues& kv) { return raw(type, encode_kv(kv)); }
  StreamBuilder& raw(std::string_view type, std::string_view payload) {
    bytes_ += encode_record(type, seq_++, payload);
    return *this;
  }
  StreamBuilder& hello() {
    return kv("hello", {{"agent_version", "1"},
                        {"release", release_},
                        {"version", version_},
                        {"machine", "x86_64"},
                        {"page_size", "4096"},
                        {"nr_cpus", "2"},
                        {"mem_total_kb", "1000000"},
                        {"cmdline", "console=ttyS0 panic=-1"}});
  }
  StreamBuilder& knobs(std::string phase, std::string enabled) {
    return kv("knobs", {{"phase", phase}, {"enabled", enabled}, {"defrag", "[madvise] never"}});
  }
  StreamBuilder& knob_set(std::string status = "ok") {
    return kv("knob-set", {{"path", "enabled"},
                           {"requested", "always"},
                           {"readback", status == "ok" ? "always" : "never"},
                           {"raw", "[always] madvise never"},
                           {"status", status},
                           {"error", ""}});
  }
  StreamBuilder& counters(int rep, std::string phase, int64_t faults, int64_t thp) {
    return kv("counters", {{"rep", std::to_string(rep)},
                           {"phase", phase},
                           {"vmstat.pgfault", std::to_string(faults)},
                           {"vmstat.thp_fault_alloc", std::to_string(thp)},
                           {"mthp.64kB.anon_fault_alloc", std::to_string(thp * 2)},
                           {"meminfo.AnonHugePages", std::to_string(thp * 2048)}});
  }
  StreamBuilder& workload(int rep, int exit_status = 0, int signal = 0) {
    return kv("workload", {{"rep", std::to_string(rep)},
                           {"name", "fault"},
                           {"exit_status", std::to_string(exit_status)},
                           {"signal", std::to_string(signal)},
                           {"wall_ns", "450000000"}});
  }
  StreamBuilder& out(std::string_view text) { return raw("stdout", text); }
  StreamBuilder& rep(int rep, double fps, std::string_view marker = "FOLIOLAB-WORKLOAD-OK") {
    counters(rep, "before", 1000, 10);
    workload(rep);
    out(fmt::format("{{\"pages\":16384,\"faults_per_sec\":{},\"name\":\"x\"}}\n{}\n", fps, marker));
    return counters(rep, "after", 17386 + rep, 42);
  }
  StreamBuilder& error(std::string stage, std::string message) {
    return kv("error", {{"stage", stage}, {"message", message}});
  }
  StreamBuilder& done(std::string status = "ok") { return kv("done", {{"status", status}}); }
  StreamBuilder& prologue() {
    return hello().knobs("initial", "[madvise] never").knob_set().knobs("final", "[always]");
  }
  StreamBuilder& with_version(std::string v) {
    version_ = std::move(v);
    return *this;
  }
  StreamBuilder& with_release(std::string r) {
    release_ = std::move(r);
    return *this;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  uint64_t seq_ = 0;
  std::string version_ = "#1 SMP";
  std::string release_ = "6.12.0-foliolab";
};

}  // namespace foliolab
