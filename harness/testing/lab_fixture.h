// Test helpers for the lab server: a lab database on either engine (a SQLite file, or a new
// database of a PostgreSQL server the test starts itself), and result sessions made on disk as
// `foliolab run` leaves them (experiment.yaml, plan.json, runs/<id>/run.json).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "model/loader.h"
#include "model/matrix.h"
#include "results/store.h"
#include "testing/postgres_server.h"
#include "testing/record_fixture.h"
#include "testing/source_root.h"
#include "util/fs.h"

namespace foliolab {

enum class LabEngine { kSqlite, kPostgres };

inline std::string lab_engine_name(const ::testing::TestParamInfo<LabEngine>& p) {
  return p.param == LabEngine::kSqlite ? "Sqlite" : "Postgres";
}

// A lab database for a test: `url()` names it.
class LabDatabase {
 public:
  LabDatabase(LabEngine engine, const std::filesystem::path& dir) {
    if (engine == LabEngine::kSqlite) {
      url_ = (dir / "lab.sqlite").string();
      return;
    }
    auto pg = PostgresServer::start(dir / "pg");
    if (!pg.ok()) {
      error_ = pg.error().message;
      return;
    }
    pg_ = std::move(*pg);
    auto db = pg_->database("lab");
    if (db.ok()) url_ = *db;
    if (!db.ok()) error_ = db.error().message;
  }
  const std::string& url() const { return url_; }
  const std::string& error() const { return error_; }
  PostgresServer* postgres() { return pg_.get(); }

 private:
  std::unique_ptr<PostgresServer> pg_;
  std::string url_, error_;
};

// The run id experiments/quickstart.yaml plans for x86_64 and a knob set.
inline std::string quickstart_run_id(const std::string& knobs) {
  static const Experiment exp =
      *load_experiment((kSourceRoot / "experiments" / "quickstart.yaml").string());
  for (const Run& run : expand(exp)) {
    if (run.arch == Arch::kX86_64 && exp.knob_sets[run.knob_set].name == knobs) return run.id;
  }
  ADD_FAILURE() << "quickstart plans no x86_64 run with knobs " << knobs;
  return "";
}

// <root>/quickstart/<stamp>/ with quickstart's two x86_64 runs ("4K", "64K mTHP"), `faults`
// each rep (plus `offset` on the 64K run), on `host`.
inline std::filesystem::path make_lab_session(const std::filesystem::path& root,
                                              const std::string& stamp, double offset = 0,
                                              const std::string& host = "testhost") {
  const std::filesystem::path dir = root / "quickstart" / stamp;
  std::filesystem::create_directories(dir / "runs");
  auto store = ResultStore::open(dir);
  EXPECT_TRUE(store.ok());
  for (const char* knobs : {"4K", "64K mTHP"}) {
    FakeRun f;
    f.knobs = knobs;
    const double base = std::string(knobs) == "4K" ? 16386 : 1025 + offset;
    const int64_t folios = std::string(knobs) == "4K" ? 0 : 1024;
    f.metrics = {{"faults", {base, base, base}},
                 {"cpu_s", {0.010, 0.011, 0.0105}},
                 {"sys_s", {0.008, 0.0081, 0.0079}}};
    f.deltas = {{"mthp.64kB.anon_fault_alloc", {folios, folios, folios}}};
    RunRecord r = fake_record(f);
    r.id.run_id = quickstart_run_id(knobs);
    r.provenance.host.hostname = host;
    EXPECT_TRUE(store->save_record(r).ok());
  }
  auto yaml = read_file(kSourceRoot / "experiments" / "quickstart.yaml");
  EXPECT_TRUE(yaml.ok());
  EXPECT_TRUE(store->save_text("experiment.yaml", *yaml).ok());
  return dir;
}

}  // namespace foliolab
