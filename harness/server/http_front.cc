#include "server/http_front.h"

#include <fmt/format.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <cstdio>
#include <list>
#include <mutex>
#include <optional>

#include "server/worker_pool.h"

namespace foliolab {
// Named, not anonymous: HttpFront::Impl derives from FrontState (-Wsubobject-linkage).
namespace http_front_internal {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

std::string_view sv(beast::string_view s) { return {s.data(), s.size()}; }

// What every connection shares, owned by HttpFront::Impl.
struct FrontState;

// A connection in the registry: evict() closes it (on the I/O thread).
struct ConnBase {
  virtual ~ConnBase() = default;
  virtual void evict() = 0;
  bool waiting_for_head = true;
  Clock::time_point since = Clock::now();
};

// The order of the members is their order of destruction backwards: the pool's jobs post to
// the I/O context, whose pending handlers own connections that use the TLS context and the
// registry.
struct FrontState {
  HttpFrontOptions opt;
  std::vector<HttpRoute> routes;
  Authorizer authorize;
  std::mutex mutex;  // guards `open`
  std::list<ConnBase*> open;
  std::optional<ssl::context> tls;
  asio::io_context ioc{1};
  std::unique_ptr<WorkerPool> pool;

  // Room for one more connection: true, or false when every open one is busy.
  bool make_room() {
    std::lock_guard lock(mutex);
    if (open.size() < opt.limits.max_connections) return true;
    ConnBase* oldest = nullptr;
    for (ConnBase* c : open) {
      if (c->waiting_for_head && (!oldest || c->since < oldest->since)) oldest = c;
    }
    if (oldest) oldest->evict();
    return oldest != nullptr;
  }
};

// Runs `work` on a worker; false when the pool is full.
bool on_worker(FrontState& s, std::function<void()> work) {
  return s.pool->try_submit(std::move(work));
}

std::chrono::milliseconds transfer_time(const HttpFrontOptions& o, size_t bytes) {
  const size_t rate = o.limits.min_body_rate == 0 ? 1 : o.limits.min_body_rate;
  return o.limits.body_grace + std::chrono::milliseconds(bytes * 1000 / rate);
}

// The status a failed head or body read earns, or 0: close without a word.
int status_of_read_error(const beast::error_code& ec) {
  if (ec == http::error::body_limit) return 413;
  if (ec == http::error::header_limit) return 431;
  if (ec == http::error::end_of_stream || ec == http::error::partial_message) return 0;
  return ec.category() == http::make_error_code(http::error::bad_method).category() ? 400 : 0;
}

HttpResponse run_handler(const HttpRoute& route, const HttpRequest& req) {
  try {
    return route.handler(req);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "foliolab serve: %s %s: %s\n", req.method.c_str(), req.path.c_str(),
                 e.what());
    return error_response(500, "internal error");
  }
}

template <typename Stream>
class Connection : public ConnBase, public std::enable_shared_from_this<Connection<Stream>> {
 public:
  Connection(FrontState& s, Stream stream) : s_(s), stream_(std::move(stream)) {
    std::lock_guard lock(s_.mutex);
    self_in_registry_ = s_.open.insert(s_.open.end(), this);
  }
  ~Connection() override {
    std::lock_guard lock(s_.mutex);
    s_.open.erase(self_in_registry_);
  }

