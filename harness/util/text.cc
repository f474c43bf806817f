#include "util/text.h"

#include <algorithm>
#include <charconv>
#include <vector>

namespace foliolab {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  const size_t m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string> candidates) {
  const size_t limit = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : 3;
  std::optional<std::string> best;
  size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    const size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string slugify(std::string_view text) {
  std::string out;
  for (char c : text) {
    c = lower(c);
    const bool keep = is_alnum(c) || c == '.' || c == '_' || c == '-';
    const char next = keep ? c : '-';
    if (next == '-' && (out.empty() || out.back() == '-')) continue;
    out.push_back(next);
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "x" : out;
}

size_t display_width(std::string_view s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xc0) != 0x80; }));
}

std::vector<std::string> word_wrap(const std::string& text, size_t width, size_t indent) {
  std::vector<std::string> lines;
  size_t start = text.find_first_not_of(' ');
  if (start == std::string::npos) return {text};
  std::string line(start, ' ');
  indent += start;
  bool first = true;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!first && display_width(line) + 1 + display_width(word) > width) {
      lines.push_back(line);
      line = std::string(indent, ' ') + word;
    } else {
      line += (first ? "" : " ") + word;
    }
    first = false;
    start = end + 1;
  }
  lines.push_back(line);
  return lines;
}

bool is_word(std::string_view text, std::string_view extra) {
  if (text.empty()) return false;
  return std::all_of(text.begin(), text.end(), [&](char c) {
    return is_alnum(c) || extra.find(c) != std::string_view::npos;
  });
}

bool is_relative_path(std::string_view text) {
  if (!is_word(text, "_/.-") || text.front() == '/') return false;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('/', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view part = text.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

std::string did_you_mean_text(std::string_view suggestion) {
  return "; did you mean '" + std::string(suggestion) + "'?";
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  if (auto near = closest_match(word, candidates)) return did_you_mean_text(*near);
  return {};
}

std::string_view trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const size_t b = text.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  return text.substr(b, text.find_last_not_of(kSpace) - b + 1);
}

std::string join(std::span<const std::string> items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = nl + 1;
  }
  return lines;
}

std::optional<uint64_t> parse_uint(std::string_view text, int base) {
  if (text.empty() || text.front() == '+' || text.front() == '-') return std::nullopt;
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_double(std::string_view text) {
  if (text.empty() || text.front() == '+') return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<int64_t> parse_int(std::string_view text) {
  if (text.empty() || text == "-") return std::nullopt;
  if (text.front() == '+') return std::nullopt;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<uint64_t> parse_memory_kib(std::string_view text, std::string* why) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0) {
    *why = "expected a size such as 1024 (MiB), 512M or 1G";
    return std::nullopt;
  }
  uint64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (ec != std::errc() || end != text.data() + digits) {
    *why = "number too large";
    return std::nullopt;
  }
  std::string suffix;
  for (char c : text.substr(digits)) suffix.push_back(lower(c));
  // Multiplier relative to KiB.
  uint64_t kib_per_unit = 1024;  // no suffix: MiB
  if (!suffix.empty()) {
    const std::string rest = suffix.substr(1);
    if (rest != "" && rest != "ib" && rest != "b") suffix = "?";
    switch (suffix[0]) {
      case 'k':
        kib_per_unit = 1;
        break;
      case 'm':
        kib_per_unit = 1024;
        break;
      case 'g':
        kib_per_unit = 1024 * 1024;
        break;
      case 't':
        kib_per_unit = 1024ull * 1024 * 1024;
        break;
      default:
        *why = "unknown size suffix '" + std::string(text.substr(digits)) +
               "' (use K, M, G or T; binary units)";
        return std::nullopt;
    }
  }
  if (number > UINT64_MAX / kib_per_unit) {
    *why = "number too large";
    return std::nullopt;
  }
  return number * kib_per_unit;
}

std::optional<uint64_t> parse_memory_mib(std::string_view text, std::string* why) {
  const auto kib = parse_memory_kib(text, why);
  if (!kib) return std::nullopt;
  if (*kib % 1024 != 0) {
    *why = "not a whole number of MiB";
    return std::nullopt;
  }
  return *kib / 1024;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && text[at] == ' ') ++at;
    const size_t end = std::min(text.find(' ', at), text.size());
    if (end > at) out.emplace_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

}  // namespace foliolab
