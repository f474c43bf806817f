#include "results/bisect_index.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <ctime>
#include <map>
#include <optional>
#include <vector>

#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Bisect makes its sessions beside its own directory, in the same results root: a session is
// <experiment>/<stamp>, its last two path components (the key of sessions.path), however the
// log spelt it (relative to the directory foliolab ran in, or absolute).
std::optional<std::string> session_key(const std::string& logged) {
  if (logged.empty()) return std::nullopt;
  const fs::path p = fs::path(logged).lexically_normal();
  const fs::path dir = p.filename().empty() ? p.parent_path() : p;
  return (dir.parent_path().filename() / dir.filename()).generic_string();
}

// The name of a candidate, when the log has one.
std::optional<std::string> name_of(const std::vector<std::string>& names,
                                   std::optional<int64_t> candidate) {
  if (!candidate || *candidate < 0 || *candidate >= static_cast<int64_t>(names.size())) {
    return std::nullopt;
  }
  return names[*candidate];
}

std::string meta_of(const BisectLog& log, const std::string& key) {
  auto it = log.meta().find(key);
  return it == log.meta().end() ? "" : it->second;
}

// The state the log shows (see the header), and the culprit it names.
struct Reading {
  std::string state;
  std::optional<int64_t> culprit;
};

Reading read_state(const BisectLog& log, size_t candidates) {
  Reading r;
  for (const BisectConfirmation& c : log.confirmations()) {
    if (!r.culprit || (c.confirmed && r.state != "confirmed")) {
      r.culprit = static_cast<int64_t>(c.culprit);
    }
    if (c.confirmed) r.state = "confirmed";
  }
  if (r.culprit) {
    if (r.state.empty()) r.state = "unconfirmed";
    return r;
  }
  std::map<size_t, const BisectStep*> ends;  // the first observation of each end
  for (const BisectStep& s : log.steps()) {
    const size_t i = s.candidate;
    if (candidates >= 2 && (i == 0 || i == candidates - 1) && !ends.count(i)) ends[i] = &s;
  }
  const bool skipped = std::any_of(ends.begin(), ends.end(),
                                   [](const auto& e) { return !e.second->cls.has_value(); });
  r.state = log.steps().empty()                                             ? "started"
            : skipped                                                       ? "endpoint skipped"
            : ends.size() == 2 && ends[0]->cls == ends[candidates - 1]->cls ? "does not reproduce"
                                                                            : "searching";
  return r;
}

// A file's modification time as a session-style stamp (20261201T193000Z).
std::string mtime_stamp(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return "";
  std::tm tm{};
  ::gmtime_r(&st.st_mtime, &tm);
  char out[32];
  return std::strftime(out, sizeof out, "%Y%m%dT%H%M%SZ", &tm) ? out : "";
}

// bisect-20261201T193000Z(-N) → 20261201T193000Z.
std::string started_stamp(const fs::path& dir) {
  std::string name = dir.filename().string();
  if (name.starts_with("bisect-")) name.erase(0, 7);
  return name.substr(0, name.find('-'));
}

Result<int64_t> upsert_bisection(SqlDb& db, const std::string& key, const fs::path& dir,
                                 const BisectLog& log, const std::vector<std::string>& names) {
  const Reading reading = read_state(log, names.size());
  auto ins = db.prepare(
      "INSERT INTO bisections(path, experiment, experiment_file, metric, selection, variants, "
      "candidates, state, culprit, culprit_candidate, started, updated) "
      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(path) DO UPDATE SET "
      "experiment = excluded.experiment, experiment_file = excluded.experiment_file, "
      "metric = excluded.metric, selection = excluded.selection, variants = excluded.variants, "
      "candidates = excluded.candidates, state = excluded.state, culprit = excluded.culprit, "
      "culprit_candidate = excluded.culprit_candidate, started = excluded.started, "
      "updated = excluded.updated RETURNING id");
  if (!ins.ok()) return ins.error();
  ins->bind(1, key).bind(2, dir.parent_path().filename().string());
  ins->bind(3, meta_of(log, "experiment")).bind(4, meta_of(log, "metric"));
  ins->bind(5, meta_of(log, "where")).bind(6, meta_of(log, "variants"));
  ins->bind(7, static_cast<int64_t>(names.size())).bind(8, reading.state);
  ins->bind_or_null(9, name_of(names, reading.culprit)).bind_or_null(10, reading.culprit);
  ins->bind(11, started_stamp(dir)).bind(12, mtime_stamp(dir / kBisectLogFile));
  auto row = ins->step();  // RETURNING id, inserted or updated
  if (!row.ok()) return row.error();
  if (!*row) return make_error("bisection row vanished");
  return ins->column_int(0);
}

