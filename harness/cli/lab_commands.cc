#include "cli/lab_commands.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "cli/cli_util.h"
#include "kernel/cache_store.h"
#include "results/index.h"
#include "server/lab_client.h"
#include "server/lab_server.h"
#include "server/token_store.h"
#include "util/cache_root.h"
#include "util/process.h"

namespace foliolab::cli {

namespace {

struct ServeFlags {
  std::string db, listen = "127.0.0.1:8470", store, max_upload = "256M", tls_cert, tls_key;
  bool read_token = false;
};

Result<LabServerOptions> serve_options(const ServeFlags& f) {
  LabServerOptions o{.db = f.db, .open_read = !f.read_token};
  const size_t colon = f.listen.rfind(':');
  if (colon == std::string::npos) return make_error("--listen " + f.listen + ": use HOST:PORT");
  o.host = f.listen.substr(0, colon);
  try {
    o.port = std::stoi(f.listen.substr(colon + 1));
  } catch (const std::exception&) {
    return make_error("--listen " + f.listen + ": the port is not a number");
  }
  auto bytes = parse_size(f.max_upload);
  if (!bytes.ok()) return in_context("--max-upload", bytes.error());
  o.max_upload = *bytes;
  o.store = f.store.empty() ? cache_root() / "serve" : std::filesystem::path(f.store);
  if (f.tls_cert.empty() != f.tls_key.empty()) {
    return make_error("--tls-cert and --tls-key go together");
  }
  o.tls_cert = f.tls_cert;
  o.tls_key = f.tls_key;
  return o;
}

}  // namespace

std::function<int()> setup_serve(CLI::App& app) {
  auto f = std::make_shared<ServeFlags>();
  app.add_option("--db", f->db, "postgresql://USER@HOST/DB, or a SQLite file")->required();
  app.add_option("--listen", f->listen, "HOST:PORT (port 0: any free one)")->capture_default_str();
  app.add_option("--store", f->store, "kernels and the session view cache (default: the cache)");
  app.add_option("--max-upload", f->max_upload, "largest body accepted")->capture_default_str();
  app.add_flag("--read-token", f->read_token, "reading needs a read or push token too");
  app.add_option("--tls-cert", f->tls_cert, "serve HTTPS with this certificate (PEM)");
  app.add_option("--tls-key", f->tls_key, "… and this private key (PEM)");
  return [=] {
    auto options = serve_options(*f);
    if (!options.ok()) return fail(options.error());
    LabServer server(*options);
    auto port = server.bind();
    if (!port.ok()) return fail(port.error(), kExitEnvironment);
    fmt::print("foliolab serve: listening on {}://{}:{} (index {})\n",
               options->tls_cert.empty() ? "http" : "https", options->host, *port,
               redact_url(options->db));
    std::fflush(stdout);
    // SIGINT/SIGTERM (cli/main.cc) end the server between requests.
    std::thread watch([&] {
      while (!cancel_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      server.stop();
    });
    auto st = server.serve();
    request_cancel();
    watch.join();
    return st.ok() ? kExitOk : fail(st.error(), kExitEnvironment);
  };
}

std::function<int()> setup_token(CLI::App& app) {
  auto name = std::make_shared<std::string>();
  auto scope = std::make_shared<std::string>("push");
  auto db = std::make_shared<std::string>();
  app.require_subcommand(1);
  CLI::App* add = app.add_subcommand("add", "make a token and print it (once)");
  add->add_option("name", *name, "who or what holds it (a host, a CI job)")->required();
  add->add_option("--scope", *scope, "push (may also read) | read")->capture_default_str();
  add->add_option("--db", *db, "the server's index: postgresql://… or a SQLite file")->required();
  return [=] {
    auto s = parse_token_scope(*scope);
    if (!s.ok()) return fail(s.error());
    auto index = ResultIndex::open_url(*db);
    if (!index.ok()) return fail(index.error(), kExitEnvironment);
    auto token = add_token(*index, *name, *s);
    if (!token.ok()) return fail(token.error());
    fmt::print("{}\n", *token);
    fmt::print(stderr, "token '{}' ({}): shown once; keep it in a 0600 file or FOLIOLAB_TOKEN\n",
               *name, *scope);
    return kExitOk;
  };
}

std::function<int()> setup_push(CLI::App& app) {
  auto sessions = std::make_shared<std::vector<std::string>>();
  auto server = std::make_shared<std::string>();
  auto token_file = std::make_shared<std::string>();
  app.add_option("session", *sessions, "results session directories")->required();
  app.add_option("--server", *server, "http://HOST:PORT of a foliolab serve")->required();
  app.add_option("--token-file", *token_file,
                 "a 0600 file holding a push token "
                 "(default: $FOLIOLAB_TOKEN)");
  return [=] {
    auto ref = lab_server_ref(*server, *token_file);
    if (!ref.ok()) return fail(ref.error());
    int failed = 0;
    for (const std::string& dir : *sessions) {
      auto out = push_session(*ref, dir);
      if (!out.ok()) {
        fmt::print(stderr, "{}\n", out.error().message);
        ++failed;
        continue;
      }
      fmt::print("{} -> {}/sessions/{} ({})\n", dir, ref->url, out->key,
                 out->stored ? "stored" : "already there");
    }
    return failed ? kExitEnvironment : kExitOk;
  };
}

}  // namespace foliolab::cli
