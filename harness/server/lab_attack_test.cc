// The lab server attacked as a client on the lab's network could (issue 55), on both engines:
// slow and idle connections, large anonymous bodies, ambiguous framing, bytes that are not
// UTF-8, pushes whose records contradict their bundle, racing kernel uploads and a full store.
// The real server runs in-process on loopback with short deadlines; the attackers speak raw
// TCP. Each wait is bounded by a few seconds: a bound on an answer, not a speed claim.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "results/session_bundle.h"
#include "testing/lab_server_fixture.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/process.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A raw TCP connection to the server under test.
class RawConn {
 public:
  explicit RawConn(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawConn() { ::close(fd_); }
  RawConn(const RawConn&) = delete;
  RawConn& operator=(const RawConn&) = delete;

  bool connected() const { return connected_; }
  // Whether all of `data` was sent (false once the server closed or reset the connection).
  bool send(std::string_view data) {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // What arrives until the server closes or `limit` passes; `closed` says which.
  std::string read_all(std::chrono::milliseconds limit, bool* closed = nullptr) {
    std::string out;
    const auto until = std::chrono::steady_clock::now() + limit;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      pollfd p{fd_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buf[8192];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        if (closed) *closed = true;
        return out;
      }
      out.append(buf, static_cast<size_t>(n));
    }
    if (closed) *closed = false;
    return out;
  }

 private:
  int fd_;
  bool connected_ = false;
};

// The status of the first reply in `text`, or 0.
int status_in(const std::string& text) {
  return text.starts_with("HTTP/1.1 ") ? std::atoi(text.c_str() + 9) : 0;
}

// The JSON body of the reply in `text` has an "error".
bool json_error_in(const std::string& text) {
  const size_t at = text.find("\r\n\r\n");
  if (at == std::string::npos) return false;
  const auto j = nlohmann::json::parse(text.substr(at + 4), nullptr, false);
  return j.is_object() && j.contains("error") && j["error"].is_string();
}

size_t rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("VmRSS:")) return std::stoul(line.substr(6)) * 1024;
  }
  return 0;
}

class LabAttack : public LabServerFixture {
 protected:
  // The server again with short deadlines (a test that waits for them waits seconds).
  void restart(LabServerOptions o = {}) {
    stop();
    o.limits.head_timeout = 1s;
    o.limits.idle_timeout = 1s;
    o.limits.body_grace = 1s;
    start(o);
  }
  // GET / from an ordinary client, answered within 5 s: its status, or -1.
  int dashboard_status() {
    httplib::Client c(url_);
    c.set_connection_timeout(5, 0);
    c.set_read_timeout(5, 0);
    auto r = c.Get("/");
    return r ? r->status : -1;
  }
  std::string auth(const std::string& token) const {
    return "Authorization: Bearer " + token + "\r\n";
  }
};

// Slow and idle connections, more than any pool of workers, do not stall an ordinary request
// (the head deadline is left long here: only the I/O model is at work).
TEST_P(LabAttack, SlowAndIdleConnectionsDoNotStallOthers) {
  for (int n : {50, 500}) {
    std::vector<std::unique_ptr<RawConn>> attackers;
    for (int i = 0; i < n; ++i) {
      attackers.push_back(std::make_unique<RawConn>(port_));
      ASSERT_TRUE(attackers.back()->connected());
      if (i % 2 == 0) attackers.back()->send("GET / HT");  // a request line never finished
    }
    EXPECT_EQ(dashboard_status(), 200) << n << " slow connections";
  }
}

// A head that never ends and a keep-alive connection left idle are closed at their deadlines.
TEST_P(LabAttack, DeadlinesCloseSlowAndIdleConnections) {
  restart();
  RawConn slow(port_);
  ASSERT_TRUE(slow.send("GET / HTTP/1.1\r\nHost: x\r\n"));
  bool closed = false;
  slow.read_all(4s, &closed);
  EXPECT_TRUE(closed) << "a request head that never ends";
  RawConn idle(port_);
  ASSERT_TRUE(idle.send("GET /api/v1/sessions HTTP/1.1\r\nHost: x\r\n\r\n"));
  const std::string reply = idle.read_all(4s, &closed);
  EXPECT_EQ(status_in(reply), 200);
  EXPECT_TRUE(closed) << "an idle keep-alive connection";
}