Result<void> insert_steps(SqlDb& db, int64_t id, const BisectLog& log,
                          const std::vector<std::string>& names) {
  auto ins = db.prepare(
      "INSERT INTO bisect_steps(bisection, ordinal, candidate, candidate_name, class, session, "
      "evidence, rep_values) VALUES(?,?,?,?,?,?,?,?)");
  if (!ins.ok()) return ins.error();
  int64_t ordinal = 0;
  for (const BisectStep& s : log.steps()) {
    const auto candidate = static_cast<int64_t>(s.candidate);
    ins->bind(1, id).bind(2, ordinal++).bind(3, candidate);
    ins->bind_or_null(4, name_of(names, candidate));
    ins->bind_or_null(5, s.cls);
    ins->bind_or_null(6, session_key(s.session));
    ins->bind(7, s.evidence).bind(8, json(s.values).dump());
    FL_TRY(ins->run());
  }
  return {};
}

Result<void> insert_confirmations(SqlDb& db, int64_t id, const BisectLog& log) {
  auto ins = db.prepare(
      "INSERT INTO bisect_confirmations(bisection, ordinal, parent, culprit, confirmed, "
      "evidence, sessions) VALUES(?,?,?,?,?,?,?)");
  if (!ins.ok()) return ins.error();
  int64_t ordinal = 0;
  for (const BisectConfirmation& c : log.confirmations()) {
    json sessions = json::array();
    for (const std::string& s : c.sessions) {
      if (auto key = session_key(s)) sessions.push_back(*key);
    }
    ins->bind(1, id).bind(2, ordinal++).bind(3, static_cast<int64_t>(c.parent));
    ins->bind(4, static_cast<int64_t>(c.culprit)).bind(5, int64_t{c.confirmed});
    ins->bind(6, c.evidence).bind(7, sessions.dump());
    FL_TRY(ins->run());
  }
  return {};
}

}  // namespace

Result<void> write_bisection(SqlDb& db, const fs::path& root, const fs::path& dir) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(dir, ec);
  const std::string key = canonical.lexically_relative(root).generic_string();
  if (key.empty() || key.starts_with("..")) {
    return make_error(fmt::format("bisection {} is not under the results root {}",
                                  canonical.string(), root.string()));
  }
  const fs::path file = canonical / kBisectLogFile;
  if (!path_exists(file)) return read_file(file).error();  // a log to index, not a new one
  auto log = BisectLog::open(file);
  if (!log.ok()) return log.error();
  std::vector<std::string> names;
  const std::string variants = meta_of(*log, "variants");
  for (std::string_view v : split_lines(variants)) names.emplace_back(v);
  try {
    auto id = upsert_bisection(db, key, canonical, *log, names);
    if (!id.ok()) return id.error();
    auto del = db.prepare("DELETE FROM bisect_steps WHERE bisection = ?");
    auto del_conf = db.prepare("DELETE FROM bisect_confirmations WHERE bisection = ?");
    if (!del.ok()) return del.error();
    if (!del_conf.ok()) return del_conf.error();
    FL_TRY(del->bind(1, *id).run());
    FL_TRY(del_conf->bind(1, *id).run());
    FL_TRY(insert_steps(db, *id, *log, names));
    return insert_confirmations(db, *id, *log);
  } catch (const json::exception& e) {
    return make_error(fmt::format("{}: damaged bisection log: {}",
                                  (canonical / kBisectLogFile).string(), e.what()));
  }
}

Result<void> index_bisection(ResultIndex& index, const fs::path& dir) {
  SqlTransaction tx(index.db());
  if (!tx.begun().ok()) return tx.begun();
  FL_TRY(write_bisection(index.db(), index.root(), dir));
  return tx.commit();
}

Result<int> write_bisections_under(SqlDb& db, const fs::path& root,
                                   const std::function<void(const std::string&)>& warn) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const auto& exp : fs::directory_iterator(root, ec)) {
    if (!exp.is_directory(ec)) continue;
    for (const auto& d : fs::directory_iterator(exp.path(), ec)) {
      if (d.path().filename().string().starts_with("bisect-") &&
          fs::exists(d.path() / kBisectLogFile, ec)) {
        dirs.push_back(d.path());
      }
    }
  }
  std::sort(dirs.begin(), dirs.end());
  int n = 0;
  for (const fs::path& dir : dirs) {
    // A log damaged half-way leaves none of its rows.
    FL_TRY(db.exec("SAVEPOINT bisection"));
    if (auto st = write_bisection(db, root, dir); !st.ok()) {
      warn(st.error().message);
      FL_TRY(db.exec("ROLLBACK TO bisection; RELEASE bisection"));
      continue;
    }
    FL_TRY(db.exec("RELEASE bisection"));
    ++n;
  }
  return n;
}

}  // namespace foliolab
