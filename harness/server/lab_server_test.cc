// The lab server's API on both engines: a real PostgreSQL the test starts (initdb, pg_ctl) and a
// SQLite file, the same suite against each. The server runs in-process on a free loopback
// port; the clients are the real ones (server/lab_client.h) or raw HTTP where a client would
// never send such a request.
#include "server/lab_server.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <map>
#include <thread>

#include <gtest/gtest.h>

#include "analysis/gate.h"
#include "analysis/pairing.h"
#include "report/json.h"
#include "results/bisect_log.h"
#include "results/finding_index.h"
#include "results/index.h"
#include "results/pushed_sessions.h"
#include "server/lab_api.h"
#include "server/lab_client.h"
#include "server/token_store.h"
#include "testing/lab_fixture.h"
#include "testing/lab_server_fixture.h"
#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/hash.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

class LabApi : public LabServerFixture {};

// A push is stored whole, once; the session comes back as it went; its samples answer the
// same query on the server as in a local index.
TEST_P(LabApi, PushListFetchAndSamples) {
  const fs::path session = make_lab_session(root(), "20261201T000000Z");
  auto first = push_session(ref(push_token_), session);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(first->stored);
  EXPECT_EQ(first->key, "quickstart/20261201T000000Z");
  auto again = push_session(ref(push_token_), session);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->stored);
  EXPECT_EQ(again->key, first->key);
  EXPECT_EQ(session_count(), 1);

  auto listed = fetch_sessions(ref(""), "quickstart", 10);
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().host, "testhost");
  EXPECT_EQ(listed->front().runs, 2);
  EXPECT_EQ(listed->front().ok, 2);
  EXPECT_EQ(listed->front().kernels, std::vector<std::string>{"6.12-mthp-vmstat"});

  auto back = fetch_session(ref(""), first->key, dir_->path() / "fetched");
  ASSERT_TRUE(back.ok()) << back.error().message;
  const std::string id = quickstart_run_id("64K mTHP");
  EXPECT_EQ(*read_file(*back / "runs" / id / "run.json"),
            *read_file(session / "runs" / id / "run.json"));
  EXPECT_EQ(*read_file(*back / "experiment.yaml"), *read_file(session / "experiment.yaml"));

  auto samples = fetch_samples(ref(""), "faults", "knobs=64K mTHP");
  ASSERT_TRUE(samples.ok()) << samples.error().message;
  ASSERT_EQ(samples->size(), 3u);
  EXPECT_EQ(samples->front().value, 1025);
  EXPECT_EQ(samples->front().run.session, first->key);
}

