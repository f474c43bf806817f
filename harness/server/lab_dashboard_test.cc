// The lab server's dashboard in a real browser: Debian's chromium, headless, against the
// server on loopback. The sessions page lists what was pushed and its links answer; a
// session's report, a metric's history and a comparison draw their plots (the pages set
// data-plots once drawn, data-error on a JavaScript error).
#include <fmt/format.h>
#include <httplib.h>

#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include "results/index.h"
#include "server/lab_client.h"
#include "server/lab_server.h"
#include "server/token_store.h"
#include "testing/lab_fixture.h"
#include "testing/temp_dir.h"
#include "util/process.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

std::string lab_dom(const fs::path& dir, const std::string& url) {
  RealProcessRunner proc;
  const ProcessResult r = proc.run(
      {.argv = {"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + (dir / "profile").string(),
                "--virtual-time-budget=10000", "--dump-dom", url},
       .capture = true,
       .capture_limit = 64 << 20,
       .timeout = std::chrono::seconds(120)});
  EXPECT_TRUE(r.ok()) << r.describe() << r.output.substr(0, 2000);
  return r.output;
}

int lab_attr(const std::string& dom, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(dom, m, std::regex(name + "=\"(\\d+)\""))) return -1;
  return std::stoi(m[1]);
}

TEST(LabDashboard, PagesDrawInChromium) {
  if (find_program("chromium").empty()) GTEST_FAIL() << "chromium: install it (setup.sh --test)";
  ScopedTestDir dir("foliolab-lab-dash");
  const std::string db = (dir / "lab.sqlite").string();
  auto index = ResultIndex::open_url(db);
  ASSERT_TRUE(index.ok());
  const std::string token = *add_token(*index, "ci", TokenScope::kPush);
  LabServer server({.db = db, .port = 0, .store = dir / "store"});
  auto port = server.bind();
  ASSERT_TRUE(port.ok()) << port.error().message;
  std::thread t([&] { (void)server.serve(); });
  const std::string url = "http://127.0.0.1:" + std::to_string(*port);
  const LabServerRef ref{.url = url, .token = token, .attempts = 1};
  for (int day = 1; day <= 6; ++day) {
    const double moved = day >= 4 ? 300 : 0;  // a step the change points find
    auto out = push_session(
        ref, make_lab_session(dir / "results", fmt::format("2026120{}T000000Z", day), moved));
    ASSERT_TRUE(out.ok()) << out.error().message;
  }

  // The gate failed the day the step came: its ring on the history plot.
  ASSERT_TRUE(push_gate_report(ref, "quickstart/20261204T000000Z",
                               R"({"baseline": "quickstart/20261203T000000Z", "cases": [
                                   {"rule": "faults", "group": "64K", "metric": "faults",
                                    "kernel": "", "arch": "x86_64", "knobs": "64K mTHP",
                                    "workload": "", "outcome": "FAIL", "rel_change": 0.29}]})")
                  .ok());

  const std::string list = lab_dom(dir.path(), url + "/");
  const std::regex row("<tr data-session=");
  EXPECT_EQ(
      std::distance(std::sregex_iterator(list.begin(), list.end(), row), std::sregex_iterator()),
      6);
  httplib::Client c(url);
  const std::regex href("href=\"(/sessions/[^\"]+)\"");
  int links = 0;
  for (auto it = std::sregex_iterator(list.begin(), list.end(), href); it != std::sregex_iterator();
       ++it, ++links) {
    auto r = c.Get((*it)[1].str());
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << (*it)[1].str();
  }
  EXPECT_EQ(links, 6);

  for (const std::string& page :
       {std::string("/sessions/quickstart/20261201T000000Z"),
        std::string("/history?metric=faults&where=knobs%3D64K%20mTHP"),
        std::string(
            "/compare?base=quickstart/20261201T000000Z&cand=quickstart/20261206T000000Z")}) {
    const std::string dom = lab_dom(dir.path(), url + page);
    EXPECT_GT(lab_attr(dom, "data-plots"), 0) << page;
    EXPECT_EQ(dom.find("data-error"), std::string::npos) << page;
    if (page.starts_with("/history")) {
      EXPECT_EQ(lab_attr(dom, "data-gates"), 1) << "one gate verdict, one ring";
      EXPECT_NE(dom.find("gate gate-fail"), std::string::npos);
      EXPECT_GT(lab_attr(dom, "data-changepoints"), 0);
    }
  }
  server.stop();
  t.join();
}

}  // namespace
}  // namespace foliolab
