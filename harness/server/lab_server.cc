#include "server/lab_server.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>
#include <system_error>

#include "analysis/history.h"
#include "analysis/pairing.h"
#include "analysis/session_report.h"
#include "report/dashboard.h"
#include "report/html.h"
#include "report/json.h"
#include "report/session_layout.h"
#include "results/bisect_query.h"
#include "results/finding_index.h"
#include "results/index.h"
#include "results/pushed_sessions.h"
#include "results/run_query.h"
#include "results/session_bundle.h"
#include "server/lab_api.h"
#include "server/lab_faults.h"
#include "server/lab_findings.h"
#include "server/token_store.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using Request = HttpRequest;
using Response = HttpResponse;

void reply(Response& res, int status, std::string body, const char* type = "application/json") {
  res.status = status;
  res.body = std::move(body);
  res.type = type;
}

std::string bearer(const Request& req) {
  const std::string h = req.header("authorization");
  return h.starts_with("Bearer ") ? h.substr(7) : "";
}

// Every run record of a pushed bundle names the bundle's experiment, the run its folder names
// and one host: else the push is refused whole (results/session_bundle.h checks the run ids).
Result<void> check_identities(const SessionBundle& b) {
  for (const RunRecord& r : b.records) {
    const std::string where = fmt::format("runs/{}/run.json", r.id.run_id);
    if (r.id.experiment != b.experiment) {
      return make_error(fmt::format("{}: identity.experiment is '{}', the bundle's is '{}'", where,
                                    r.id.experiment, b.experiment));
    }
    if (r.provenance.host.hostname != b.host()) {
      return make_error(fmt::format("{}: provenance.host.hostname is '{}', the first run's '{}'",
                                    where, r.provenance.host.hostname, b.host()));
    }
  }
  return {};
}

}  // namespace

struct LabServer::Impl {
  LabServerOptions opt;
  std::unique_ptr<HttpFront> front;

  // A connection per request: a restarted database costs only the requests in flight.
  Result<ResultIndex> index() const { return ResultIndex::open_url(opt.db); }

  // The front's access check, on the request head: nullopt lets the request go on.
  std::optional<Response> authorize(Access access, Request& req) const {
    const bool push = access == Access::kPush;
    const std::string token = bearer(req);
    Response res;
    if (token.empty()) {
      if (!push && opt.open_read) return std::nullopt;
      reply_fault(res, Fault::kNoToken,
                  "a token is needed (Authorization: Bearer …; foliolab token add)");
      return res;
    }
    auto idx = index();
    auto holder = idx.ok() ? find_token(*idx, token) : idx.error();
    if (!holder.ok()) {
      reply_fault(res, Fault::kDatabase, holder.error().message);
      return res;
    }
    if (!*holder || (push && (*holder)->scope != TokenScope::kPush)) {
      reply_fault(res, Fault::kDenied, *holder ? "this token may only read" : "unknown token");
      return res;
    }
    req.who = (*holder)->name;
    return std::nullopt;
  }

  // The index, or nullopt with the reply made.
  std::optional<ResultIndex> open_index(Response& res) const {
    auto idx = index();
    if (!idx.ok()) reply_fault(res, Fault::kDatabase, idx.error().message);
    if (!idx.ok()) return std::nullopt;
    return std::move(*idx);
  }

  void push_session(const Request& req, Response& res) const {
    auto idx = open_index(res);
    if (!idx) return;
    auto bundle = parse_bundle(req.body, "pushed session");
    if (bundle.ok()) {
      if (auto st = check_identities(*bundle); !st.ok())
        bundle = in_context("pushed session", st.error());
    }
    if (!bundle.ok()) return reply_fault(res, fault_of(bundle.error()), bundle.error().message);
    auto out = store_pushed_session(*idx, *bundle, req.who);
    if (!out.ok()) return reply_fault(res, Fault::kDatabase, out.error().message);
    reply(
        res, out->stored ? 201 : 200,
        json{{"session", out->key}, {"stored", out->stored}, {"digest", bundle->digest()}}.dump());
  }

  void list(const Request& req, Response& res) const {
    auto idx = open_index(res);
    if (!idx) return;
    auto sessions = list_sessions(*idx, filter_of(req));
    if (!sessions.ok()) return reply_fault(res, Fault::kDatabase, sessions.error().message);
    reply(res, 200, sessions_json(*sessions));
  }

