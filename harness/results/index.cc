#include "results/index.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "results/distribution_json.h"
#include "results/record_codec.h"
#include "util/fs.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

constexpr const char* kRunColumns =
    "se.path, se.stamp, r.experiment, r.run_id, r.kernel, r.arch, r.knob_set, r.workload, "
    "r.status, r.accel, r.timings_emulated, r.timing";
constexpr int kRunColumnCount = 12;  // of kRunColumns: a query's own columns come after them

IndexedRun run_from_row(const SqlStmt& s, const fs::path& root) {
  IndexedRun r;
  r.session = s.column_text(0);
  r.session_dir = root / r.session;
  r.stamp = s.column_text(1);
  r.experiment = s.column_text(2);
  r.run_id = s.column_text(3);
  r.kernel = s.column_text(4);
  r.arch = s.column_text(5);
  r.knob_set = s.column_text(6);
  r.workload = s.column_text(7);
  r.status = s.column_text(8);
  r.accel = s.column_text(9);
  r.timings_emulated = s.column_int(10) != 0;
  r.timing = s.column_text(11);
  return r;
}

// The provenance facts of a run that are known, one row each.
Result<void> insert_provenance(SqlDb& db, int64_t run, const Provenance& p) {
  auto prov = db.prepare("INSERT INTO provenance(run, key, value) VALUES(?,?,?)");
  if (!prov.ok()) return prov.error();
  const std::pair<const char*, std::string> facts[] = {
      {"host", p.host.hostname},
      {"host_cpu", p.host.cpu_model},
      {"host_kernel", p.host.kernel},
      {"foliolab_revision", p.host.foliolab_revision},
      {"kernel_version", p.kernel_version},
      {"image_id", p.image_id},
      {"backend", p.backend},
      {"emulator", p.emulator},
      {"guest_release", p.guest.release},
      {"guest_page_size", p.has_guest ? std::to_string(p.guest.page_size) : ""},
  };
  for (const auto& [key, value] : facts) {
    if (value.empty()) continue;
    prov->bind(1, run).bind(2, std::string_view(key)).bind(3, value);
    if (auto st = prov->run(); !st.ok()) return st;
  }
  return {};
}

// A rep's distributions: a row each in `distributions`, and their derived scalars in `samples`.
Result<void> insert_distributions(SqlDb& db, int64_t run, const Repetition& rep, SqlStmt& sample) {
  auto ins = db.prepare(
      "INSERT INTO distributions(run, metric, rep, unit, count, sum, min, max, p50, p90, p99, "
      "buckets) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
  if (!ins.ok()) return ins.error();
  for (const auto& [name, d] : rep.distributions) {
    ins->bind(1, run).bind(2, name).bind(3, int64_t{rep.rep}).bind(4, d.unit).bind(5, d.count);
    ins->bind(6, d.sum).bind(7, d.min).bind(8, d.max).bind(9, d.quantile(0.5));
    ins->bind(10, d.quantile(0.9)).bind(11, d.quantile(0.99)).bind(12, buckets_to_json(d).dump());
    if (auto st = ins->run(); !st.ok()) return st;
    for (const std::string& derived : distribution_value_names(name)) {
      if (rep.metrics.contains(derived)) continue;  // a workload metric of that name wins
      const double value = *distribution_value(rep.distributions, derived);
      sample.bind(1, run).bind(2, derived).bind(3, int64_t{rep.rep}).bind(4, value);
      if (auto st = sample.run(); !st.ok()) return st;
    }
  }
  return {};
}

Result<void> insert_run(SqlDb& db, int64_t session, const RunRecord& r) {
  auto del = db.prepare("DELETE FROM runs WHERE session_id = ? AND run_id = ?");
  if (!del.ok()) return del.error();
  if (auto st = del->bind(1, session).bind(2, r.id.run_id).run(); !st.ok()) return st;
  auto ins = db.prepare(
      "INSERT INTO runs(session_id, run_id, experiment, kernel, arch, knob_set, workload, "
      "workload_name, status, reason, accel, timings_emulated, kernel_build_id, started, "
      "finished, failure_class, timing) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id");
  if (!ins.ok()) return ins.error();
  const Provenance& p = r.provenance;
  ins->bind(1, session).bind(2, r.id.run_id).bind(3, r.id.experiment).bind(4, r.id.kernel.name);
  ins->bind(5, r.id.arch).bind(6, r.id.knob_set.name).bind(7, r.id.workload.label);
  ins->bind(8, r.id.workload.name).bind(9, r.status).bind(10, r.reason).bind(11, p.accel);
  ins->bind(12, int64_t{p.timings_emulated}).bind(13, p.kernel_build_id).bind(14, r.started);
  ins->bind(15, r.finished).bind(16, failure_class_name(r.failure)).bind(17, p.timing);
  auto inserted = ins->step();
  if (!inserted.ok()) return inserted.error();
  if (!*inserted) return make_error("run row vanished");
  const int64_t run = ins->column_int(0);

  auto sample = db.prepare("INSERT INTO samples(run, metric, rep, value) VALUES(?,?,?,?)");
  auto delta = db.prepare("INSERT INTO counter_deltas(run, counter, rep, value) VALUES(?,?,?,?)");
  if (!sample.ok()) return sample.error();
  if (!delta.ok()) return delta.error();
  for (const Repetition& rep : r.reps) {
    if (rep.warmup) continue;  // kept in run.json, in no statistic (history, trends)
    for (const auto& [name, value] : rep.metrics) {
      sample->bind(1, run).bind(2, name).bind(3, int64_t{rep.rep}).bind(4, value);
      if (auto st = sample->run(); !st.ok()) return st;
    }
    for (const auto& [name, value] : rep.deltas) {
      delta->bind(1, run).bind(2, name).bind(3, int64_t{rep.rep}).bind(4, value);
      if (auto st = delta->run(); !st.ok()) return st;
    }
    FL_TRY(insert_distributions(db, run, rep, *sample));
  }
  auto knob = db.prepare(
      "INSERT INTO knobs(run, phase, path, value) VALUES(?,?,?,?) "
      "ON CONFLICT(run, phase, path) DO UPDATE SET value = excluded.value");
  if (!knob.ok()) return knob.error();
  for (const auto& [phase, kv] : {std::pair{"found", &r.knobs_found}, {"set", &r.knobs_set}}) {
    for (const auto& [path, value] : *kv) {
      knob->bind(1, run).bind(2, std::string_view(phase)).bind(3, path).bind(4, value);
      if (auto st = knob->run(); !st.ok()) return st;
    }
  }
  return insert_provenance(db, run, p);
}

}  // namespace

