// End-to-end test helper: an experiment run as a user runs it (`cd dir && foliolab run x.yaml`),
// its session's records read back.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "results/store.h"
#include "testing/cli_binary.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {

// Writes `yaml` to <dir>/<name>.yaml and runs it from dir; every expectation must hold (exit
// 0). The session's records; `raw`, when given, gets each run's guest record stream
// (records.bin: the workloads' stdout as it came), by run id.
inline std::vector<RunRecord> run_e2e_experiment(
    const ScopedTestDir& dir, const std::string& name, const std::string& yaml,
    std::map<std::string, std::string>* raw = nullptr) {
  EXPECT_TRUE(write_file_atomic(dir / (name + ".yaml"), yaml).ok());
  auto r =
      run_cli({"run", name + ".yaml", "--results", "results"}, dir.path(), dir / (name + ".log"));
  EXPECT_TRUE(r.ok()) << r.output;
  auto session = ResultStore::latest(dir / "results", name);
  EXPECT_TRUE(session) << r.output;
  if (!session) return {};
  auto store = ResultStore::open(*session);
  auto all = store->load_all();
  EXPECT_TRUE(all.ok());
  if (!all.ok()) return {};
  for (const RunRecord& rec : *all) {
    if (!raw) break;
    auto bytes = read_file(store->run_dir(rec.id.run_id) / "records.bin");
    EXPECT_TRUE(bytes.ok()) << rec.id.run_id;
    if (bytes.ok()) (*raw)[rec.id.run_id] = *bytes;
  }
  return *all;
}

}  // namespace foliolab