  static SessionFilter filter_of(const Request& req) {
    SessionFilter f{req.param("experiment"), req.param("host"), req.param("kernel")};
    if (req.has_param("limit")) f.limit = std::atoi(req.param("limit").c_str());
    return f;
  }

  // The stored bundle of <experiment>/<stamp>, or nullopt with the reply made.
  std::optional<SessionBundle> bundle_of(ResultIndex& idx, const std::string& experiment,
                                         const std::string& stamp, Response& res) const {
    if (!is_plain_name(experiment) || !is_plain_name(stamp)) {
      reply_fault(res, Fault::kBadInput,
                  fmt::format("'{}/{}' is not a session name", experiment, stamp));
      return std::nullopt;
    }
    auto b = load_pushed_session(idx, experiment + "/" + stamp);
    if (!b.ok()) reply_fault(res, Fault::kDatabase, b.error().message);
    if (b.ok() && !*b)
      reply_fault(res, Fault::kNotFound, fmt::format("no session {}/{}", experiment, stamp));
    if (!b.ok() || !*b) return std::nullopt;
    return std::move(**b);
  }

  void get_session(const Request& req, Response& res) const {
    auto idx = open_index(res);
    if (!idx) return;
    auto b = bundle_of(*idx, req.args[0], req.args[1], res);
    if (b) reply(res, 200, bundle_json(*b));
  }

  // A stored session as a directory the report code reads (the server's view cache), or
  // nullopt with the reply made.
  std::optional<fs::path> session_dir(ResultIndex& idx, const std::string& key,
                                      Response& res) const {
    const size_t slash = key.find('/');
    if (slash == std::string::npos) {
      reply_fault(res, Fault::kBadInput,
                  fmt::format("'{}': not a session (<experiment>/<stamp>)", key));
      return std::nullopt;
    }
    auto b = bundle_of(idx, key.substr(0, slash), key.substr(slash + 1), res);
    if (!b) return std::nullopt;
    const fs::path view = opt.store / "sessions" / b->digest().substr(0, 16);
    if (path_exists(view / b->experiment / b->stamp / "runs")) return view / b->key();
    auto dir = write_bundle(*b, view);
    if (!dir.ok()) store_failed(res, opt.store, dir.error());
    if (!dir.ok()) return std::nullopt;
    return *dir;
  }

  // The samples of ?metric= with ?where=, or nullopt with the reply made.
  std::optional<std::vector<IndexedSample>> samples_of(const Request& req, Response& res,
                                                       ResultIndex& idx) const {
    const std::string metric = req.param("metric");
    auto where = parse_run_query(req.param("where"));
    if (metric.empty() || !where.ok()) {
      reply_fault(res, Fault::kBadInput,
                  metric.empty() ? "?metric= is needed" : where.error().message);
      return std::nullopt;
    }
    auto samples = idx.samples(metric, *where);
    if (!samples.ok()) reply_fault(res, Fault::kDatabase, samples.error().message);
    if (!samples.ok()) return std::nullopt;
    return std::move(*samples);
  }

  void samples(const Request& req, Response& res) const {
    auto idx = open_index(res);
    if (!idx) return;
    if (auto s = samples_of(req, res, *idx)) reply(res, 200, samples_json(*s));
  }

  void history(const Request& req, Response& res, bool html) const {
    auto idx = open_index(res);
    if (!idx) return;
    auto s = samples_of(req, res, *idx);
    if (!s) return;
    const std::string metric = req.param("metric");
    auto cases = gate_cases_of(*idx, metric);
    if (!cases.ok()) return reply_fault(res, Fault::kDatabase, cases.error().message);
    HistoryModel model = build_history(metric, *s);
    attach_gate_cases(model, *cases);
    find_change_points(model);
    std::ostringstream out;
    if (html) {
      write_html(model, out);
      return reply(res, 200, out.str(), "text/html; charset=utf-8");
    }
    write_json(model, out);
    reply(res, 200, out.str());
  }

  void compare(const Request& req, Response& res, bool html) const {
    auto idx = open_index(res);
    if (!idx) return;
    auto base = session_dir(*idx, req.param("base"), res);
    auto cand = base ? session_dir(*idx, req.param("cand"), res) : base;
    if (!base || !cand) return;
    auto b = session_side(*base, {});
    auto c = session_side(*cand, {});
    if (!b.ok() || !c.ok()) return reply_fault(res, Fault::kBug, (b.ok() ? c : b).error().message);
    const ComparisonModel model = compare_sides(*b, *c, {});
    std::ostringstream out;
    if (html) {
      write_html(model, {}, out);
      return reply(res, 200, out.str(), "text/html; charset=utf-8");
    }
    write_json(model, {}, out);
    reply(res, 200, out.str());
  }

