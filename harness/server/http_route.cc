#include "server/http_route.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace foliolab {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Well-formed UTF-8: no overlong forms (%c0%ae), no surrogates, nothing past U+10FFFF.
bool is_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size() || (n == 2 && c < 0xc2)) return false;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 2) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (n == 4 && (cp < 0x10000 || cp > 0x10ffff))) {
      return false;
    }
    i += n;
  }
  return true;
}

// %XX decoded (and '+' as a space in a query); nullopt for a broken escape or bytes that are
// not UTF-8.
std::optional<std::string> percent_decode(std::string_view s, bool query) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+' && query) {
      out += ' ';
    } else if (s[i] != '%') {
      out += s[i];
    } else {
      const int hi = i + 2 < s.size() ? hex_digit(s[i + 1]) : -1;
      const int lo = hi >= 0 ? hex_digit(s[i + 2]) : -1;
      if (lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
  }
  if (!is_utf8(out)) return std::nullopt;  // paths and queries are text
  return out;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    const size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

bool decode_query(std::string_view query, HttpRequest& out) {
  if (query.empty()) return true;
  for (std::string_view pair : split(query, '&')) {
    const size_t eq = pair.find('=');
    auto key = percent_decode(pair.substr(0, eq), true);
    auto value = percent_decode(eq == std::string_view::npos ? "" : pair.substr(eq + 1), true);
    if (!key || !value) return false;
    out.query.emplace(std::move(*key), std::move(*value));
  }
  return true;
}

// The decoded segments of the path, or nullopt.
std::optional<std::vector<std::string>> decode_path(std::string_view path) {
  std::vector<std::string> out;
  for (std::string_view raw : split(path.substr(1), '/')) {
    auto seg = percent_decode(raw, false);
    if (!seg) return std::nullopt;
    out.push_back(std::move(*seg));
  }
  return out;
}

bool matches(const HttpRoute& route, const std::vector<std::string>& segments,
             std::vector<std::string>& args) {
  const std::vector<std::string_view> pattern =
      split(std::string_view(route.pattern).substr(1), '/');
  if (pattern.size() != segments.size()) return false;
  args.clear();
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == "*") {
      args.push_back(segments[i]);
    } else if (pattern[i] != segments[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

HttpResponse error_response(int status, std::string_view message) {
  return {status, nlohmann::json{{"error", message}}.dump(
                      -1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

const HttpRoute* match_route(const std::vector<HttpRoute>& routes, std::string_view method,
                             std::string_view target, HttpRequest& out, HttpResponse& refusal) {
  const size_t q = target.find('?');
  const std::string_view path = target.substr(0, q);
  out.method = std::string(method);
  out.path = std::string(path);
  auto segments = path.starts_with('/') ? decode_path(path) : std::nullopt;
  if (!segments || !decode_query(q == std::string_view::npos ? "" : target.substr(q + 1), out)) {
    refusal = error_response(
        400, fmt::format("'{}': not a request target (a broken %-escape, or not UTF-8)", target));
    return nullptr;
  }
  for (const HttpRoute& r : routes) {
    if (r.method == method && matches(r, *segments, out.args)) return &r;
  }
  refusal = error_response(404, fmt::format("no route {} {}", method, path));
  return nullptr;
}

void add_header(HttpRequest& req, std::string_view name, std::string_view value) {
  std::string key(name);
  for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto [it, fresh] = req.headers.emplace(key, std::string(value));
  if (!fresh) it->second += ", " + std::string(value);
}

std::string HttpRequest::param(const std::string& key) const {
  auto it = query.find(key);
  return it == query.end() ? "" : it->second;
}

std::string HttpRequest::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? "" : it->second;
}

}  // namespace foliolab
