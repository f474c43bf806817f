// `foliolab export --kcidb` from the real binary: a session's document to --output and to
// stdout, the same bytes both ways, valid against the KCIDB schema; bad input exits 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "results/store.h"
#include "testing/cli_binary.h"
#include "testing/kcidb_schema.h"
#include "testing/record_fixture.h"
#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

ProcessResult kcidb_cli(std::vector<std::string> args) {
  args.insert(args.begin(), cli_binary());
  RealProcessRunner proc;
  return proc.run({.argv = args, .capture = true, .timeout = std::chrono::seconds(120)});
}

// A session of two runs: one ok, one that failed in the guest.
fs::path kcidb_session_dir(const fs::path& root) {
  auto store = ResultStore::create(root / "results", "quickstart");
  EXPECT_TRUE(store.ok()) << store.error().message;
  FakeRun run{.metrics = {{"faults", {10, 20, 30}}}};
  EXPECT_TRUE(store->save_record(fake_record(run)).ok());
  run.knobs = "64K";
  run.status = "failed";
  EXPECT_TRUE(store->save_record(fake_record(run)).ok());
  return store->dir();
}

TEST(KcidbExport, TheBinaryWritesTheSameValidDocumentToAFileAndToStdout) {
  ScopedTestDir dir("foliolab-kcidb-export");
  const fs::path session = kcidb_session_dir(dir.path());
  const ProcessResult file =
      kcidb_cli({"export", "--kcidb", session.string(), "--output", (dir / "kcidb.json").string()});
  ASSERT_EQ(file.exit_code, 0) << file.describe() << "\n" << file.output;
  auto text = read_file(dir / "kcidb.json");
  ASSERT_TRUE(text.ok()) << text.error().message;
  const ProcessResult out = kcidb_cli({"export", "--kcidb", session.string() + "/"});
  ASSERT_EQ(out.exit_code, 0) << out.describe() << "\n" << out.output;
  EXPECT_EQ(out.output, *text);  // a trailing slash names the same session
  const nlohmann::json doc = nlohmann::json::parse(*text);
  EXPECT_EQ(doc["checkouts"].size(), 1u);
  EXPECT_EQ(doc["builds"].size(), 1u);
  ASSERT_EQ(doc["tests"].size(), 4u);  // two runs, one metric each
  EXPECT_THAT(doc["tests"][0]["id"].get<std::string>(),
              HasSubstr("foliolab:quickstart/" + session.filename().string() + "/"));
  const fs::path schema = kcidb_schema_path();
  if (schema.empty()) GTEST_SKIP() << kKcidbSchemaMissing;
  const ProcessResult valid = validate_kcidb(schema, dir / "kcidb.json");
  EXPECT_EQ(valid.exit_code, 0) << valid.describe() << "\n" << valid.output;
}

TEST(KcidbExport, NoFormatOrNoSessionIsBadInput) {
  ScopedTestDir dir("foliolab-kcidb-export");
  const fs::path session = kcidb_session_dir(dir.path());
  const ProcessResult no_format = kcidb_cli({"export", session.string()});
  EXPECT_EQ(no_format.exit_code, 2) << no_format.output;
  EXPECT_THAT(no_format.output, HasSubstr("error: export: name the format: --kcidb"));
  const ProcessResult no_session = kcidb_cli({"export", "--kcidb", (dir / "nothing").string()});
  EXPECT_EQ(no_session.exit_code, 2) << no_session.output;
  EXPECT_THAT(no_session.output, HasSubstr("is not a foliolab results session"));
}

}  // namespace
}  // namespace foliolab