  void session_page(const Request& req, Response& res) const {
    auto idx = open_index(res);
    if (!idx) return;
    auto dir = session_dir(*idx, req.args[0] + "/" + req.args[1], res);
    if (!dir) return;
    auto report = load_session_report(*dir);
    if (!report.ok()) return reply_fault(res, Fault::kBug, report.error().message);
    std::ostringstream out;
    write_html(report->model, session_extra_lines(*report), out);
    reply(res, 200, out.str(), "text/html; charset=utf-8");
  }

  void sessions_page(const Request& req, Response& res) const {
    auto idx = open_index(res);
    if (!idx) return;
    const SessionFilter f = filter_of(req);
    auto sessions = list_sessions(*idx, f);
    if (!sessions.ok()) return reply_fault(res, Fault::kDatabase, sessions.error().message);
    std::ostringstream out;
    write_sessions_page(*sessions, f, out);
    reply(res, 200, out.str(), "text/html; charset=utf-8");
  }

  void bisections(const Request&, Response& res, bool html) const {
    auto idx = open_index(res);
    if (!idx) return;
    auto rows = list_bisections(idx->db());
    if (!rows.ok()) return reply_fault(res, Fault::kDatabase, rows.error().message);
    std::ostringstream out;
    if (html) {
      write_bisections_page(*rows, out);
      return reply(res, 200, out.str(), "text/html; charset=utf-8");
    }
    json j = json::array();
    for (const IndexedBisection& r : *rows) {
      j.push_back({{"bisection", r.path},
                   {"experiment", r.experiment},
                   {"metric", r.metric},
                   {"where", r.selection},
                   {"candidates", r.candidates},
                   {"state", r.state},
                   {"culprit", r.culprit},
                   {"started", r.started},
                   {"updated", r.updated}});
    }
    reply(res, 200, json{{"bisections", j}}.dump());
  }

  fs::path kernel_file(const Request& req) const {
    return opt.store / "kernels" / req.args[0] / req.args[1];
  }

  bool kernel_names_ok(const Request& req, Response& res) const {
    for (const std::string& name : req.args) {
      if (!is_kernel_name(name)) {
        reply_fault(res, Fault::kBadInput, fmt::format("'{}' is not a kernel name", name));
        return false;
      }
    }
    return true;
  }

  void put_kernel(const Request& req, Response& res) const {
    if (!kernel_names_ok(req, res)) return;
    const std::string want = req.header("x-content-sha256");
    const std::string got = sha256_hex(req.body);
    if (want != got) {
      return reply_fault(res, Fault::kBadInput,
                         fmt::format("X-Content-SHA256 {} does not match the body's {}",
                                     want.empty() ? "(none)" : want, got));
    }
    const fs::path file = kernel_file(req);
    auto st = make_dirs(file.parent_path());
    if (st.ok()) st = write_file_atomic(file, req.body);
    if (!st.ok()) return store_failed(res, opt.store, st.error());
    reply(res, 201, json{{"file", file.filename().string()}, {"sha256", got}}.dump());
  }

  void get_kernel(const Request& req, Response& res) const {
    if (!kernel_names_ok(req, res)) return;
    auto body = read_file(kernel_file(req));
    if (!body.ok()) return reply_fault(res, Fault::kNotFound, "no such kernel file");
    res.headers.emplace_back("X-Content-SHA256", sha256_hex(*body));
    reply(res, 200, std::move(*body), "application/octet-stream");
  }

  void list_kernel(const Request& req, Response& res) const {
    if (!kernel_names_ok(req, res)) return;
    const fs::path dir = opt.store / "kernels" / req.args[0];
    auto files = list_dir(dir);
    // Its kernel.json comes last (server/lab_client.h push_kernel): until then, no kernel.
    if (!files.ok() || !path_exists(dir / "kernel.json")) {
      return reply_fault(res, Fault::kNotFound, "no such kernel");
    }
    json names = json::array();
    for (const fs::path& f : *files) {
      if (f.filename().string().find(".tmp") == std::string::npos) {
        names.push_back(f.filename().string());
      }
    }
    reply(res, 200, json{{"files", names}}.dump());
  }

  // A findings route (server/lab_findings.h).
  template <typename Work>
  void finding(Response& res, Work work) const {
    auto idx = open_index(res);
    if (idx) res = scrubbed(work(*idx));
  }

