// The lab server's requests, replies and route table (served by server/http_front.h): from a
// request line to a route, the target split into segments, each percent-decoded (and UTF-8),
// matched against the routes' patterns; the query decoded.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace foliolab {

// A request as a handler sees it: the path's segments percent-decoded, the captured ones in
// `args`, the query decoded, header names in lower case.
struct HttpRequest {
  std::string method, path;
  std::vector<std::string> args;
  std::map<std::string, std::string> query, headers;
  std::string body;
  std::string who;  // the token's holder, when a token was given and accepted

  std::string param(const std::string& key) const;
  bool has_param(const std::string& key) const { return query.contains(key); }
  std::string header(const std::string& lower_name) const;
};

struct HttpResponse {
  int status = 200;
  std::string body;
  std::string type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
};

enum class Access { kRead, kPush };

// A route: a method and a pattern of segments where `*` captures one segment into `args`
// ("/api/v1/kernels/*/*").
struct HttpRoute {
  std::string method, pattern;
  Access access;
  std::function<HttpResponse(const HttpRequest&)> handler;
};

// The JSON error reply every refusal uses; bytes that are not UTF-8 in `message` are replaced.
HttpResponse error_response(int status, std::string_view message);

// The route `method` and `target` name, with `out`'s method, path, args and query set; or
// nullptr with `refusal` made (400 for a target that does not decode, 404 for no route).
const HttpRoute* match_route(const std::vector<HttpRoute>& routes, std::string_view method,
                             std::string_view target, HttpRequest& out, HttpResponse& refusal);
// Adds a header under its lower-case name (a repeated one joined with ", ").
void add_header(HttpRequest& req, std::string_view name, std::string_view value);

}  // namespace foliolab
