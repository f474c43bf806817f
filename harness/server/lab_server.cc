#include "server/lab_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <sstream>
#include <system_error>
#include <thread>

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
#include "server/lab_findings.h"
#include "server/token_store.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

using Request = httplib::Request;
using Response = httplib::Response;

void reply(Response& res, int status, const std::string& body,
           const char* type = "application/json") {
  res.status = status;
  res.set_content(body, type);
}

void reply_error(Response& res, int status, const std::string& message) {
  reply(res, status, error_json(message));
}

std::string bearer(const Request& req) {
  const std::string h = req.get_header_value("Authorization");
  return h.starts_with("Bearer ") ? h.substr(7) : "";
}

}  // namespace

struct LabServer::Impl {
  LabServerOptions opt;
  std::unique_ptr<httplib::Server> http;
  // httplib's stop() does nothing before listening has begun: stop() waits for it (or for
  // serve() to end) so that a stop right after serve() cannot be lost.
  std::atomic<bool> stopping{false}, serving{false}, served{false};

  // A connection per request: a restarted database costs only the requests in flight.
  Result<ResultIndex> index() const { return ResultIndex::open_url(opt.db); }

  // Whether the request may go on; if not, the reply is made.
  bool allowed(const Request& req, Response& res, ResultIndex& index, bool push,
               std::string* who = nullptr) const {
    const std::string token = bearer(req);
    if (token.empty()) {
      if (!push && opt.open_read) return true;
      reply_error(res, 401, "a token is needed (Authorization: Bearer …; foliolab token add)");
      return false;
    }
    auto holder = find_token(index, token);
    if (!holder.ok()) {
      reply_error(res, 503, holder.error().message);
      return false;
    }
    if (!*holder || (push && (*holder)->scope != TokenScope::kPush)) {
      reply_error(res, 403, *holder ? "this token may only read" : "unknown token");
      return false;
    }
    if (who) *who = (*holder)->name;
    return true;
  }

  // The index for a reader or a pusher, or nullopt with the reply made.
  std::optional<ResultIndex> open_for(const Request& req, Response& res, bool push,
                                      std::string* who = nullptr) const {
    auto idx = index();
    if (!idx.ok()) {
      reply_error(res, 503, idx.error().message);
      return std::nullopt;
    }
    if (!allowed(req, res, *idx, push, who)) return std::nullopt;
    return std::move(*idx);
  }

  void push_session(const Request& req, Response& res) const {
    std::string who;
    auto idx = open_for(req, res, true, &who);
    if (!idx) return;
    auto bundle = parse_bundle(req.body, "pushed session");
    if (!bundle.ok()) return reply_error(res, 400, bundle.error().message);
    auto out = store_pushed_session(*idx, *bundle, who);
    if (!out.ok()) return reply_error(res, 503, out.error().message);
    reply(
        res, out->stored ? 201 : 200,
        json{{"session", out->key}, {"stored", out->stored}, {"digest", bundle->digest()}}.dump());
  }

  void list(const Request& req, Response& res) const {
    auto idx = open_for(req, res, false);
    if (!idx) return;
    auto sessions = list_sessions(*idx, filter_of(req));
    if (!sessions.ok()) return reply_error(res, 503, sessions.error().message);
    reply(res, 200, sessions_json(*sessions));
  }

  static SessionFilter filter_of(const Request& req) {
    SessionFilter f{req.get_param_value("experiment"), req.get_param_value("host"),
                    req.get_param_value("kernel")};
    if (req.has_param("limit")) f.limit = std::atoi(req.get_param_value("limit").c_str());
    return f;
  }

  // The stored bundle of <experiment>/<stamp>, or nullopt with the reply made.
  std::optional<SessionBundle> bundle_of(ResultIndex& idx, const std::string& experiment,
                                         const std::string& stamp, Response& res) const {
    if (!is_plain_name(experiment) || !is_plain_name(stamp)) {
      reply_error(res, 400, fmt::format("'{}/{}' is not a session name", experiment, stamp));
      return std::nullopt;
    }
    auto b = load_pushed_session(idx, experiment + "/" + stamp);
    if (!b.ok()) reply_error(res, 503, b.error().message);
    if (b.ok() && !*b) reply_error(res, 404, fmt::format("no session {}/{}", experiment, stamp));
    if (!b.ok() || !*b) return std::nullopt;
    return std::move(**b);
  }

