#include "protocol/run_report.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "protocol/dist_record.h"
#include "protocol/evidence_record.h"
#include "protocol/fault_outcomes.h"
#include "protocol/guest_text.h"
#include "protocol/monitor_record.h"
#include "protocol/oom_reason.h"
#include "protocol/prepare_record.h"
#include "protocol/repeat_stop.h"
#include "util/text.h"

namespace foliolab {
namespace {

using nlohmann::json;

const std::string* find(const KeyValues& kv, std::string_view key) {
  for (const auto& [k, v] : kv) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool is_counter_key(std::string_view k) {
  return k.starts_with("vmstat.") || k.starts_with("mthp.") || k.starts_with("meminfo.");
}

// What workload_failure() judges, back from a RepResult.
WorkloadOutput output_of(const RepResult& rep) {
  WorkloadOutput out;
  out.ok_marker = rep.ok_marker;
  out.fail_marker = rep.fail_marker;
  out.fail_reason = rep.fail_reason;
  out.bailed_out = rep.bailed_out;
  out.bail_reason = rep.bail_reason;
  out.violation = rep.violation;
  return out;
}

class Interpreter {
 public:
  // plan.min < 0: the reps are not checked against a plan.
  Interpreter(RepeatPlan plan, OutputAdapter adapter)
      : plan_(std::move(plan)), adapter_(std::move(adapter)) {}

  RunReport run(const ParsedStream& stream) {
    r_.records = stream.records.size();
    r_.damage = stream.damage;
    r_.damage_offset = stream.damage_offset;
    for (const Record& rec : stream.records) handle(rec);
    for (auto& [n, rep] : reps_) {
      compute_deltas(rep);
      add_fault_outcomes(rep.deltas, &rep.metrics, kMaxMetricsPerRep);
      add_census_metrics(rep.census_metrics, kMaxMetricsPerRep, &rep.metrics);
      r_.reps.push_back(std::move(rep));
    }
    decide(stream);
    return std::move(r_);
  }

 private:
  void problem(std::string what) {
    if (r_.problems.size() < kMaxProblems) {
      r_.problems.push_back(std::move(what));
    } else if (r_.problems.size() == kMaxProblems) {
      r_.problems.push_back("further problems omitted");
    }
  }

  // Reads an integer field; missing or malformed -> problem and nullopt.
  std::optional<int64_t> int_field(const KeyValues& kv, std::string_view key,
                                   const std::string& where) {
    const std::string* v = find(kv, key);
    if (!v) {
      problem(fmt::format("{}: missing field {}", where, key));
      return std::nullopt;
    }
    auto n = parse_int(*v);
    if (!n) problem(fmt::format("{}: {} is not an integer: \"{}\"", where, key, bounded(*v, 64)));
    return n;
  }

  std::string str_field(const KeyValues& kv, std::string_view key) {
    const std::string* v = find(kv, key);
    return v ? bounded(*v) : std::string();
  }

  RepResult* rep_for(const KeyValues& kv, const std::string& where) {
    auto n = int_field(kv, "rep", where);
    if (!n) return nullptr;
    if (*n < 0 || *n >= static_cast<int64_t>(kMaxReps)) {
      problem(fmt::format("{}: rep {} out of range", where, *n));
      return nullptr;
    }
    if (!reps_.contains(static_cast<int>(*n)) && reps_.size() >= kMaxReps) return nullptr;
    RepResult& rep = reps_[static_cast<int>(*n)];
    rep.rep = static_cast<int>(*n);
    return &rep;
  }

  void handle(const Record& rec) {
    const std::string where = fmt::format("{} record seq {}", bounded(rec.type, 32), rec.seq);
    if (done_seen_) {
      problem(fmt::format("{}: arrived after done", where));
      return;
    }
    if (rec.type == "stdout") {
      handle_stdout(rec.payload, where);
      return;
    }
    auto kv = parse_kv(rec.payload);
    if (!kv) {
      problem(fmt::format("{}: {}", where, kv.error().message));
      return;
    }
    if (rec.type == "hello") {
      handle_hello(*kv, where, rec.seq);
    } else if (rec.type == "knobs") {
      handle_knobs(*kv, where);
    } else if (rec.type == "knob-set") {
      if (r_.knob_sets.size() < kMaxKnobs) {
        r_.knob_sets.push_back(KnobSetResult{str_field(*kv, "path"), str_field(*kv, "requested"),
                                             str_field(*kv, "readback"), str_field(*kv, "raw"),
                                             str_field(*kv, "status"), str_field(*kv, "error")});
      }
    } else if (rec.type == "counters") {
      handle_counters(*kv, where);
    } else if (rec.type == "state") {
      handle_state(*kv, where);
    } else if (rec.type == "prepare") {
      if (r_.prepared.size() < kMaxPrepared) r_.prepared.push_back(read_prepare_record(*kv));
    } else if (rec.type == "monitor") {
      handle_monitor(*kv, where);
    } else if (rec.type == "evidence" || rec.type == "function-profile") {
      handle_evidence(rec.type, *kv, where);
    } else if (rec.type == "census") {
      handle_census(*kv, where);
    } else if (rec.type == "dist") {
      RepResult* rep = rep_for(*kv, where);
      std::string why = rep ? read_dist_record(*kv, rep->distributions) : "";
      if (!why.empty()) problem(where + ": " + why);
    } else if (rec.type == "workload") {
      handle_workload(*kv, where);
    } else if (rec.type == "error") {
      if (r_.errors.size() < kMaxErrors) {
        r_.errors.push_back(GuestError{str_field(*kv, "stage"), str_field(*kv, "message")});
      }
    } else if (rec.type == "repeat-stop") {
      std::string why;
      if (r_.repeat_stop) problem(fmt::format("{}: second repeat-stop record", where));
      r_.repeat_stop = parse_repeat_stop(*kv, &why);
      if (!r_.repeat_stop) problem(fmt::format("{}: {}", where, why));
    } else if (rec.type == "done") {
      done_seen_ = true;
      r_.done_status = str_field(*kv, "status");
      if (r_.done_status.empty()) problem(fmt::format("{}: missing status", where));
    } else {
      problem(fmt::format("{}: unknown record type", where));
    }
  }

  void handle_hello(const KeyValues& kv, const std::string& where, uint64_t seq) {
    if (r_.has_hello || seq != 0) problem(fmt::format("{}: hello must be the first record", where));
    r_.has_hello = true;
    GuestHello& h = r_.hello;
    h.agent_version = str_field(kv, "agent_version");
    h.release = str_field(kv, "release");
    h.version = str_field(kv, "version");
    h.machine = str_field(kv, "machine");
    h.cmdline = str_field(kv, "cmdline");
    h.page_size = int_field(kv, "page_size", where).value_or(0);
    h.nr_cpus = int_field(kv, "nr_cpus", where).value_or(0);
    h.mem_total_kb = int_field(kv, "mem_total_kb", where).value_or(0);
  }

  void handle_knobs(const KeyValues& kv, const std::string& where) {
    const std::string phase = str_field(kv, "phase");
    KeyValues* target = phase == "initial" ? &r_.knobs_initial
                        : phase == "final" ? &r_.knobs_final
                                           : nullptr;
    if (!target) {
      problem(fmt::format("{}: bad phase \"{}\"", where, bounded(phase, 64)));
      return;
    }
    target->clear();
    for (const auto& [k, v] : kv) {
      if (k == "phase") continue;
      if (target->size() >= kMaxKnobs) break;
      target->emplace_back(bounded(k), bounded(v));
    }
  }

  void handle_counters(const KeyValues& kv, const std::string& where) {
    RepResult* rep = rep_for(kv, where);
    if (!rep) return;
    const std::string phase = str_field(kv, "phase");
    std::map<std::string, int64_t>* target = nullptr;
    bool* flag = nullptr;
    if (phase == "before") {
      target = &rep->counters_before;
      flag = &rep->has_before;
    } else if (phase == "after") {
      target = &rep->counters_after;
      flag = &rep->has_after;
    } else {
      problem(fmt::format("{}: bad phase \"{}\"", where, bounded(phase, 64)));
      return;
    }
    if (*flag) problem(fmt::format("{}: second '{}' snapshot for rep {}", where, phase, rep->rep));
    *flag = true;
    // rep, phase, and keys a newer agent may add are skipped
    read_integers(
        kv, where, "counter ", SIZE_MAX, [](std::string_view k) { return is_counter_key(k); },
        target);
  }

  // The integer values of a snapshot record into *target, at most `limit` of them, each key that
  // `wanted` accepts; a value that is not an integer is a problem naming `what` and the key.
  template <typename Wanted>
  void read_integers(const KeyValues& kv, const std::string& where, std::string_view what,
                     size_t limit, Wanted wanted, std::map<std::string, int64_t>* target) {
    target->clear();
    for (const auto& [k, v] : kv) {
      if (!wanted(k) || target->size() >= limit) continue;
      auto n = parse_int(v);
      if (!n) {
        problem(fmt::format("{}: {}{} is not an integer: \"{}\"", where, what, bounded(k, 128),
                            bounded(v, 64)));
        continue;
      }
      (*target)[bounded(k, 256)] = *n;
    }
  }

  // `state` records: integer values only (counts and indices in 1/1000), kept as they are.
  void handle_state(const KeyValues& kv, const std::string& where) {
    RepResult* rep = rep_for(kv, where);
    if (!rep) return;
    const std::string phase = str_field(kv, "phase");
    auto* target = phase == "before"  ? &rep->state_before
                   : phase == "after" ? &rep->state_after
                                      : nullptr;
    if (!target) {
      problem(fmt::format("{}: bad phase \"{}\"", where, bounded(phase, 64)));
      return;
    }
    read_integers(
        kv, where, "", kMaxStateValues,
        [](std::string_view k) { return k != "rep" && k != "phase"; }, target);
  }

  // `evidence`: the rep's counts, beside its counter deltas; `function-profile`: kept as text.
  void handle_evidence(const std::string& type, const KeyValues& kv, const std::string& where) {
    RepResult* rep = rep_for(kv, where);
    if (!rep) return;
    std::vector<std::string> found;
    if (type == "evidence") read_evidence_counts(kv, where, &rep->deltas, &found);
    if (type != "evidence") rep->function_profile = profile_text(kv, where, &found);
    for (std::string& p : found) problem(std::move(p));
  }

  // `monitor`: rep, period_ms, counters (names), then s0, s1, ...: "<t_ms> <value>..." each.
  void handle_monitor(const KeyValues& kv, const std::string& where) {
    RepResult* rep = rep_for(kv, where);
    if (!rep) return;
    MonitorSeries& m = rep->monitor;
    m = {};
    m.period_ms = static_cast<int>(int_field(kv, "period_ms", where).value_or(0));
    for (const std::string& name : split_words(str_field(kv, "counters"))) {
      if (m.counters.size() < static_cast<size_t>(kMaxMonitorCounters)) m.counters.push_back(name);
    }
    m.values.assign(m.counters.size(), {});
    std::vector<std::string> found;
    read_monitor_samples(kv, where, &m, &found);
    for (std::string& p : found) problem(std::move(p));
  }

  // `census`: the first of a rep gives its census.* metrics (protocol/census_record.h).
  void handle_census(const KeyValues& kv, const std::string& where) {
    auto c = parse_census_record(kv);
    RepResult* rep = c ? rep_for(kv, where) : nullptr;
    if (!c) problem(fmt::format("{}: {}", where, c.error().message));
    if (rep) add_census(std::move(*c), kMaxMetricsPerRep, &rep->census_metrics, &rep->census);
  }

  void handle_workload(const KeyValues& kv, const std::string& where) {
    RepResult* rep = rep_for(kv, where);
    if (!rep) {
      last_workload_rep_ = -1;
      return;
    }
    if (rep->has_workload)
      problem(fmt::format("{}: second workload record for rep {}", where, rep->rep));
    rep->has_workload = true;
    rep->workload = str_field(kv, "name");
    rep->warmup = str_field(kv, "warmup") == "1";
    rep->exit_status = int_field(kv, "exit_status", where).value_or(-1);
    rep->signal = int_field(kv, "signal", where).value_or(0);
    rep->wall_ns = int_field(kv, "wall_ns", where).value_or(0);
    last_workload_rep_ = rep->rep;
  }

  void handle_stdout(const std::string& payload, const std::string& where) {
    auto it = reps_.find(last_workload_rep_);
    if (last_workload_rep_ < 0 || it == reps_.end()) {
      problem(fmt::format("{}: stdout without a preceding workload record", where));
      return;
    }
    RepResult& rep = it->second;
    if (rep.has_stdout) {
      problem(fmt::format("{}: second stdout record for rep {}", where, rep.rep));
      return;
    }
    rep.has_stdout = true;
    rep.stdout_text = bounded(payload, kMaxStoredStdout);
    rep.stdout_truncated = payload.size() > kMaxStoredStdout;
    std::vector<std::string> stdout_problems;
    parse_workload_stdout(payload, rep, stdout_problems, adapter_);
    for (auto& p : stdout_problems) problem(fmt::format("rep {} stdout: {}", rep.rep, p));
  }

  void compute_deltas(RepResult& rep) {
    for (const auto& [name, after] : rep.counters_after) {
      auto b = rep.counters_before.find(name);
      if (b == rep.counters_before.end()) continue;
      int64_t d = 0;
      if (__builtin_sub_overflow(after, b->second, &d)) {
        problem(fmt::format("rep {}: delta of {} overflows", rep.rep, name));
        continue;
      }
      rep.deltas[name] = d;
    }
  }

  std::string rep_failure(const RepResult& rep) const {
    if (!rep.has_before) return fmt::format("rep {}: no counters before the workload", rep.rep);
    if (!rep.has_workload) return fmt::format("rep {}: no workload record", rep.rep);
    if (std::string oom = oom_kill_reason(rep.signal, rep.state_before, rep.state_after);
        !oom.empty()) {
      return fmt::format("rep {}: workload {} {}", rep.rep, rep.workload, oom);
    }
    if (std::string why = workload_failure(rep.format, output_of(rep), rep.exit_status, rep.signal);
        !why.empty()) {
      return fmt::format("rep {}: workload {} {}", rep.rep, rep.workload, why);
    }
    if (!rep.has_after) return fmt::format("rep {}: no counters after the workload", rep.rep);
    return {};
  }

  std::string failure(const ParsedStream& stream) const {
    if (!r_.errors.empty()) {
      const GuestError& e = r_.errors.front();
      for (const RepResult& rep : r_.reps) {  // the agent's "killed by signal 9" of an OOM kill
        if (e.stage == "workload" && rep.has_workload &&
            !oom_kill_reason(rep.signal, rep.state_before, rep.state_after).empty()) {
          return rep_failure(rep);
        }
      }
      return e.stage.empty() ? fmt::format("guest error: {}", e.message)
                             : fmt::format("guest error in {}: {}", e.stage, e.message);
    }
    if (!stream.clean() && r_.done_status.empty()) {
      if (stream.torn) {
        return fmt::format("guest stopped before reporting completion (torn record at byte {})",
                           stream.damage_offset);
      }
      return fmt::format("guest stopped before reporting completion (damaged stream: {})",
                         stream.damage);
    }
    if (!stream.clean()) return fmt::format("record stream damaged after done: {}", stream.damage);
    if (r_.records == 0) {
      return "guest produced no records (agent did not start or the results port is missing)";
    }
    if (done_seen_ && r_.done_status.empty()) return "done record without a status";
    if (r_.done_status.empty()) {
      return fmt::format(
          "guest stopped before reporting completion (no done record after {} "
          "records)",
          r_.records);
    }
    if (r_.done_status != "ok") {
      return fmt::format("agent reported done status={} without an error record",
                         bounded(r_.done_status, 64));
    }
    for (const KnobSetResult& k : r_.knob_sets) {
      if (k.status != "ok") {
        return fmt::format("knob {}: {} (requested \"{}\", read back \"{}\"{}{})", k.path,
                           k.status.empty() ? "no status" : k.status, k.requested, k.readback,
                           k.error.empty() ? "" : ", ", k.error);
      }
    }
    if (r_.reps.empty()) return "no workload repetitions reported";
    for (size_t i = 0; i < r_.reps.size(); ++i) {
      if (r_.reps[i].rep != static_cast<int>(i)) {
        return fmt::format("repetition numbers are not 0..{} (found rep {})", r_.reps.size() - 1,
                           r_.reps[i].rep);
      }
    }
    if (plan_.min >= 0) {
      if (std::string f = check_reps(plan_, views(), r_.repeat_stop); !f.empty()) return f;
    }
    for (const RepResult& rep : r_.reps) {
      std::string f = rep_failure(rep);
      if (!f.empty()) return f;
    }
    if (!r_.problems.empty()) return "malformed guest report: " + r_.problems.front();
    return {};
  }

  void decide(const ParsedStream& stream) {
    r_.reason = failure(stream);
    r_.ok = r_.reason.empty();
    if (r_.ok && plan_.min >= 0 && !plan_.adaptive()) r_.repeat_stop = fixed_stop(plan_, views());
  }

  std::vector<RepView> views() const {
    std::vector<RepView> out;
    for (const RepResult& rep : r_.reps) out.push_back({rep.rep, rep.warmup, &rep.metrics});
    return out;
  }

  RepeatPlan plan_;
  OutputAdapter adapter_;
  RunReport r_;
  std::map<int, RepResult> reps_;
  int last_workload_rep_ = -1;
  bool done_seen_ = false;
};

}  // namespace

bool RepResult::succeeded() const {
  return has_workload && workload_failure(format, output_of(*this), exit_status, signal).empty();
}

void parse_workload_stdout(std::string_view text, RepResult& rep,
                           std::vector<std::string>& problems, const OutputAdapter& adapter) {
  WorkloadOutput out = parse_workload_output(text, adapter);
  rep.format = adapter.format;
  rep.metrics = std::move(out.metrics);
  for (auto& [name, d] : out.distributions) rep.distributions.insert_or_assign(name, std::move(d));
  rep.ok_marker = out.ok_marker;
  rep.fail_marker = out.fail_marker;
  rep.fail_reason = std::move(out.fail_reason);
  rep.tests = std::move(out.tests);
  rep.bailed_out = out.bailed_out;
  rep.bail_reason = std::move(out.bail_reason);
  rep.violation = std::move(out.violation);
  for (auto& p : out.problems) problems.push_back(std::move(p));
}

RunReport interpret_records(const ParsedStream& stream, int expected_reps,
                            const OutputAdapter& adapter) {
  return interpret_records(stream, RepeatPlan{.min = expected_reps, .max = expected_reps}, adapter);
}

RunReport interpret_records(const ParsedStream& stream, const RepeatPlan& plan,
                            const OutputAdapter& adapter) {
  return Interpreter(plan, adapter).run(stream);
}

RunReport parse_run_report(std::string_view bytes, int expected_reps,
                           const OutputAdapter& adapter) {
  return interpret_records(parse_records(bytes), expected_reps, adapter);
}

RunReport parse_run_report(std::string_view bytes, const RepeatPlan& plan,
                           const OutputAdapter& adapter) {
  return interpret_records(parse_records(bytes), plan, adapter);
}

}  // namespace foliolab