Result<ResultIndex> ResultIndex::open(const fs::path& results_root) {
  auto db = open_index_db(results_root);
  if (!db.ok()) return db.error();
  return ResultIndex(std::move(db->db), std::move(db->root));
}

Result<ResultIndex> ResultIndex::open_url(const std::string& target) {
  auto db = open_index_url(target);
  if (!db.ok()) return db.error();
  return ResultIndex(std::move(*db), fs::path());
}

Result<int64_t> ResultIndex::session_id(const fs::path& session_dir) {
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(session_dir, ec);
  const std::string rel = dir.lexically_relative(root_).generic_string();
  if (rel.empty() || rel.starts_with("..")) {
    return make_error(
        fmt::format("session {} is not under the results root {}", dir.string(), root_.string()));
  }
  bool inserted = false;
  return session_row(rel, &inserted);
}

Result<int64_t> ResultIndex::session_row(const std::string& key, bool* inserted) {
  const size_t slash = key.rfind('/');
  if (slash == std::string::npos) return make_error(fmt::format("session key {}", key));
  auto ins = db_.prepare(
      "INSERT INTO sessions(path, experiment, stamp) VALUES(?,?,?) ON CONFLICT(path) DO NOTHING "
      "RETURNING id");
  if (!ins.ok()) return ins.error();
  ins->bind(1, key).bind(2, key.substr(0, slash)).bind(3, key.substr(slash + 1));
  auto row = ins->step();
  if (!row.ok()) return row.error();
  *inserted = *row;
  if (*row) return ins->column_int(0);
  auto sel = db_.prepare("SELECT id FROM sessions WHERE path = ?");
  if (!sel.ok()) return sel.error();
  sel->bind(1, key);
  row = sel->step();
  if (!row.ok()) return row.error();
  if (!*row) return make_error("session row vanished");
  return sel->column_int(0);
}

Result<void> ResultIndex::insert_runs(int64_t session, const std::vector<RunRecord>& records) {
  for (const RunRecord& r : records) FL_TRY(insert_run(db_, session, r));
  return {};
}

Result<void> ResultIndex::add_run(const fs::path& session_dir, const RunRecord& record) {
  SqlTransaction tx(db_);
  if (!tx.begun().ok()) return tx.begun();
  auto session = session_id(session_dir);
  if (!session.ok()) return session.error();
  if (auto st = insert_run(db_, *session, record); !st.ok()) return st;
  return tx.commit();
}