// Two hosts whose sessions share a stamp: both kept, the second under its host's name.
TEST_P(LabApi, SameStampFromTwoHosts) {
  auto a =
      push_session(ref(push_token_), make_lab_session(root() / "a", "20261201T000000Z", 0, "lab1"));
  auto b =
      push_session(ref(push_token_), make_lab_session(root() / "b", "20261201T000000Z", 5, "lab2"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->key, "quickstart/20261201T000000Z");
  EXPECT_EQ(b->key, "quickstart/20261201T000000Z-lab2");
  auto hosts = fetch_sessions(ref(""), "quickstart", 10);
  ASSERT_TRUE(hosts.ok());
  EXPECT_EQ(hosts->size(), 2u);
}

// Wrong tokens, oversized and malformed bodies, names that would leave the store: each a clear
// HTTP error, and nothing stored.
TEST_P(LabApi, RefusesBadPushesAndChangesNothing) {
  const fs::path session = make_lab_session(root(), "20261201T000000Z");
  auto bundle = bundle_from_dir(session);
  ASSERT_TRUE(bundle.ok());
  const std::string body = bundle_json(*bundle);
  httplib::Client c(url_);
  auto post = [&](const std::string& token, const std::string& text) {
    httplib::Headers h;
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    auto r = c.Post("/api/v1/sessions", h, text, "application/json");
    return r ? r->status : -1;
  };
  EXPECT_EQ(post("", body), 401);
  EXPECT_EQ(post(read_token_, body), 403);
  EXPECT_EQ(post("flt_" + std::string(64, '0'), body), 403);
  EXPECT_EQ(post(push_token_, body.substr(0, body.size() / 2)), 400);  // truncated JSON
  std::string escape = body;
  const std::string run = "runs/" + quickstart_run_id("4K") + "/run.json";
  escape.replace(escape.find(run), run.size(), "runs/../../../etc/run.json");
  EXPECT_EQ(post(push_token_, escape), 400);
  std::string stamp = body;
  stamp.replace(stamp.find("20261201T000000Z"), 16, "..");
  EXPECT_EQ(post(push_token_, stamp), 400);
  std::string record = body;
  record.replace(record.find("\\\"status\\\""), 10, "\\\"stat\\\"");
  EXPECT_EQ(post(push_token_, record), 400);  // a damaged run record inside
  auto get = c.Get("/api/v1/sessions/../quickstart");
  ASSERT_TRUE(get);
  EXPECT_GE(get->status, 400);
  EXPECT_EQ(session_count(), 0);

  stop();
  start({.max_upload = 1024});
  httplib::Client small(url_);
  auto big =
      small.Post("/api/v1/sessions", httplib::Headers{{"Authorization", "Bearer " + push_token_}},
                 body, "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_EQ(session_count(), 0);
  EXPECT_TRUE(push_session(ref(push_token_), session).ok() == false);
}

// With --read-token, reading needs a token too; a read token reads.
TEST_P(LabApi, ReadTokenWhenAsked) {
  stop();
  start({.open_read = false});
  EXPECT_FALSE(fetch_sessions(ref(""), "quickstart", 10).ok());
  EXPECT_TRUE(fetch_sessions(ref(read_token_), "quickstart", 10).ok());
  EXPECT_TRUE(fetch_sessions(ref(push_token_), "quickstart", 10).ok());
}

// Kernels by build id: content-verified up and down; an unknown one is absent.
TEST_P(LabApi, KernelsByBuildId) {
  const fs::path k = dir_->path() / "kernel";
  fs::create_directories(k);
  ASSERT_TRUE(write_file_atomic(k / "kernel.json", "{\"build_id\": \"b1\"}").ok());
  ASSERT_TRUE(write_file_atomic(k / "bzImage", std::string(100000, 'k')).ok());
  EXPECT_FALSE(push_kernel(ref(read_token_), "b1d0", k).ok());
  // An upload cut short (no kernel.json yet) is no kernel to fetch.
  httplib::Client part(url_);
  const std::string image(100000, 'k');
  auto half = part.Put("/api/v1/kernels/b1d0/bzImage",
                       httplib::Headers{{"Authorization", "Bearer " + push_token_},
                                        {"X-Content-SHA256", sha256_hex(image)}},
                       image, "application/octet-stream");
  ASSERT_TRUE(half);
  EXPECT_EQ(half->status, 201);
  auto early = fetch_kernel(ref(""), "b1d0", dir_->path() / "early");
  ASSERT_TRUE(early.ok()) << early.error().message;
  EXPECT_FALSE(*early);
  ASSERT_TRUE(push_kernel(ref(push_token_), "b1d0", k).ok());
  httplib::Client c(url_);
  auto lie = c.Put("/api/v1/kernels/b1d0/bzImage",
                   httplib::Headers{{"Authorization", "Bearer " + push_token_},
                                    {"X-Content-SHA256", sha256_hex("other")}},
                   "tampered", "application/octet-stream");
  ASSERT_TRUE(lie);
  EXPECT_EQ(lie->status, 400);
  const fs::path got = dir_->path() / "cache" / "kernels" / "b1d0";
  fs::create_directories(got.parent_path());
  auto fetched = fetch_kernel(ref(""), "b1d0", got);
  ASSERT_TRUE(fetched.ok()) << fetched.error().message;
  EXPECT_TRUE(*fetched);
  EXPECT_EQ(*read_file(got / "bzImage"), std::string(100000, 'k'));
  EXPECT_EQ(*read_file(got / "kernel.json"), "{\"build_id\": \"b1\"}");
  auto none = fetch_kernel(ref(""), "b1d1", dir_->path() / "cache" / "kernels" / "b1d1");
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_FALSE(*none);
}

// The dashboard's pages answer (the browser test draws them: lab_dashboard_test.cc).
TEST_P(LabApi, DashboardPagesAnswer) {
  ASSERT_TRUE(push_session(ref(push_token_), make_lab_session(root(), "20261201T000000Z")).ok());
  ASSERT_TRUE(
      push_session(ref(push_token_), make_lab_session(root(), "20261202T000000Z", 200)).ok());
  httplib::Client c(url_);
  for (const char* path : {"/", "/sessions/quickstart/20261201T000000Z", "/history?metric=faults",
                           "/compare?base=quickstart/20261201T000000Z&cand=quickstart/"
                           "20261202T000000Z",
                           "/bisections", "/api/v1/history?metric=faults",
                           "/api/v1/compare?base=quickstart/20261201T000000Z&cand=quickstart/"
                           "20261202T000000Z"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path << ": " << r->body.substr(0, 300);
  }
  auto missing = c.Get("/sessions/quickstart/20991231T000000Z");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

// The gate's verdicts pushed for a stored session reach the history, as JSON and as the plot's
// rings; an unknown session, a read token and a body that is no gate.json are refused.
TEST_P(LabApi, GateVerdictsReachTheHistory) {
  const fs::path base = make_lab_session(root(), "20261201T000000Z");
  const fs::path cand = make_lab_session(root(), "20261202T000000Z", 200);
  auto b = session_side(base, {});
  auto c = session_side(cand, {});
  ASSERT_TRUE(b.ok() && c.ok());
  GateRule rule{.name = "faults", .metric = "faults", .max_regression = 0.0};
  const GateReport report = evaluate_gate({rule}, compare_sides(*b, *c, {}));
  ASSERT_EQ(report.failed, 1) << "the 64K run's faults rose by 200";
  const std::string text = gate_json(report).dump();
  const std::string key = "quickstart/20261202T000000Z";

  EXPECT_FALSE(push_gate_report(ref(push_token_), key, text).ok()) << "not pushed yet";
  ASSERT_TRUE(push_session(ref(push_token_), base).ok());
  ASSERT_TRUE(push_session(ref(push_token_), cand).ok());
  EXPECT_FALSE(push_gate_report(ref(read_token_), key, text).ok());
  EXPECT_FALSE(push_gate_report(ref(push_token_), key, "{\"cases\": 1}").ok());
  auto none = fetch_gate_cases(ref(""), "faults");
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->empty());
  ASSERT_TRUE(push_gate_report(ref(push_token_), key, text).ok());
  ASSERT_TRUE(push_gate_report(ref(push_token_), key, text).ok()) << "a second push replaces";

  auto cases = fetch_gate_cases(ref(""), "faults");
  ASSERT_TRUE(cases.ok()) << cases.error().message;
  ASSERT_EQ(cases->size(), 2u);  // a case per group: 4K and 64K mTHP
  int failed = 0;
  for (const IndexedGateCase& g : *cases) {
    EXPECT_EQ(g.session, key);
    EXPECT_EQ(g.baseline, report.comparison.base);
    failed += g.outcome == "FAIL";
    if (g.outcome == "FAIL") {
      EXPECT_EQ(g.knobs, "64K mTHP");
      ASSERT_TRUE(g.rel_change.has_value());
      EXPECT_NEAR(*g.rel_change, 200.0 / 1025, 1e-9);
    }
  }
  EXPECT_EQ(failed, 1);

  httplib::Client http(url_);
  auto history = http.Get("/api/v1/history?metric=faults");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->status, 200) << history->body;
  const nlohmann::json h = nlohmann::json::parse(history->body);
  std::map<std::string, std::string> verdicts;  // knob set -> the candidate point's gate
  for (const auto& series : h.at("series")) {
    const auto& points = series.at("points");
    ASSERT_EQ(points.size(), 2u);
    EXPECT_TRUE(points[0].at("gate").is_null()) << "the baseline was not judged";
    verdicts[series.at("knobs").get<std::string>()] = points[1].at("gate").get<std::string>();
  }
  EXPECT_EQ(verdicts, (std::map<std::string, std::string>{{"4K", "pass"}, {"64K mTHP", "FAIL"}}));
  auto page = http.Get("/history?metric=faults");
  ASSERT_TRUE(page);
  EXPECT_NE(page->body.find("\"gate\":\"FAIL\""), std::string::npos);
}

// A bisection's log pushed with its sessions: listed, its page links each step to its
// session, the log comes back as pushed; a damaged log or a name that leaves the store is
// refused and changes nothing.
TEST_P(LabApi, BisectionsPushedAndShown) {
  ASSERT_TRUE(push_session(ref(push_token_), make_lab_session(root(), "20261201T000000Z")).ok());
  ASSERT_TRUE(
      push_session(ref(push_token_), make_lab_session(root(), "20261202T000000Z", 200)).ok());
  const fs::path dir = root() / "quickstart" / "bisect-20261203T000000Z";
  fs::create_directories(dir);
  {
    auto log = BisectLog::open(dir / kBisectLogFile);
    ASSERT_TRUE(log.ok()) << log.error().message;
    ASSERT_TRUE(
        log->set_meta(
               {{"metric", "faults"}, {"variants", "4K\n64K mTHP"}, {"where", "arch=x86_64"}})
            .ok());
    const fs::path good = root() / "quickstart" / "20261201T000000Z";
    const fs::path bad = root() / "quickstart" / "20261202T000000Z";
    ASSERT_TRUE(
        log->append(BisectStep{0, "good", good.string(), "n=3: 1025 1025 1025", {1025, 1025, 1025}})
            .ok());
    ASSERT_TRUE(
        log->append(BisectStep{1, "bad", bad.string(), "n=3: 1225 1225 1225", {1225, 1225, 1225}})
            .ok());
  }
  const std::string key = "quickstart/bisect-20261203T000000Z";
  EXPECT_FALSE(push_bisection(ref(read_token_), key, dir / kBisectLogFile).ok());
  ASSERT_TRUE(write_file_atomic(dir / "damaged.json", "{\"schema\": 1, \"steps\": [").ok());
  EXPECT_FALSE(push_bisection(ref(push_token_), key, dir / "damaged.json").ok());
  EXPECT_FALSE(push_bisection(ref(push_token_), "quickstart/..", dir / kBisectLogFile).ok());
  EXPECT_FALSE(
      push_bisection(ref(push_token_), "quickstart/20261201T000000Z", dir / kBisectLogFile).ok())
      << "a bisection's directory is bisect-STAMP";
  httplib::Client http(url_);
  auto empty = http.Get("/api/v1/bisections");
  ASSERT_TRUE(empty);
  EXPECT_EQ(nlohmann::json::parse(empty->body).at("bisections").size(), 0u);

  ASSERT_TRUE(push_bisection(ref(push_token_), key, dir / kBisectLogFile).ok());
  auto list = http.Get("/api/v1/bisections");
  ASSERT_TRUE(list);
  const nlohmann::json rows = nlohmann::json::parse(list->body).at("bisections");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("bisection"), key);
  EXPECT_EQ(rows[0].at("metric"), "faults");
  EXPECT_EQ(rows[0].at("candidates"), 2);
  auto log = http.Get("/api/v1/bisections/" + key);
  ASSERT_TRUE(log);
  EXPECT_EQ(log->body, *read_file(dir / kBisectLogFile));
  auto page = http.Get("/bisections/" + key);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("href=\"/sessions/quickstart/20261202T000000Z\""), std::string::npos);
  EXPECT_NE(page->body.find("64K mTHP"), std::string::npos);
  auto index_page = http.Get("/bisections");
  ASSERT_TRUE(index_page);
  EXPECT_NE(index_page->body.find("href=\"/bisections/" + key + "\""), std::string::npos);
  auto missing = http.Get("/bisections/quickstart/bisect-20991231T000000Z");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

INSTANTIATE_TEST_SUITE_P(Engines, LabApi,
                         ::testing::Values(LabEngine::kSqlite, LabEngine::kPostgres),
                         lab_engine_name);

}  // namespace
}  // namespace foliolab
