#include "server/lab_client.h"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/stat.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "results/session_bundle.h"
#include "server/lab_api.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

httplib::Client client_of(const LabServerRef& s) {
  httplib::Client c(s.url);
  c.set_connection_timeout(10, 0);
  c.set_read_timeout(120, 0);
  c.set_write_timeout(120, 0);
  if (!s.token.empty()) c.set_bearer_token_auth(s.token);
  return c;
}

// The server's message from an error reply, else the HTTP status.
std::string reply_message(const httplib::Result& r) {
  if (!r) return httplib::to_string(r.error());
  try {
    return fmt::format("HTTP {}: {}", r->status,
                       json::parse(r->body).at("error").get<std::string>());
  } catch (const json::exception&) {
    return fmt::format("HTTP {}", r->status);
  }
}

Result<std::string> get_text(const LabServerRef& s, const std::string& path,
                             const httplib::Params& params = {}) {
  auto c = client_of(s);
  auto r = c.Get(path, params, httplib::Headers{});
  if (!r || r->status != 200) {
    return make_env_error(fmt::format("{}{}: {}", s.url, path, reply_message(r)));
  }
  return r->body;
}

}  // namespace

Result<LabServerRef> lab_server_ref(const std::string& url, const std::string& token_file) {
  if (!url.starts_with("http://") && !url.starts_with("https://")) {
    return make_error(fmt::format("--server {}: use http://HOST:PORT or https://HOST:PORT", url));
  }
  LabServerRef ref{.url = url};
  while (ref.url.ends_with("/")) ref.url.pop_back();
  if (!token_file.empty()) {
    struct stat st {};
    if (::stat(token_file.c_str(), &st) != 0) {
      return make_error(fmt::format("--token-file {}: cannot read it", token_file));
    }
    if ((st.st_mode & 077) != 0) {
      return make_error(fmt::format("--token-file {}: others may read it (mode {:o}); chmod 600 it",
                                    token_file, st.st_mode & 0777));
    }
    auto text = read_file(token_file);
    if (!text.ok()) return text.error();
    ref.token = std::string(trim(*text));
  } else if (const char* env = std::getenv("FOLIOLAB_TOKEN")) {
    ref.token = std::string(trim(env));
  }
  return ref;
}

namespace {

// POSTs `body` to `path`, retried while the server or its database is away; the reply's body.
Result<std::string> post_retried(const LabServerRef& s, const std::string& path,
                                 const std::string& body, const std::string& what) {
  std::string last;
  for (int attempt = 1; attempt <= s.attempts; ++attempt) {
    auto c = client_of(s);
    auto r = c.Post(path, body, "application/json");
    if (r && (r->status == 200 || r->status == 201)) return r->body;
    last = reply_message(r);
    // The server refused the upload or the token: trying again changes nothing.
    if (r && r->status >= 400 && r->status < 500) break;
    if (attempt < s.attempts) std::this_thread::sleep_for(std::chrono::seconds(attempt));
  }
  return make_env_error(fmt::format("{} to {}: {} (the local copy is kept)", what, s.url, last));
}

}  // namespace

Result<PushOutcome> push_session(const LabServerRef& s, const fs::path& session_dir) {
  auto bundle = bundle_from_dir(session_dir);
  if (!bundle.ok()) return bundle.error();
  auto reply = post_retried(s, fmt::format("{}/sessions", kApiPrefix), bundle_json(*bundle),
                            "push of " + session_dir.string());
  if (!reply.ok()) return reply.error();
  try {
    const json j = json::parse(*reply);
    return PushOutcome{j.at("session").get<std::string>(), j.at("stored").get<bool>()};
  } catch (const json::exception& e) {
    return make_env_error(fmt::format("{}: a reply that is no push: {}", s.url, e.what()));
  }
}

Result<void> push_gate_report(const LabServerRef& s, const std::string& key,
                              const std::string& gate_json) {
  auto reply = post_retried(s, fmt::format("{}/sessions/{}/gate", kApiPrefix, key), gate_json,
                            "the gate's verdicts on " + key);
  if (!reply.ok()) return reply.error();
  return {};
}

Result<void> push_bisection(const LabServerRef& s, const std::string& key,
                            const fs::path& log_file) {
  auto body = read_file(log_file);
  if (!body.ok()) return body.error();
  auto reply = post_retried(s, fmt::format("{}/bisections/{}", kApiPrefix, key), *body,
                            "push of " + log_file.string());
  if (!reply.ok()) return reply.error();
  return {};
}

Result<fs::path> fetch_session(const LabServerRef& s, const std::string& key,
                               const fs::path& root) {
  auto text = get_text(s, fmt::format("{}/sessions/{}", kApiPrefix, key));
  if (!text.ok()) return text.error();
  auto bundle = parse_bundle(*text, fmt::format("{} session {}", s.url, key));
  if (!bundle.ok()) return bundle.error();
  return write_bundle(*bundle, root);
}