// Beyond the cap on connections, the oldest idle ones make room: an ordinary request is served.
TEST_P(LabAttack, ConnectionCapEvictsIdleConnections) {
  stop();
  LabServerOptions o;
  o.limits.max_connections = 20;
  start(o);
  std::vector<std::unique_ptr<RawConn>> idle;
  for (int i = 0; i < 60; ++i) idle.push_back(std::make_unique<RawConn>(port_));
  EXPECT_EQ(dashboard_status(), 200);
  bool closed = false;
  idle.front()->read_all(2s, &closed);
  EXPECT_TRUE(closed) << "the oldest idle connection made room";
}

// The token is checked on the head: a push without one (or with a read token) is refused before
// its body is read, and large anonymous bodies leave the server's memory where it was.
TEST_P(LabAttack, TokenCheckedBeforeTheBody) {
  restart({.max_upload = size_t{1} << 30});
  const std::string head = "POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                           std::to_string(size_t{250} << 20) + "\r\n";
  for (const std::string& who : {std::string(), auth(read_token_)}) {
    RawConn c(port_);
    ASSERT_TRUE(c.send(head + who + "\r\n"));
    bool closed = false;
    const std::string reply = c.read_all(3s, &closed);
    EXPECT_EQ(status_in(reply), who.empty() ? 401 : 403) << reply;
    EXPECT_TRUE(json_error_in(reply)) << reply;
  }
  const size_t before = rss_bytes();
  std::vector<std::thread> pushers;
  std::atomic<size_t> sent{0};
  for (int i = 0; i < 8; ++i) {
    pushers.emplace_back([&] {
      RawConn c(port_);
      if (!c.send(head + "\r\n")) return;
      const std::string chunk(1 << 20, 'x');
      for (int mb = 0; mb < 64 && c.send(chunk); ++mb) sent += chunk.size();
    });
  }
  for (std::thread& t : pushers) t.join();
  EXPECT_LT(rss_bytes(), before + (size_t{64} << 20)) << sent << " bytes sent";
}

// A body over --max-upload is refused on its head, even with a push token.
TEST_P(LabAttack, OversizedBodyRefusedOnItsHead) {
  RawConn c(port_);
  ASSERT_TRUE(c.send("POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\n" + auth(push_token_) +
                     "Content-Length: 1000000000\r\n\r\n"));
  const std::string reply = c.read_all(3s);
  EXPECT_EQ(status_in(reply), 413) << reply;
  EXPECT_TRUE(json_error_in(reply)) << reply;
}

// Ambiguous framing (what request smuggling behind a proxy needs) is a 400, and the connection
// is closed: no second request is read from it.
TEST_P(LabAttack, AmbiguousFramingIsRefusedAndClosed) {
  const std::string next = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string heads[] = {
      "POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
      "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      "POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
      "Content-Length: 4\r\n\r\n0\r\n\r\n",
      "POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
      "Content-Length: 2\r\n\r\n{}",
      "POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\n" + auth(push_token_) +
          "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
  };
  for (const std::string& h : heads) {
    RawConn c(port_);
    ASSERT_TRUE(c.send(h + next));
    bool closed = false;
    const std::string reply = c.read_all(3s, &closed);
    EXPECT_EQ(status_in(reply), 400) << h << "\n" << reply;
    EXPECT_TRUE(closed) << h;
    EXPECT_EQ(reply.find("HTTP/1.1", 1), std::string::npos) << "a second reply:\n" << reply;
  }
}

