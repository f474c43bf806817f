// A session read for a push: its own files only. A symbolic link in it (a report.txt pointing at
// a file outside the session, a run's folder elsewhere) refuses the push, naming the link, and
// what it points at is never read. A kernel's upload likewise.
#include "results/session_bundle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "server/lab_client.h"
#include "testing/lab_fixture.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kSecret = "a secret outside the session";

class SessionBundleLinks : public ::testing::Test {
 protected:
  void SetUp() override {
    session_ = make_lab_session(dir_ / "results", "20261207T120000Z");
    ASSERT_TRUE(write_file_atomic(dir_ / "secret.txt", kSecret).ok());
  }
  ScopedTestDir dir_{"foliolab-bundle-links"};
  fs::path session_;
};

TEST_F(SessionBundleLinks, ASessionOfItsOwnFilesIsBundled) {
  ASSERT_TRUE(write_file_atomic(session_ / "report.txt", "the report\n").ok());
  auto b = bundle_from_dir(session_);
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->files.at("report.txt"), "the report\n");
  EXPECT_EQ(b->records.size(), 2u);
}

TEST_F(SessionBundleLinks, AReportLinkedOutsideIsRefusedAndNotRead) {
  fs::create_symlink(dir_ / "secret.txt", session_ / "report.txt");
  auto b = bundle_from_dir(session_);
  ASSERT_FALSE(b.ok()) << "the link was followed: " << b->files.at("report.txt");
  EXPECT_THAT(b.error().message, HasSubstr((session_ / "report.txt").string()));
  EXPECT_THAT(b.error().message, HasSubstr("symbolic link"));
  EXPECT_THAT(b.error().message, Not(HasSubstr(kSecret)));
}

TEST_F(SessionBundleLinks, LinkedRunFilesAndFoldersAreRefused) {
  const fs::path runs = session_ / "runs";
  const fs::path run = *fs::directory_iterator(runs);
  // A run's folder moved out of the session and linked back in; then its run.json alone.
  const fs::path other = dir_ / "elsewhere";
  fs::rename(run, other);
  fs::create_symlink(other, run);
  auto b = bundle_from_dir(session_);
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.error().message, HasSubstr(run.string() + " is a symbolic link"));
  fs::remove(run);
  fs::create_directories(run);
  fs::create_symlink(other / "run.json", run / "run.json");
  b = bundle_from_dir(session_);
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.error().message, HasSubstr((run / "run.json").string() + " is a symbolic link"));
}

TEST_F(SessionBundleLinks, PushRefusesALinkBeforeReachingTheServer) {
  fs::create_symlink(dir_ / "secret.txt", session_ / "plan.json");
  auto ref = lab_server_ref("http://127.0.0.1:9", "");
  ASSERT_TRUE(ref.ok());
  ref->attempts = 1;
  auto pushed = push_session(*ref, session_);
  ASSERT_FALSE(pushed.ok());
  EXPECT_THAT(pushed.error().message, HasSubstr("plan.json is a symbolic link"));
}

TEST_F(SessionBundleLinks, AKernelUploadRefusesALinkInTheKernelsFolder) {
  const fs::path kernel = dir_ / "kernel";
  fs::create_directories(kernel);
  ASSERT_TRUE(write_file_atomic(kernel / "kernel.json", "{}").ok());
  fs::create_symlink(dir_ / "secret.txt", kernel / "bzImage");
  auto ref = lab_server_ref("http://127.0.0.1:9", "");
  ASSERT_TRUE(ref.ok());
  auto pushed = push_kernel(*ref, "b1d0", kernel);
  ASSERT_FALSE(pushed.ok());
  EXPECT_THAT(pushed.error().message, HasSubstr((kernel / "bzImage").string() + " is a symbolic"));
}

}  // namespace
}  // namespace foliolab