  void get_session(const Request& req, Response& res) const {
    auto idx = open_for(req, res, false);
    if (!idx) return;
    auto b = bundle_of(*idx, req.matches[1], req.matches[2], res);
    if (b) reply(res, 200, bundle_json(*b));
  }

  // A stored session as a directory the report code reads: the server's view cache.
  Result<fs::path> session_dir(ResultIndex& idx, const std::string& key, Response& res) const {
    const size_t slash = key.find('/');
    if (slash == std::string::npos) return make_error(fmt::format("'{}': not a session", key));
    auto b = bundle_of(idx, key.substr(0, slash), key.substr(slash + 1), res);
    if (!b) return make_error(res.body);
    const fs::path view = opt.store / "sessions" / b->digest().substr(0, 16);
    if (path_exists(view / b->experiment / b->stamp / "runs")) return view / b->key();
    return write_bundle(*b, view);
  }

  // The samples of ?metric= with ?where=, or nullopt with the reply made.
  std::optional<std::vector<IndexedSample>> samples_of(const Request& req, Response& res,
                                                       ResultIndex& idx) const {
    const std::string metric = req.get_param_value("metric");
    auto where = parse_run_query(req.get_param_value("where"));
    if (metric.empty() || !where.ok()) {
      reply_error(res, 400, metric.empty() ? "?metric= is needed" : where.error().message);
      return std::nullopt;
    }
    auto samples = idx.samples(metric, *where);
    if (!samples.ok()) reply_error(res, 503, samples.error().message);
    if (!samples.ok()) return std::nullopt;
    return std::move(*samples);
  }

  void samples(const Request& req, Response& res) const {
    auto idx = open_for(req, res, false);
    if (!idx) return;
    if (auto s = samples_of(req, res, *idx)) reply(res, 200, samples_json(*s));
  }

  void history(const Request& req, Response& res, bool html) const {
    auto idx = open_for(req, res, false);
    if (!idx) return;
    auto s = samples_of(req, res, *idx);
    if (!s) return;
    const std::string metric = req.get_param_value("metric");
    auto cases = gate_cases_of(*idx, metric);
    if (!cases.ok()) return reply_error(res, 503, cases.error().message);
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
    auto idx = open_for(req, res, false);
    if (!idx) return;
    auto base = session_dir(*idx, req.get_param_value("base"), res);
    auto cand = base.ok() ? session_dir(*idx, req.get_param_value("cand"), res) : base;
    if (!base.ok() || !cand.ok()) {
      if (res.status < 400) reply_error(res, 400, "?base= and ?cand= name two stored sessions");
      return;
    }
    auto b = session_side(*base, {});
    auto c = session_side(*cand, {});
    if (!b.ok() || !c.ok()) return reply_error(res, 500, (b.ok() ? c : b).error().message);
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
    auto idx = open_for(req, res, false);
    if (!idx) return;
    auto dir =
        session_dir(*idx, std::string(req.matches[1]) + "/" + std::string(req.matches[2]), res);
    if (!dir.ok()) return;
    auto report = load_session_report(*dir);
    if (!report.ok()) return reply_error(res, 500, report.error().message);
    std::ostringstream out;
    write_html(report->model, session_extra_lines(*report), out);
    reply(res, 200, out.str(), "text/html; charset=utf-8");
  }

  void sessions_page(const Request& req, Response& res) const {
    auto idx = open_for(req, res, false);
    if (!idx) return;
    const SessionFilter f = filter_of(req);
    auto sessions = list_sessions(*idx, f);
    if (!sessions.ok()) return reply_error(res, 503, sessions.error().message);
    std::ostringstream out;
    write_sessions_page(*sessions, f, out);
    reply(res, 200, out.str(), "text/html; charset=utf-8");
  }