  void start() {
    if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
      read_head(true);
    } else {
      lowest().expires_after(s_.opt.limits.head_timeout);
      stream_.async_handshake(ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (!ec) self->read_head(true);
                              });
    }
  }
  void evict() override { lowest().close(); }

 private:
  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  void read_head(bool first) {
    waiting_for_head = true;
    since = Clock::now();
    head_.emplace();
    head_->header_limit(static_cast<std::uint32_t>(s_.opt.limits.max_head));
    head_->body_limit(s_.opt.max_upload);
    lowest().expires_after(first ? s_.opt.limits.head_timeout : s_.opt.limits.idle_timeout);
    http::async_read_header(
        stream_, buffer_, *head_,
        [self = this->shared_from_this()](beast::error_code ec, size_t) { self->on_head(ec); });
  }

  void on_head(beast::error_code ec) {
    waiting_for_head = false;
    if (ec) return refuse_read(ec);
    const auto& h = head_->get();
    if (h.count(http::field::content_length) > 1) {
      return respond(error_response(400, "two Content-Length fields"), true);
    }
    req_ = HttpRequest{};
    for (const auto& f : h) add_header(req_, sv(f.name_string()), sv(f.value()));
    HttpResponse refusal;
    route_ = match_route(s_.routes, sv(h.method_string()), sv(h.target()), req_, refusal);
    if (!route_) return respond(refusal, true);
    keep_alive_ = h.keep_alive();
    has_body_ = head_->chunked() || head_->content_length().value_or(0) > 0;
    expect_continue_ = beast::iequals(h[http::field::expect], "100-continue");
    if (!on_worker(s_, [self = this->shared_from_this()] { self->authorize(); })) {
      respond(error_response(503, "the server is busy; try again"), true);
    }
  }

  // On a worker: the access check, then the handler at once when there is no body.
  void authorize() {
    auto denied = s_.authorize(route_->access, req_);
    if (denied) return post([denied](Connection& c) { c.respond(*denied, true); });
    if (!has_body_) {
      HttpResponse r = run_handler(*route_, req_);
      return post([r = std::move(r)](Connection& c) { c.respond(r, false); });
    }
    post([](Connection& c) { c.read_body(); });
  }

  void post(std::function<void(Connection&)> then) {
    asio::post(s_.ioc, [self = this->shared_from_this(), then = std::move(then)] { then(*self); });
  }

  void read_body() {
    if (expect_continue_) {
      auto cont = std::make_shared<http::response<http::empty_body>>(http::status::continue_, 11);
      lowest().expires_after(s_.opt.limits.body_grace);
      return http::async_write(
          stream_, *cont, [self = this->shared_from_this(), cont](beast::error_code ec, size_t) {
            self->expect_continue_ = false;
            if (!ec) self->read_body();
          });
    }
    body_.emplace(std::move(*head_));
    body_->body_limit(s_.opt.max_upload);
    lowest().expires_after(
        transfer_time(s_.opt, body_->content_length().value_or(s_.opt.max_upload)));
    http::async_read(
        stream_, buffer_, *body_,
        [self = this->shared_from_this()](beast::error_code ec, size_t) { self->on_body(ec); });
  }

  void on_body(beast::error_code ec) {
    if (ec == beast::error::timeout) {
      return respond(error_response(408, "the body came too slowly"), true);
    }
    if (ec) return refuse_read(ec);
    req_.body = std::move(body_->get().body());
    body_.reset();
    if (!on_worker(s_, [self = this->shared_from_this()] {
          HttpResponse r = run_handler(*self->route_, self->req_);
          self->post([r = std::move(r)](Connection& c) { c.respond(r, false); });
        })) {
      respond(error_response(503, "the server is busy; try again"), true);
    }
  }

  void refuse_read(beast::error_code ec) {
    const int status = status_of_read_error(ec);
    if (status == 0) return lowest().close();
    const char* what = status == 413   ? "the body is larger than the server accepts"
                       : status == 431 ? "the request head is too large"
                                       : "malformed request";
    respond(error_response(status, fmt::format("{} ({})", what, ec.message())), true);
  }

  void respond(const HttpResponse& r, bool close) {
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(r.status), 11);
    res->set(http::field::content_type, r.type);
    for (const auto& [name, value] : r.headers) res->set(name, value);
    res->body() = r.body;
    res->keep_alive(!close && keep_alive_);
    res->prepare_payload();
    lowest().expires_after(transfer_time(s_.opt, r.body.size()));
    http::async_write(stream_, *res,
                      [self = this->shared_from_this(), res](beast::error_code ec, size_t) {
                        if (ec) return self->lowest().close();
                        if (!res->keep_alive()) return self->linger();
                        self->read_head(false);
                      });
  }

  // Closes after the reply: the client's unread bytes are drained for a moment (at most 1 s
  // and 1 MiB) first, so that closing does not reset the connection before the client has
  // read the reply.
  void linger() {
    beast::error_code ignored;
    lowest().socket().shutdown(tcp::socket::shutdown_send, ignored);
    lowest().expires_after(std::chrono::seconds(1));
    drain();
  }
  void drain() {
    lowest().async_read_some(asio::buffer(scratch_),
                             [self = this->shared_from_this()](beast::error_code ec, size_t n) {
                               self->drained_ += n;
                               if (ec || self->drained_ > (1 << 20)) return self->lowest().close();
                               self->drain();
                             });
  }

  FrontState& s_;
  Stream stream_;
  std::list<ConnBase*>::iterator self_in_registry_;
  beast::flat_buffer buffer_{64 << 10};
  std::optional<http::request_parser<http::empty_body>> head_;
  std::optional<http::request_parser<http::string_body>> body_;
  HttpRequest req_;
  const HttpRoute* route_ = nullptr;
  bool keep_alive_ = false, has_body_ = false, expect_continue_ = false;
  size_t drained_ = 0;
  char scratch_[16 << 10];
};

}  // namespace http_front_internal
using namespace http_front_internal;

