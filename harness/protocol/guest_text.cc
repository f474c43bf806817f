#include "protocol/guest_text.h"

#include <fmt/format.h>

#include <cstdint>

namespace foliolab {
namespace {

// Length of the valid UTF-8 sequence at the start of s, 0 if invalid.
size_t utf8_len(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t n = 0;
  uint32_t cp = 0;
  if ((c & 0xe0) == 0xc0) {
    n = 2;
    cp = c & 0x1f;
  } else if ((c & 0xf0) == 0xe0) {
    n = 3;
    cp = c & 0x0f;
  } else if ((c & 0xf8) == 0xf0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  for (size_t i = 1; i < n; ++i) {
    if ((b(i) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3f);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

}  // namespace

// Guest strings: at most `max` bytes (then "..."), invalid UTF-8 bytes spelled as "\xNN" so
// the report can always be dumped as JSON.
std::string bounded(std::string_view s, size_t max) {
  std::string out;
  size_t i = 0;
  while (i < s.size() && out.size() < max) {
    const size_t n = utf8_len(s.substr(i));
    if (n == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  if (i < s.size()) out += "...";
  return out;
}

// Upper bound on JSON nesting depth (brackets inside strings are skipped). nlohmann's parser is
// recursive, so untrusted deep nesting must be refused before parsing.
size_t json_depth(std::string_view s) {
  size_t depth = 0, max_depth = 0;
  bool in_string = false, escaped = false;
  for (char c : s) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      max_depth = std::max(max_depth, ++depth);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return max_depth;
}

}  // namespace foliolab
