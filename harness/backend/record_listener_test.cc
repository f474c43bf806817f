// The kexec backend's record channel over real loopback sockets: only the run's own agent (its
// nonce) gets its stream into records.bin; other connections are refused and named.
#include "backend/record_listener.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/fs_ops.h"

namespace foliolab {
namespace {
using Clock = std::chrono::steady_clock;

// Connects to 127.0.0.1:port, sends `bytes`, closes (or keeps it open when `hold`).
int send_to_listener(uint16_t port, const std::string& bytes, bool hold = false) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return -1;
  if (!bytes.empty() && write(fd, bytes.data(), bytes.size()) < 0) return -1;
  if (!hold) close(fd);
  return fd;
}

TEST(RecordListener, OnlyTheRunsNonceGetsItsStreamIntoTheRecordsFile) {
  ScopedTestDir dir("foliolab-listener");
  auto l = RecordListener::open("127.0.0.1", 0);
  ASSERT_TRUE(l.ok()) << l.error().message;
  ASSERT_NE(l->port(), 0);
  auto nonce = make_run_nonce();
  ASSERT_TRUE(nonce.ok());
  EXPECT_EQ(nonce->size(), 32u);
  EXPECT_NE(*nonce, *make_run_nonce());
  const uint16_t port = l->port();
  std::thread agents([&] {
    send_to_listener(port, "GET / HTTP/1.0\r\n\r\n");
    send_to_listener(port, "FOLIOLAB-RECORDS 00000000000000000000000000000000\n@FL1 hello");
    send_to_listener(port, "FOLIOLAB-RECORDS " + *nonce + "\n@FL1 hello 1 2 0\nab\n@FL1 done");
  });
  auto got = l->receive(*nonce, dir / "records.bin", Clock::now() + std::chrono::seconds(20),
                        Clock::now() + std::chrono::seconds(20));
  agents.join();
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_TRUE(got->connected);
  EXPECT_TRUE(got->closed);
  EXPECT_EQ(*read_file(dir / "records.bin"), "@FL1 hello 1 2 0\nab\n@FL1 done");
  EXPECT_EQ(got->bytes, 29u);
  ASSERT_EQ(got->refused.size(), 2u);
  EXPECT_NE(got->refused[0].find("127.0.0.1:"), std::string::npos);
  EXPECT_NE(got->refused[0].find("no FOLIOLAB-RECORDS greeting"), std::string::npos);
  EXPECT_NE(got->refused[1].find("a nonce that is not this run's"), std::string::npos);
}

TEST(RecordListener, NoAgentByTheDeadlineIsNotConnectedAndAStreamCutAtItIsNotClosed) {
  ScopedTestDir dir("foliolab-listener");
  auto l = RecordListener::open("127.0.0.1", 0);
  ASSERT_TRUE(l.ok());
  auto none = l->receive("n", dir / "records.bin", Clock::now() + std::chrono::milliseconds(50),
                         Clock::now() + std::chrono::milliseconds(50));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->connected);
  EXPECT_FALSE(path_exists(dir / "records.bin"));
  const int held = send_to_listener(l->port(), "FOLIOLAB-RECORDS n\n@FL1 hel", true);
  ASSERT_GE(held, 0);
  auto cut = l->receive("n", dir / "records.bin", Clock::now() + std::chrono::milliseconds(300),
                        Clock::now() + std::chrono::milliseconds(300));
  close(held);
  ASSERT_TRUE(cut.ok());
  EXPECT_TRUE(cut->connected);
  EXPECT_FALSE(cut->closed);
  EXPECT_EQ(*read_file(dir / "records.bin"), "@FL1 hel");
}

TEST(RecordListener, ABadAddressIsNamed) {
  auto l = RecordListener::open("lab-server", 0);
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("'lab-server' is not an IPv4 address"), std::string::npos);
}

// A stream past the bound is cut there: what came before it is kept, the rest never read.
TEST(RecordListener, AStreamPastItsBoundIsCutThere) {
  ScopedTestDir dir("foliolab-listener");
  auto l = RecordListener::open("127.0.0.1", 0);
  ASSERT_TRUE(l.ok());
  l->set_max_bytes(10);
  const int held = send_to_listener(l->port(), "FOLIOLAB-RECORDS n\n@FL1 hello 1 2 0\n", true);
  ASSERT_GE(held, 0);
  auto got = l->receive("n", dir / "records.bin", Clock::now() + std::chrono::seconds(5),
                        Clock::now() + std::chrono::seconds(5));
  close(held);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->connected);
  EXPECT_TRUE(got->over_limit);
  EXPECT_FALSE(got->closed);
  EXPECT_LE(got->bytes, 10u);
}

// The listener binds the interface that routes to the machine: loopback for 127.0.0.1.
TEST(RecordListener, ListensOnTheInterfaceThatRoutesToTheMachine) {
  auto local = local_address_towards("127.0.0.1");
  ASSERT_TRUE(local.ok()) << local.error().message;
  EXPECT_EQ(*local, "127.0.0.1");
}

}  // namespace
}  // namespace foliolab