struct HttpFront::Impl : FrontState {
  std::optional<tcp::acceptor> acceptor;
  asio::steady_timer retry{ioc};

  void accept() {
    acceptor->async_accept(ioc, [this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) {  // out of descriptors, say: try again in a moment
        retry.expires_after(std::chrono::milliseconds(50));
        return retry.async_wait([this](beast::error_code e) {
          if (!e) accept();
        });
      }
      if (make_room()) start(std::move(socket));
      accept();
    });
  }

  void start(tcp::socket socket) {
    if (tls) {
      using TlsStream = beast::ssl_stream<beast::tcp_stream>;
      std::make_shared<Connection<TlsStream>>(*this, TlsStream(std::move(socket), *tls))->start();
    } else {
      std::make_shared<Connection<beast::tcp_stream>>(*this, beast::tcp_stream(std::move(socket)))
          ->start();
    }
  }

  Result<void> load_tls() {
    if (opt.tls_cert.empty()) return {};
    try {
      tls.emplace(ssl::context::tls_server);
      tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                       ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
      tls->use_certificate_chain_file(opt.tls_cert.string());
      tls->use_private_key_file(opt.tls_key.string(), ssl::context::pem);
      return {};
    } catch (const boost::system::system_error& e) {
      return make_env_error(fmt::format("cannot load the TLS certificate {} and key {}: {}",
                                        opt.tls_cert.string(), opt.tls_key.string(), e.what()));
    }
  }
};

HttpFront::HttpFront(HttpFrontOptions options, std::vector<HttpRoute> routes, Authorizer authorize)
    : impl_(std::make_unique<Impl>()) {
  impl_->opt = std::move(options);
  impl_->routes = std::move(routes);
  impl_->authorize = std::move(authorize);
}

HttpFront::~HttpFront() {
  impl_->pool.reset();  // its jobs post to the I/O context, which must outlive them
}

Result<int> HttpFront::bind() {
  Impl& i = *impl_;
  FL_TRY(i.load_tls());
  try {
    tcp::resolver resolver(i.ioc);
    const tcp::endpoint at = *resolver.resolve(i.opt.host, std::to_string(i.opt.port)).begin();
    i.acceptor.emplace(i.ioc);
    i.acceptor->open(at.protocol());
    i.acceptor->set_option(asio::socket_base::reuse_address(true));
    i.acceptor->bind(at);
    i.acceptor->listen(asio::socket_base::max_listen_connections);
    i.pool = std::make_unique<WorkerPool>(i.opt.limits.workers, i.opt.limits.queue);
    return i.acceptor->local_endpoint().port();
  } catch (const boost::system::system_error& e) {
    return make_env_error(
        fmt::format("cannot listen on {}:{}: {}", i.opt.host, i.opt.port, e.what()));
  }
}

Result<void> HttpFront::serve() {
  Impl& i = *impl_;
  if (!i.acceptor) return make_internal_error("serve() before bind()");
  i.accept();
  i.ioc.run();
  return {};
}

void HttpFront::stop() { impl_->ioc.stop(); }

}  // namespace foliolab
