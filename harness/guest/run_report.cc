#include "guest/run_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace foliolab {
namespace {

using nlohmann::json;

// Length of the valid UTF-8 sequence at the start of s, 0 if invalid.
size_t utf8_len(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint32_t cp = 0;
  if ((c & 0xe0) == 0xc0) {
    n = 2;
    cp = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3;
    cp = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  for (size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3f);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

// Guest strings: at most `max` bytes (then "..."), invalid UTF-8 bytes spelled as "\xNN" so
// the report can always be dumped as JSON.
std::string bounded(std::string_view s, size_t max = kMaxFieldLen) {
  std::string out;
  size_t i = 0;
  while (i < s.size() && out.size() < max) {
    const size_t n = utf8_len(s.substr(i));
    if (n == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  if (i < s.size()) out += "...";
  return out;
}

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

const std::string* find(const KeyValues& kv, std::string_view key) {
  for (const auto& [k, v] : kv) {
    if (k == key) return &v;
  }
  return nullptr;
}

bool is_counter_key(std::string_view k) {
  return k.starts_with("vmstat.") || k.starts_with("mthp.") || k.starts_with("meminfo.");
}

// Upper bound on JSON nesting depth (brackets inside strings are skipped). nlohmann's parser is
// recursive, so untrusted deep nesting must be refused before parsing.
size_t json_depth(std::string_view s) {
  size_t depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : s) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      max_depth = std::max(max_depth, ++depth);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return max_depth;
}

constexpr size_t kMaxJsonDepth = 32;
constexpr std::string_view kOkMarker = "FOLIOLAB-WORKLOAD-OK";
constexpr std::string_view kFailMarker = "FOLIOLAB-WORKLOAD-FAIL";

class Interpreter {
 public:
  explicit Interpreter(int expected_reps) : expected_reps_(expected_reps) {}

  RunReport run(const ParsedStream& stream) {
    r_.records = stream.records.size();
    r_.damage = stream.damage;
    r_.damage_offset = stream.damage_offset;
    for (const Record& rec : stream.records) handle(rec);
    for (auto& [n, rep] : reps_) {
      compute_deltas(rep);
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
    } else if (rec.type == "workload") {
      handle_workload(*kv, where);
    } else if (rec.type == "error") {
      if (r_.errors.size() < kMaxErrors) {
        r_.errors.push_back(GuestError{str_field(*kv, "stage"), str_field(*kv, "message")});
      }
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
    target->clear();
    for (const auto& [k, v] : kv) {
      if (!is_counter_key(k)) continue;  // rep, phase, and keys a newer agent may add
      auto n = parse_int(v);
      if (!n) {
        problem(fmt::format("{}: counter {} is not an integer: \"{}\"", where, bounded(k, 128),
                            bounded(v, 64)));
        continue;
      }
      (*target)[bounded(k, 256)] = *n;
    }
  }

  void handle_workload(const KeyValues& kv, const std::string& where) {
    RepResult* rep = rep_for(kv, where);
    if (!rep) {
      last_workload_rep_ = -1;
      return;
    }
    if (rep->has_workload) problem(fmt::format("{}: second workload record for rep {}", where,
                                               rep->rep));
    rep->has_workload = true;
    rep->workload = str_field(kv, "name");
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
    parse_workload_stdout(payload, rep, stdout_problems);
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
    if (rep.signal != 0) {
      return fmt::format("rep {}: workload {} killed by signal {}", rep.rep, rep.workload,
                         rep.signal);
    }
    if (rep.fail_marker) {
      return fmt::format("rep {}: workload {} failed: {} (exit status {})", rep.rep, rep.workload,
                         rep.fail_reason.empty() ? "no reason given" : rep.fail_reason,
                         rep.exit_status);
    }
    if (rep.exit_status != 0) {
      return fmt::format("rep {}: workload {} exited with status {}", rep.rep, rep.workload,
                         rep.exit_status);
    }
    if (!rep.ok_marker) {
      return fmt::format("rep {}: workload {} did not print {}", rep.rep, rep.workload,
                         kOkMarker);
    }
    if (!rep.has_after) return fmt::format("rep {}: no counters after the workload", rep.rep);
    return {};
  }

  std::string failure(const ParsedStream& stream) const {
    if (!r_.errors.empty()) {
      const GuestError& e = r_.errors.front();
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
      return fmt::format("guest stopped before reporting completion (no done record after {} "
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
    if (expected_reps_ >= 0 && r_.reps.size() != static_cast<size_t>(expected_reps_)) {
      return fmt::format("expected {} repetitions, guest reported {}", expected_reps_,
                         r_.reps.size());
    }
    for (size_t i = 0; i < r_.reps.size(); ++i) {
      if (r_.reps[i].rep != static_cast<int>(i)) {
        return fmt::format("repetition numbers are not 0..{} (found rep {})", r_.reps.size() - 1,
                           r_.reps[i].rep);
      }
      std::string f = rep_failure(r_.reps[i]);
      if (!f.empty()) return f;
    }
    if (!r_.problems.empty()) return "malformed guest report: " + r_.problems.front();
    return {};
  }

  void decide(const ParsedStream& stream) {
    r_.reason = failure(stream);
    r_.ok = r_.reason.empty();
  }

  int expected_reps_;
  RunReport r_;
  std::map<int, RepResult> reps_;
  int last_workload_rep_ = -1;
  bool done_seen_ = false;
};

}  // namespace

bool RepResult::succeeded() const {
  return has_workload && exit_status == 0 && signal == 0 && ok_marker && !fail_marker;
}

void parse_workload_stdout(std::string_view text, RepResult& rep,
                           std::vector<std::string>& problems) {
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line == kOkMarker) {
      rep.ok_marker = true;
      continue;
    }
    if (line.starts_with(kFailMarker) &&
        (line.size() == kFailMarker.size() || line[kFailMarker.size()] == ' ')) {
      rep.fail_marker = true;
      std::string_view why = line.substr(kFailMarker.size());
      while (!why.empty() && why.front() == ' ') why.remove_prefix(1);
      if (rep.fail_reason.empty()) rep.fail_reason = bounded(why, 1024);
      continue;
    }
    if (line.empty() || line.front() != '{') continue;
    if (json_depth(line) > kMaxJsonDepth) {
      problems.push_back("JSON line nested too deeply, ignored");
      continue;
    }
    json obj;
    try {
      obj = json::parse(line, nullptr, /*allow_exceptions=*/false);
    } catch (const std::exception&) {
      obj = json(json::value_t::discarded);
    }
    if (obj.is_discarded() || !obj.is_object()) continue;  // not JSON: plain output
    for (const auto& [key, value] : obj.items()) {
      if (!value.is_number()) continue;
      const double d = value.get<double>();
      if (!std::isfinite(d)) {
        problems.push_back(fmt::format("metric {} is not finite", bounded(key, 128)));
        continue;
      }
      if (!rep.metrics.contains(key) && rep.metrics.size() >= kMaxMetricsPerRep) {
        problems.push_back("too many metrics, rest ignored");
        break;
      }
      rep.metrics[bounded(key, 256)] = d;
    }
  }
}

RunReport interpret_records(const ParsedStream& stream, int expected_reps) {
  return Interpreter(expected_reps).run(stream);
}

RunReport parse_run_report(std::string_view bytes, int expected_reps) {
  return interpret_records(parse_records(bytes), expected_reps);
}

}  // namespace foliolab