Result<std::vector<PushedSession>> fetch_sessions(const LabServerRef& s,
                                                  const std::string& experiment, int limit) {
  auto text = get_text(s, fmt::format("{}/sessions", kApiPrefix),
                       {{"experiment", experiment}, {"limit", std::to_string(limit)}});
  if (!text.ok()) return text.error();
  return parse_sessions_json(*text);
}

Result<std::vector<IndexedSample>> fetch_samples(const LabServerRef& s, const std::string& metric,
                                                 const std::string& where) {
  auto text =
      get_text(s, fmt::format("{}/samples", kApiPrefix), {{"metric", metric}, {"where", where}});
  if (!text.ok()) return text.error();
  return parse_samples_json(*text);
}

Result<std::vector<IndexedGateCase>> fetch_gate_cases(const LabServerRef& s,
                                                      const std::string& metric) {
  auto text = get_text(s, fmt::format("{}/gates", kApiPrefix), {{"metric", metric}});
  if (!text.ok()) return text.error();
  return parse_gate_cases_json(*text);
}

fs::path lab_session_root(const fs::path& cache, const LabServerRef& s) {
  std::string name = s.url.substr(s.url.find("://") + 3);
  for (char& c : name) {
    if (c == ':' || c == '/') c = '-';
  }
  return cache / "lab" / name;
}

Result<void> push_kernel(const LabServerRef& s, const std::string& build_id,
                         const fs::path& kernel_dir) {
  auto files = list_dir(kernel_dir);
  if (!files.ok()) return files.error();
  if (auto held = get_text(s, fmt::format("{}/kernels/{}", kApiPrefix, build_id)); held.ok()) {
    return {};  // another host (or an earlier run) shared it
  }
  // kernel.json last: the server lists a kernel only once it has its kernel.json, so an
  // upload cut short is never fetched, and the next host's upload completes it.
  std::stable_partition(files->begin(), files->end(),
                        [](const fs::path& f) { return f.filename() != "kernel.json"; });
  for (const fs::path& f : *files) {
    const std::string name = f.filename().string();
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(f, ec))) {
      // The cache writes no links: what one points at is not the build's, and is not read.
      return make_error(
          fmt::format("{} is a symbolic link: a kernel is uploaded from its own "
                      "files only (rebuild it, or remove the link)",
                      f.string()));
    }
    if (!is_kernel_name(name) || is_dir(f)) continue;
    auto body = read_file(f);
    if (!body.ok()) return body.error();
    auto c = client_of(s);
    httplib::Headers h = {{"X-Content-SHA256", sha256_hex(*body)}};
    auto r = c.Put(fmt::format("{}/kernels/{}/{}", kApiPrefix, build_id, name), h, *body,
                   "application/octet-stream");
    if (!r || r->status != 201) {
      return make_env_error(
          fmt::format("upload of {} to {}: {}", f.string(), s.url, reply_message(r)));
    }
  }
  return {};
}

Result<bool> fetch_kernel(const LabServerRef& s, const std::string& build_id,
                          const fs::path& kernel_dir) {
  auto c = client_of(s);
  auto list = c.Get(fmt::format("{}/kernels/{}", kApiPrefix, build_id));
  if (list && list->status == 404) return false;
  if (!list || list->status != 200) {
    return make_env_error(fmt::format("{}: kernel {}: {}", s.url, build_id, reply_message(list)));
  }
  const fs::path tmp = kernel_dir.parent_path() / ("." + build_id + ".fetch");
  if (path_exists(tmp)) FL_TRY(remove_tree(tmp));
  FL_TRY(make_dirs(tmp));
  try {
    const json doc = json::parse(list->body);
    for (const json& name : doc.at("files")) {
      const std::string file = name.get<std::string>();
      if (!is_kernel_name(file)) return make_env_error(fmt::format("{}: file '{}'", s.url, file));
      auto r = c.Get(fmt::format("{}/kernels/{}/{}", kApiPrefix, build_id, file));
      if (!r || r->status != 200 ||
          r->get_header_value("X-Content-SHA256") != sha256_hex(r->body)) {
        return make_env_error(fmt::format(
            "{}: kernel {} file {}: {}", s.url, build_id, file,
            r && r->status == 200 ? "content does not match its hash" : reply_message(r)));
      }
      FL_TRY(write_file_atomic(tmp / file, r->body));
    }
  } catch (const json::exception& e) {
    return make_env_error(fmt::format("{}: kernel {}: {}", s.url, build_id, e.what()));
  }
  if (path_exists(kernel_dir)) FL_TRY(remove_tree(kernel_dir));
  FL_TRY(rename_path(tmp, kernel_dir));
  return true;
}

}  // namespace foliolab
