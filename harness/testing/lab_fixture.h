// Test helpers for the lab server: a lab database on either engine (a SQLite file, or a new
// database of a PostgreSQL server the test starts itself), and result sessions made on disk as
// `foliolab run` leaves them (experiment.yaml, plan.json, runs/<id>/run.json).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

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

// <root>/quickstart/<stamp>/ with one run per knob set ("4K", "64K mTHP"), `faults` each rep
// (plus `offset` on the 64K run), on `host`.
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
    f.metrics = {{"faults", {base, base, base}}, {"cpu_s", {0.010, 0.011, 0.0105}}};
    RunRecord r = fake_record(f);
    r.provenance.host.hostname = host;
    EXPECT_TRUE(store->save_record(r).ok());
  }
  auto yaml = read_file(kSourceRoot / "experiments" / "quickstart.yaml");
  EXPECT_TRUE(yaml.ok());
  EXPECT_TRUE(store->save_text("experiment.yaml", *yaml).ok());
  return dir;
}

}  // namespace foliolab