// Bytes that are not UTF-8, in a body or a path, are a 4xx with a JSON error, never a 5xx.
TEST_P(LabAttack, BytesThatAreNotUtf8AreA4xx) {
  const std::string gets[] = {"/api/v1/sessions/%c0%ae/x",
                              "/sessions/%c0%ae/%ff",
                              "/api/v1/kernels/%c0%ae",
                              "/api/v1/kernels/a/%c0%ae",
                              "/api/v1/samples?metric=%ff&where=%c0%ae%3d1",
                              "/api/v1/%zz"};
  for (const std::string& path : gets) {
    RawConn c(port_);
    ASSERT_TRUE(c.send("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    const std::string reply = c.read_all(3s);
    EXPECT_GE(status_in(reply), 400) << path << "\n" << reply;
    EXPECT_LT(status_in(reply), 500) << path << "\n" << reply;
    EXPECT_TRUE(json_error_in(reply)) << path << "\n" << reply;
  }
  const std::string bodies[] = {"\xff\xfe{\"schema\": 1}",
                                "{\"schema\": 1, \"experiment\": \"\xc0\xae\"}",
                                "{\"schema\": 1, \"experiment\": \"a\", \"stamp\": \"b\", "
                                "\"files\": {\"\xc0\xae\": \"x\"}}"};
  for (const std::string& body : bodies) {
    RawConn c(port_);
    ASSERT_TRUE(c.send("POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" +
                       auth(push_token_) + "Content-Length: " + std::to_string(body.size()) +
                       "\r\n\r\n" + body));
    const std::string reply = c.read_all(3s);
    EXPECT_EQ(status_in(reply), 400) << reply;
    EXPECT_TRUE(json_error_in(reply)) << reply;
  }
  EXPECT_EQ(session_count(), 0);
}

// A session whose records name another experiment (or another host) than its bundle is refused
// whole, the record and the field named.
TEST_P(LabAttack, ContradictingIdentitiesRefuseThePush) {
  const fs::path session = make_lab_session(root(), "20261201T000000Z");
  const std::string run = "runs/" + quickstart_run_id("64K mTHP") + "/run.json";
  const std::string original = *read_file(session / run);
  struct Lie {
    std::string from, to, field;
  };
  for (const Lie& lie : {Lie{"\"experiment\": \"quickstart\"", "\"experiment\": \"../../etc\"",
                             "identity.experiment"},
                         Lie{"\"experiment\": \"quickstart\"", "\"experiment\": \"x' OR '1'='1\"",
                             "identity.experiment"},
                         Lie{"\"hostname\": \"testhost\"", "\"hostname\": \"elsewhere\"",
                             "provenance.host.hostname"}}) {
    std::string text = original;
    const size_t at = text.find(lie.from);
    ASSERT_NE(at, std::string::npos) << lie.from << " in " << text.substr(0, 400);
    ASSERT_TRUE(write_file_atomic(session / run, text.replace(at, lie.from.size(), lie.to)).ok());
    auto pushed = push_session(ref(push_token_), session);
    ASSERT_FALSE(pushed.ok());
    EXPECT_NE(pushed.error().message.find(run), std::string::npos) << pushed.error().message;
    EXPECT_NE(pushed.error().message.find(lie.field), std::string::npos) << pushed.error().message;
    EXPECT_EQ(session_count(), 0);
  }
}

// Eight clients uploading one kernel file at once all succeed, and the file kept is one of
// the verified uploads, whole.
TEST_P(LabAttack, ConcurrentKernelUploadsAllEndWell) {
  for (int round = 0; round < 3; ++round) {
    std::vector<std::string> images;
    for (int i = 0; i < 8; ++i) images.push_back(std::string(size_t{1} << 20, char('a' + i)));
    std::vector<int> statuses(images.size(), -1);
    std::vector<std::thread> uploads;
    for (size_t i = 0; i < images.size(); ++i) {
      uploads.emplace_back([&, i] {
        httplib::Client c(url_);
        auto r = c.Put("/api/v1/kernels/b1d0/bzImage",
                       httplib::Headers{{"Authorization", "Bearer " + push_token_},
                                        {"X-Content-SHA256", sha256_hex(images[i])}},
                       images[i], "application/octet-stream");
        statuses[i] = r ? r->status : -1;
      });
    }
    for (std::thread& t : uploads) t.join();
    for (int s : statuses) EXPECT_EQ(s, 201);
    auto kept = read_file(dir_->path() / "store" / "kernels" / "b1d0" / "bzImage");
    ASSERT_TRUE(kept.ok());
    EXPECT_NE(std::find(images.begin(), images.end(), *kept), images.end());
  }
  for (const auto& e : fs::directory_iterator(dir_->path() / "store" / "kernels" / "b1d0")) {
    EXPECT_EQ(e.path().filename(), "bzImage") << "left behind";
  }
}

// Kernel names are checked like every other name.
TEST_P(LabAttack, KernelNamesAreChecked) {
  for (const char* path :
       {"/api/v1/kernels/../x", "/api/v1/kernels/b1/..", "/api/v1/kernels/b1/%2e%2e",
        "/api/v1/kernels/b1/.hidden", "/api/v1/kernels/b1/a%2fb"}) {
    RawConn c(port_);
    ASSERT_TRUE(c.send(std::string("PUT ") + path + " HTTP/1.1\r\nHost: x\r\n" + auth(push_token_) +
                       "Content-Length: 1\r\nConnection: close\r\n\r\nx"));
    const std::string reply = c.read_all(3s);
    EXPECT_EQ(status_in(reply), 400) << path << "\n" << reply;
  }
}

// The database unreachable: a 503 that names none of its detail (the log does).
TEST_P(LabAttack, UnreachableDatabaseIsA503WithoutDetail) {
  if (GetParam() == LabEngine::kPostgres) {
    ASSERT_TRUE(db_->postgres()->stop().ok());
  } else {
    fs::remove(db_->url());
    fs::create_directories(db_->url());  // a folder where the SQLite file was
  }
  httplib::Client c(url_);
  auto r = c.Get("/api/v1/sessions");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_TRUE(nlohmann::json::parse(r->body, nullptr, false).contains("error")) << r->body;
  const std::string url = db_->url();
  for (const std::string& detail : {url, std::string("lab.sqlite"), std::string("foliolab@"),
                                    std::string("127.0.0.1"), dir_->path().string()}) {
    EXPECT_EQ(r->body.find(detail), std::string::npos) << detail << " in " << r->body;
  }
}

// A full store: a clear status (507), never a 200 without a body, and nothing partial left.
TEST_P(LabAttack, AFullStoreIsAClearStatusAndLeavesNothing) {
  const fs::path store = dir_->path() / "small-store";
  fs::create_directories(store);
  if (::mount("tmpfs", store.c_str(), "tmpfs", 0, "size=512k") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs for the store: " << std::strerror(errno);
  }
  restart({.store = store});
  ASSERT_TRUE(push_session(ref(push_token_), make_lab_session(root(), "20261201T000000Z")).ok());
  std::ofstream(store / "filler") << std::string(520 << 10, 'f');
  httplib::Client c(url_);
  auto page = c.Get("/sessions/quickstart/20261201T000000Z");
  auto up = c.Put("/api/v1/kernels/b1d0/bzImage",
                  httplib::Headers{{"Authorization", "Bearer " + push_token_},
                                   {"X-Content-SHA256", sha256_hex(std::string(1 << 20, 'k'))}},
                  std::string(1 << 20, 'k'), "application/octet-stream");
  stop();
  std::vector<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(store)) {
    const std::string name = e.path().filename().string();
    if (name.find(".partial") != std::string::npos || name.find(".tmp") != std::string::npos) {
      left.push_back(e.path().string());
    }
  }
  ::umount2(store.c_str(), MNT_DETACH);
  ASSERT_TRUE(page && up);
  EXPECT_EQ(page->status, 507) << page->body;
  EXPECT_EQ(up->status, 507) << up->body;
  EXPECT_EQ(page->body.find(store.string()), std::string::npos) << page->body;
  EXPECT_TRUE(left.empty()) << left.front();
}

// --tls-cert/--tls-key: HTTPS through the same front (a self-signed certificate made here).
TEST_P(LabAttack, HttpsServesTheDashboardAndTheApi) {
  const fs::path cert = dir_->path() / "cert.pem", key = dir_->path() / "key.pem";
  ProcessSpec make{
      .argv = {"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.string(),
               "-out", cert.string(), "-days", "1", "-subj", "/CN=localhost"},
      .capture = true};
  const ProcessResult made = RealProcessRunner().run(make);
  if (!made.ok()) GTEST_SKIP() << "openssl cannot make a certificate: " << made.describe();
  restart({.tls_cert = cert, .tls_key = key});
  httplib::SSLClient c("127.0.0.1", port_);
  c.enable_server_certificate_verification(false);
  c.set_read_timeout(5, 0);
  auto page = c.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  auto denied = c.Post("/api/v1/sessions", "{}", "application/json");
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->status, 401);
  RawConn slow(port_);  // a TLS handshake that never starts is closed at the head deadline
  bool closed = false;
  slow.read_all(4s, &closed);
  EXPECT_TRUE(closed);
}

INSTANTIATE_TEST_SUITE_P(Engines, LabAttack,
                         ::testing::Values(LabEngine::kSqlite, LabEngine::kPostgres),
                         lab_engine_name);

}  // namespace
}  // namespace foliolab