  void bisections(const Request& req, Response& res, bool html) const {
    auto idx = open_for(req, res, false);
    if (!idx) return;
    auto rows = list_bisections(idx->db());
    if (!rows.ok()) return reply_error(res, 503, rows.error().message);
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
    return opt.store / "kernels" / std::string(req.matches[1]) / std::string(req.matches[2]);
  }

  bool kernel_names_ok(const Request& req, Response& res) const {
    for (size_t i = 1; i < req.matches.size(); ++i) {
      if (!is_kernel_name(std::string(req.matches[i]))) {
        reply_error(res, 400,
                    fmt::format("'{}' is not a kernel name", std::string(req.matches[i])));
        return false;
      }
    }
    return true;
  }

  void put_kernel(const Request& req, Response& res) const {
    if (!open_for(req, res, true) || !kernel_names_ok(req, res)) return;
    const std::string want = req.get_header_value("X-Content-SHA256");
    const std::string got = sha256_hex(req.body);
    if (want != got) {
      return reply_error(res, 400,
                         fmt::format("X-Content-SHA256 {} does not match the body's {}",
                                     want.empty() ? "(none)" : want, got));
    }
    const fs::path file = kernel_file(req);
    if (auto st = make_dirs(file.parent_path()); !st.ok()) {
      return reply_error(res, 500, st.error().message);
    }
    if (auto st = write_file_atomic(file, req.body); !st.ok()) {
      return reply_error(res, 500, st.error().message);
    }
    reply(res, 201, json{{"file", file.filename().string()}, {"sha256", got}}.dump());
  }

  void get_kernel(const Request& req, Response& res) const {
    if (!open_for(req, res, false) || !kernel_names_ok(req, res)) return;
    auto body = read_file(kernel_file(req));
    if (!body.ok()) return reply_error(res, 404, "no such kernel file");
    res.set_header("X-Content-SHA256", sha256_hex(*body));
    reply(res, 200, *body, "application/octet-stream");
  }

  void list_kernel(const Request& req, Response& res) const {
    if (!open_for(req, res, false) || !kernel_names_ok(req, res)) return;
    const fs::path dir = opt.store / "kernels" / std::string(req.matches[1]);
    auto files = list_dir(dir);
    // Its kernel.json comes last (server/lab_client.h push_kernel): until then, no kernel.
    if (!files.ok() || !path_exists(dir / "kernel.json")) {
      return reply_error(res, 404, "no such kernel");
    }
    json names = json::array();
    for (const fs::path& f : *files) {
      if (f.filename().string().find(".tmp") == std::string::npos) {
        names.push_back(f.filename().string());
      }
    }
    reply(res, 200, json{{"files", names}}.dump());
  }

  // A findings route (server/lab_findings.h) behind the token check.
  template <typename Work>
  void finding(const Request& req, Response& res, bool push, Work work) const {
    auto idx = open_for(req, res, push);
    if (!idx) return;
    const LabReply r = work(*idx);
    reply(res, r.status, r.body, r.type.c_str());
  }

  void finding_routes();
  void routes();
};

void LabServer::Impl::finding_routes() {
  const std::string api = kApiPrefix;
  const std::string name = "([^/]+)";
  auto& h = *http;
  h.Post(api + "/sessions/" + name + "/" + name + "/gate", [this](const Request& q, Response& r) {
    finding(q, r, true, [&](ResultIndex& i) {
      return store_gate_report(i, std::string(q.matches[1]) + "/" + std::string(q.matches[2]),
                               q.body);
    });
  });
  h.Get(api + "/gates", [this](const Request& q, Response& r) {
    finding(q, r, false,
            [&](ResultIndex& i) { return gate_cases_reply(i, q.get_param_value("metric")); });
  });
  h.Post(api + "/bisections/" + name + "/" + name, [this](const Request& q, Response& r) {
    finding(q, r, true, [&](ResultIndex& i) {
      return store_bisection(i, opt.store, q.matches[1], q.matches[2], q.body);
    });
  });
  h.Get(api + "/bisections/" + name + "/" + name, [this](const Request& q, Response& r) {
    finding(q, r, false, [&](ResultIndex&) {
      return bisection_log_reply(opt.store, q.matches[1], q.matches[2]);
    });
  });
  h.Get("/bisections/" + name + "/" + name, [this](const Request& q, Response& r) {
    finding(q, r, false,
            [&](ResultIndex& i) { return bisection_page_reply(i, q.matches[1], q.matches[2]); });
  });
}

