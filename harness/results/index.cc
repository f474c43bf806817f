#include "results/index.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "results/distribution_json.h"
#include "results/record_codec.h"
#include "results/sql_batch.h"
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
void add_provenance(SqlBatch& prov, int64_t run, const Provenance& p) {
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
    if (!value.empty()) prov.add({run, std::string(key), value});
  }
}

// The rows that hang off a run: samples, counter deltas, knobs and provenance.
struct RunDetails {
  explicit RunDetails(SqlDb& db)
      : samples(db, "INSERT INTO samples(run, metric, rep, value)", 4),
        deltas(db, "INSERT INTO counter_deltas(run, counter, rep, value)", 4),
        knobs(db, "INSERT INTO knobs(run, phase, path, value)", 4,
              " ON CONFLICT(run, phase, path) DO UPDATE SET value = excluded.value"),
        provenance(db, "INSERT INTO provenance(run, key, value)", 3),
        distributions(
            db,
            "INSERT INTO distributions(run, metric, rep, unit, count, sum, min, max, p50, "
            "p90, p99, buckets)",
            12) {}

  void add(int64_t run, const RunRecord& r) {
    for (const Repetition& rep : r.reps) {
      if (rep.warmup) continue;  // kept in run.json, in no statistic (history, trends)
      for (const auto& [name, value] : rep.metrics)
        samples.add({run, name, int64_t{rep.rep}, value});
      for (const auto& [name, value] : rep.deltas) deltas.add({run, name, int64_t{rep.rep}, value});
      add_distributions(run, rep);
    }
    for (const auto& [phase, kv] : {std::pair{"found", &r.knobs_found}, {"set", &r.knobs_set}}) {
      for (const auto& [path, value] : *kv) knobs.add({run, std::string(phase), path, value});
    }
    add_provenance(provenance, run, r.provenance);
  }
  // A rep's distributions: a row each in `distributions`, their derived scalars in `samples`
  // (a workload metric of that name wins).
  void add_distributions(int64_t run, const Repetition& rep) {
    for (const auto& [name, d] : rep.distributions) {
      distributions.add({run, name, int64_t{rep.rep}, d.unit, d.count, d.sum, d.min, d.max,
                         d.quantile(0.5), d.quantile(0.9), d.quantile(0.99),
                         buckets_to_json(d).dump()});
      for (const std::string& derived : distribution_value_names(name)) {
        if (rep.metrics.contains(derived)) continue;
        samples.add(
            {run, derived, int64_t{rep.rep}, *distribution_value(rep.distributions, derived)});
      }
    }
  }
  Result<void> flush() {
    for (SqlBatch* b : {&samples, &deltas, &knobs, &provenance, &distributions}) FL_TRY(b->flush());
    return {};
  }
  SqlBatch samples, deltas, knobs, provenance, distributions;
};

std::vector<SqlValue> run_row(int64_t session, const RunRecord& r) {
  const Provenance& p = r.provenance;
  return {session,
          r.id.run_id,
          r.id.experiment,
          r.id.kernel.name,
          r.id.arch,
          r.id.knob_set.name,
          r.id.workload.label,
          r.id.workload.name,
          r.status,
          r.reason,
          p.accel,
          int64_t{p.timings_emulated},
          p.kernel_build_id,
          r.started,
          r.finished,
          std::string(failure_class_name(r.failure)),
          p.timing};
}

// The session's runs of these ids, gone (with their rows: ON DELETE CASCADE).
Result<void> delete_runs(SqlDb& db, int64_t session, const std::vector<std::string>& ids) {
  constexpr size_t kPerStatement = 1000;
  for (size_t first = 0; first < ids.size(); first += kPerStatement) {
    const size_t count = std::min(kPerStatement, ids.size() - first);
    std::string marks;
    for (size_t i = 0; i < count; ++i) marks += i ? ",?" : "?";
    auto del = db.prepare("DELETE FROM runs WHERE session_id = ? AND run_id IN (" + marks + ")");
    if (!del.ok()) return del.error();
    del->bind(1, session);
    for (size_t i = 0; i < count; ++i) del->bind(static_cast<int>(i + 2), ids[first + i]);
    FL_TRY(del->run());
  }
  return {};
}

// Replaces the session's runs of these ids (a record listed twice: its last copy) with the
// records, in a few statements per table (results/sql_batch.h).
Result<void> insert_records(SqlDb& db, int64_t session, const std::vector<RunRecord>& records) {
  std::map<std::string, const RunRecord*> last;
  for (const RunRecord& r : records) last[r.id.run_id] = &r;
  SqlBatch runs(db,
                "INSERT INTO runs(session_id, run_id, experiment, kernel, arch, knob_set, "
                "workload, workload_name, status, reason, accel, timings_emulated, "
                "kernel_build_id, started, finished, failure_class, timing)",
                17, " RETURNING id, run_id");
  std::vector<std::string> ids;
  for (const auto& [id, r] : last) {
    ids.push_back(id);
    runs.add(run_row(session, *r));
  }
  FL_TRY(delete_runs(db, session, ids));
  RunDetails details(db);
  std::string missing;
  FL_TRY(runs.flush([&](const SqlStmt& row) {
    const auto it = last.find(row.column_text(1));
    if (it == last.end()) {
      missing = row.column_text(1);
      return;
    }
    details.add(row.column_int(0), *it->second);
  }));
  if (!missing.empty()) return make_error("run row " + missing + " came back unasked");
  return details.flush();
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
  return insert_records(db_, session, records);
}

Result<void> ResultIndex::add_run(const fs::path& session_dir, const RunRecord& record) {
  SqlTransaction tx(db_);
  if (!tx.begun().ok()) return tx.begun();
  auto session = session_id(session_dir);
  if (!session.ok()) return session.error();
  FL_TRY(insert_records(db_, *session, {record}));
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
      FL_TRY(insert_records(db_, *id, {*record}));
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