  using Method = void (Impl::*)(const Request&, Response&) const;
  HttpRoute route(const char* method, std::string pattern, Access access, Method m) const {
    return {method, std::move(pattern), access, [this, m](const Request& q) {
              Response r;
              (this->*m)(q, r);
              return r;
            }};
  }
  template <typename F>
  HttpRoute route(const char* method, std::string pattern, Access access, F f) const {
    return {method, std::move(pattern), access, [f](const Request& q) {
              Response r;
              f(q, r);
              return r;
            }};
  }
  std::vector<HttpRoute> finding_routes() const;
  std::vector<HttpRoute> routes() const;
};

std::vector<HttpRoute> LabServer::Impl::finding_routes() const {
  const std::string api = kApiPrefix;
  const Access push = Access::kPush, read = Access::kRead;
  return {
      route("POST", api + "/sessions/*/*/gate", push,
            [this](const Request& q, Response& r) {
              finding(r, [&](ResultIndex& i) {
                return store_gate_report(i, q.args[0] + "/" + q.args[1], q.body);
              });
            }),
      route("GET", api + "/gates", read,
            [this](const Request& q, Response& r) {
              finding(r, [&](ResultIndex& i) { return gate_cases_reply(i, q.param("metric")); });
            }),
      route("POST", api + "/bisections/*/*", push,
            [this](const Request& q, Response& r) {
              finding(r, [&](ResultIndex& i) {
                return store_bisection(i, opt.store, q.args[0], q.args[1], q.body);
              });
            }),
      route("GET", api + "/bisections/*/*", read,
            [this](const Request& q, Response& r) {
              r = scrubbed(bisection_log_reply(opt.store, q.args[0], q.args[1]));
            }),
      route("GET", "/bisections/*/*", read,
            [this](const Request& q, Response& r) {
              finding(
                  r, [&](ResultIndex& i) { return bisection_page_reply(i, q.args[0], q.args[1]); });
            }),
  };
}

std::vector<HttpRoute> LabServer::Impl::routes() const {
  const std::string api = kApiPrefix;
  const Access push = Access::kPush, read = Access::kRead;
  std::vector<HttpRoute> r = {
      route("POST", api + "/sessions", push, &Impl::push_session),
      route("GET", api + "/sessions", read, &Impl::list),
      route("GET", api + "/sessions/*/*", read, &Impl::get_session),
      route("GET", api + "/samples", read, &Impl::samples),
      route("GET", api + "/history", read, [this](auto& q, auto& s) { history(q, s, false); }),
      route("GET", api + "/compare", read, [this](auto& q, auto& s) { compare(q, s, false); }),
      route("GET", api + "/bisections", read,
            [this](auto& q, auto& s) { bisections(q, s, false); }),
      route("PUT", api + "/kernels/*/*", push, &Impl::put_kernel),
      route("GET", api + "/kernels/*/*", read, &Impl::get_kernel),
      route("GET", api + "/kernels/*", read, &Impl::list_kernel),
      route("GET", "/", read, &Impl::sessions_page),
      route("GET", "/sessions/*/*", read, &Impl::session_page),
      route("GET", "/history", read, [this](auto& q, auto& s) { history(q, s, true); }),
      route("GET", "/compare", read, [this](auto& q, auto& s) { compare(q, s, true); }),
      route("GET", "/bisections", read, [this](auto& q, auto& s) { bisections(q, s, true); }),
  };
  for (HttpRoute& f : finding_routes()) r.push_back(std::move(f));
  return r;
}

LabServer::LabServer(LabServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->opt = std::move(options);
}

LabServer::~LabServer() = default;

Result<int> LabServer::bind() {
  Impl& i = *impl_;
  if (auto idx = i.index(); !idx.ok()) return idx.error();  // migrated once, before serving
  HttpFrontOptions o{.host = i.opt.host,
                     .port = i.opt.port,
                     .tls_cert = i.opt.tls_cert,
                     .tls_key = i.opt.tls_key,
                     .max_upload = i.opt.max_upload,
                     .limits = i.opt.limits};
  i.front = std::make_unique<HttpFront>(std::move(o), i.routes(),
                                        [&i](Access a, Request& q) { return i.authorize(a, q); });
  return i.front->bind();
}

Result<void> LabServer::serve() {
  if (!impl_->front) return make_internal_error("serve() before bind()");
  return impl_->front->serve();
}

void LabServer::stop() {
  if (impl_->front) impl_->front->stop();
}

}  // namespace foliolab