Result<std::vector<IndexedRun>> ResultIndex::find_runs(const RunQuery& query) {
  std::vector<std::string> params;
  const std::string sql = fmt::format(
      "SELECT {} FROM runs r JOIN sessions se ON se.id = r.session_id WHERE 1=1{} "
      "ORDER BY se.stamp, se.path, r.run_id",
      kRunColumns, run_query_sql(query, &params));
  auto stmt = db_.prepare(sql);
  if (!stmt.ok()) return stmt.error();
  for (size_t i = 0; i < params.size(); ++i) stmt->bind(static_cast<int>(i + 1), params[i]);
  std::vector<IndexedRun> out;
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back(run_from_row(*stmt, root_));
  }
  return out;
}

Result<std::vector<IndexedSample>> ResultIndex::samples(const std::string& metric,
                                                        const RunQuery& query) {
  std::vector<std::string> params = {metric, metric};
  const std::string sql = fmt::format(
      "SELECT {}, s.rep, s.value FROM runs r JOIN sessions se ON se.id = r.session_id "
      "JOIN (SELECT run, rep, value FROM samples WHERE metric = ? UNION ALL "
      "      SELECT run, rep, CAST(value AS DOUBLE PRECISION) FROM counter_deltas WHERE counter = "
      "?) s "
      "ON s.run = r.id WHERE 1=1{} ORDER BY se.stamp, se.path, r.run_id, s.rep",
      kRunColumns, run_query_sql(query, &params));
  auto stmt = db_.prepare(sql);
  if (!stmt.ok()) return stmt.error();
  for (size_t i = 0; i < params.size(); ++i) stmt->bind(static_cast<int>(i + 1), params[i]);
  std::vector<IndexedSample> out;
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back({run_from_row(*stmt, root_), static_cast<int>(stmt->column_int(kRunColumnCount)),
                   stmt->column_double(kRunColumnCount + 1)});
  }
  return out;
}

Result<std::vector<std::string>> ResultIndex::sessions(const std::string& experiment) {
  auto stmt = db_.prepare("SELECT path FROM sessions WHERE experiment = ? ORDER BY stamp, path");
  if (!stmt.ok()) return stmt.error();
  stmt->bind(1, experiment);
  std::vector<std::string> out;
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    out.push_back(stmt->column_text(0));
  }
  return out;
}

Result<int> ResultIndex::index_run_files(const std::function<void(const std::string&)>& warn) {
  // Session directories: <root>/<experiment>/<stamp>/runs.
  std::vector<fs::path> sessions;
  std::error_code ec;
  for (const auto& exp : fs::directory_iterator(root_, ec)) {
    if (!exp.is_directory(ec)) continue;
    for (const auto& s : fs::directory_iterator(exp.path(), ec)) {
      if (fs::is_directory(s.path() / "runs", ec)) sessions.push_back(s.path());
    }
  }
  std::sort(sessions.begin(), sessions.end());
  int runs = 0;
  for (const fs::path& session : sessions) {
    std::vector<fs::path> files;
    for (const auto& run : fs::directory_iterator(session / "runs", ec)) {
      if (fs::exists(run.path() / "run.json", ec)) files.push_back(run.path() / "run.json");
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      auto text = read_file(file);
      auto record =
          text.ok() ? parse_record(*text, file.string()) : Result<RunRecord>(text.error());
      if (!record.ok()) {
        warn(record.error().message);
        continue;
      }
      auto id = session_id(session);
      if (!id.ok()) return id.error();
      if (auto st = insert_run(db_, *id, *record); !st.ok()) return st.error();
      ++runs;
    }
  }
  return runs;
}

// The value of `expr` (SQL over the runs table) for the newest ok run with this run id.
Result<std::optional<double>> ResultIndex::newest_ok_run(std::string_view expr,
                                                         const std::string& run_id) {
  auto stmt = db_.prepare(fmt::format(
      "SELECT {} FROM runs WHERE run_id = ? AND status = 'ok' ORDER BY finished DESC LIMIT 1",
      expr));
  if (!stmt.ok()) return stmt.error();
  stmt->bind(1, std::string_view(run_id));
  auto row = stmt->step();
  if (!row.ok()) return row.error();
  if (!*row || stmt->column_is_null(0)) return std::optional<double>();
  return std::optional<double>(stmt->column_double(0));
}

Result<std::optional<double>> ResultIndex::last_run_seconds(const std::string& run_id) {
  return newest_ok_run(db_.connection().seconds_between("started", "finished"), run_id);
}

Result<std::optional<int>> ResultIndex::last_run_reps(const std::string& run_id) {
  auto reps = newest_ok_run("(SELECT COUNT(DISTINCT rep) FROM samples WHERE samples.run = runs.id)",
                            run_id);
  if (!reps.ok()) return reps.error();
  if (!*reps) return std::optional<int>();
  return std::optional<int>(static_cast<int>(**reps));
}

}  // namespace foliolab
