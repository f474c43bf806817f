// Test fixture for the lab server: a lab database on the test's engine (testing/lab_fixture.h),
// a push and a read token, and the real server (server/lab_server.h) in-process on a free
// loopback port, started with the options a test gives.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "results/index.h"
#include "server/lab_client.h"
#include "server/lab_server.h"
#include "server/token_store.h"
#include "testing/lab_fixture.h"
#include "testing/temp_dir.h"

namespace foliolab {

class LabServerFixture : public ::testing::TestWithParam<LabEngine> {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<ScopedTestDir>("foliolab-lab-api");
    db_ = std::make_unique<LabDatabase>(GetParam(), dir_->path());
    ASSERT_TRUE(db_->error().empty()) << db_->error();
    auto index = ResultIndex::open_url(db_->url());
    ASSERT_TRUE(index.ok()) << index.error().message;
    push_token_ = *add_token(*index, "host-a", TokenScope::kPush);
    read_token_ = *add_token(*index, "reader", TokenScope::kRead);
    start({});
  }
  void TearDown() override { stop(); }

  void start(LabServerOptions o) {
    o.db = db_->url();
    o.port = 0;
    if (o.store.empty()) o.store = dir_->path() / "store";
    if (o.max_upload == 0) o.max_upload = size_t{8} << 20;
    server_ = std::make_unique<LabServer>(o);
    auto port = server_->bind();
    ASSERT_TRUE(port.ok()) << port.error().message;
    port_ = *port;
    url_ = "http://127.0.0.1:" + std::to_string(*port);
    thread_ = std::thread([this] { (void)server_->serve(); });
  }
  void stop() {
    if (!server_) return;
    server_->stop();
    thread_.join();
    server_.reset();
  }
  LabServerRef ref(const std::string& token) const {
    return {.url = url_, .token = token, .attempts = 1};
  }
  int session_count() {
    auto index = ResultIndex::open_url(db_->url());
    EXPECT_TRUE(index.ok());
    return static_cast<int>(*index->db().query_int("SELECT COUNT(*) FROM sessions"));
  }
  std::filesystem::path root() const { return dir_->path() / "results"; }

  std::unique_ptr<ScopedTestDir> dir_;
  std::unique_ptr<LabDatabase> db_;
  std::unique_ptr<LabServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::string url_, push_token_, read_token_;
};

}  // namespace foliolab
