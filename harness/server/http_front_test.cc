// The HTTP front alone (server/http_front.h), with handlers the test holds: a slow handler does
// not stall the I/O thread, and a full pool answers 503 at once instead of queueing.
#include "server/http_front.h"

#include <httplib.h>

#include <atomic>
#include <future>
#include <thread>

#include <gtest/gtest.h>

namespace foliolab {
namespace {

class FrontWithHeldHandlers : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpFrontOptions o;
    o.limits.workers = 1;
    o.limits.queue = 1;
    std::vector<HttpRoute> routes = {
        {"GET", "/held", Access::kRead,
         [this](const HttpRequest&) {
           ++entered_;
           released_.wait();
           return HttpResponse{200, "{}"};
         }},
    };
    front_ = std::make_unique<HttpFront>(o, std::move(routes),
                                         [](Access, HttpRequest&) { return std::nullopt; });
    auto port = front_->bind();
    ASSERT_TRUE(port.ok()) << port.error().message;
    port_ = *port;
    thread_ = std::thread([this] { (void)front_->serve(); });
  }
  void TearDown() override {
    release_.set_value();
    for (std::thread& t : clients_) t.join();
    front_->stop();
    thread_.join();
  }
  // A GET in a thread of its own; its status lands in `status`.
  void get_later(std::atomic<int>& status) {
    clients_.emplace_back([this, &status] {
      httplib::Client c("127.0.0.1", port_);
      c.set_read_timeout(10, 0);
      auto r = c.Get("/held");
      status = r ? r->status : -1;
    });
  }

  std::promise<void> release_;
  std::shared_future<void> released_ = release_.get_future().share();
  std::atomic<int> entered_{0};
  std::unique_ptr<HttpFront> front_;
  std::thread thread_;
  std::vector<std::thread> clients_;
  int port_ = 0;
};

// One request held in the only worker, one queued: the third is refused at once (503, JSON),
// an unknown route is still answered by the I/O thread, and the held two end well.
TEST_F(FrontWithHeldHandlers, AFullPoolAnswers503AndTheIoThreadGoesOn) {
  std::atomic<int> first{0}, second{0};
  get_later(first);
  while (entered_ == 0) std::this_thread::yield();
  get_later(second);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the second is queued
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(5, 0);
  auto busy = c.Get("/held");
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->status, 503);
  EXPECT_NE(busy->body.find("\"error\""), std::string::npos) << busy->body;
  auto none = c.Get("/nowhere");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 404);
  release_.set_value();
  for (std::thread& t : clients_) t.join();
  clients_.clear();
  release_ = std::promise<void>();  // TearDown sets it again
  EXPECT_EQ(first, 200);
  EXPECT_EQ(second, 200);
}

}  // namespace
}  // namespace foliolab