void LabServer::Impl::routes() {
  const std::string api = kApiPrefix;
  const std::string name = "([^/]+)";
  auto& h = *http;
  h.Post(api + "/sessions", [this](const Request& q, Response& r) { push_session(q, r); });
  h.Get(api + "/sessions", [this](const Request& q, Response& r) { list(q, r); });
  h.Get(api + "/sessions/" + name + "/" + name,
        [this](const Request& q, Response& r) { get_session(q, r); });
  h.Get(api + "/samples", [this](const Request& q, Response& r) { samples(q, r); });
  h.Get(api + "/history", [this](const Request& q, Response& r) { history(q, r, false); });
  h.Get(api + "/compare", [this](const Request& q, Response& r) { compare(q, r, false); });
  h.Get(api + "/bisections", [this](const Request& q, Response& r) { bisections(q, r, false); });
  h.Put(api + "/kernels/" + name + "/" + name,
        [this](const Request& q, Response& r) { put_kernel(q, r); });
  h.Get(api + "/kernels/" + name + "/" + name,
        [this](const Request& q, Response& r) { get_kernel(q, r); });
  h.Get(api + "/kernels/" + name, [this](const Request& q, Response& r) { list_kernel(q, r); });
  h.Get("/", [this](const Request& q, Response& r) { sessions_page(q, r); });
  h.Get("/sessions/" + name + "/" + name,
        [this](const Request& q, Response& r) { session_page(q, r); });
  h.Get("/history", [this](const Request& q, Response& r) { history(q, r, true); });
  h.Get("/compare", [this](const Request& q, Response& r) { compare(q, r, true); });
  h.Get("/bisections", [this](const Request& q, Response& r) { bisections(q, r, true); });
  finding_routes();
}

LabServer::LabServer(LabServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->opt = std::move(options);
}

LabServer::~LabServer() = default;

Result<int> LabServer::bind() {
  Impl& i = *impl_;
  if (auto idx = i.index(); !idx.ok()) return idx.error();  // migrated once, before serving
  if (!i.opt.tls_cert.empty()) {
    i.http = std::make_unique<httplib::SSLServer>(i.opt.tls_cert.c_str(), i.opt.tls_key.c_str());
    if (!i.http->is_valid()) {
      return make_env_error(fmt::format("cannot load the TLS certificate {} and key {}",
                                        i.opt.tls_cert.string(), i.opt.tls_key.string()));
    }
  } else {
    i.http = std::make_unique<httplib::Server>();
  }
  i.http->set_payload_max_length(i.opt.max_upload);
  i.http->set_read_timeout(30, 0);
  i.http->set_exception_handler([](const Request&, Response& res, std::exception_ptr) {
    reply_error(res, 500, "internal error");
  });
  i.routes();
  const int port = i.opt.port == 0
                       ? i.http->bind_to_any_port(i.opt.host)
                       : (i.http->bind_to_port(i.opt.host, i.opt.port) ? i.opt.port : -1);
  if (port < 0) {
    return make_env_error(fmt::format("cannot listen on {}:{}", i.opt.host, i.opt.port));
  }
  return port;
}

Result<void> LabServer::serve() {
  Impl& i = *impl_;
  if (!i.http) return make_internal_error("serve() before bind()");
  i.serving = true;
  const bool ok = i.stopping || i.http->listen_after_bind();
  i.served = true;
  if (!ok) return make_env_error("the server stopped listening");
  return {};
}

void LabServer::stop() {
  Impl& i = *impl_;
  i.stopping = true;
  if (!i.http || !i.serving) return;
  while (!i.served && !i.http->is_running()) std::this_thread::yield();
  i.http->stop();
}

}  // namespace foliolab
