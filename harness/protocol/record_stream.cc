#include "protocol/record_stream.h"

#include <zlib.h>

#include <algorithm>
#include <optional>
#include <variant>

#include <fmt/format.h>

#include "util/text.h"

namespace foliolab {
namespace {

// Longest possible valid header: magic, type, two 20-digit numbers, crc, separators, newline.
constexpr size_t kMaxHeaderLen =
    kRecordMagic.size() + 1 + kMaxRecordType + 1 + 20 + 1 + 20 + 1 + 8 + 1;

uint32_t crc32_of(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; feed in chunks so huge inputs are handled correctly.
  while (!data.empty()) {
    const size_t chunk = std::min<size_t>(data.size(), 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(chunk));
    data.remove_prefix(chunk);
  }
  return static_cast<uint32_t>(crc);
}

bool is_type_char(char c) { return (c >= 'a' && c <= 'z') || c == '-'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

// Could `partial` (no newline yet) still grow into a valid header? Used to tell a header torn by
// EOF from garbage at the end of the stream.
bool is_header_prefix(std::string_view partial) {
  const std::string_view magic_sp = "@FL1 ";
  const size_t m = std::min(partial.size(), magic_sp.size());
  if (partial.substr(0, m) != magic_sp.substr(0, m)) return false;
  if (partial.size() <= magic_sp.size()) return true;
  partial.remove_prefix(magic_sp.size());
  int field = 0;  // 0 type, 1 seq, 2 len, 3 crc
  size_t field_len = 0;
  for (char c : partial) {
    if (c == ' ') {
      if (field_len == 0 || field == 3) return false;
      ++field;
      field_len = 0;
      continue;
    }
    const bool good = field == 0 ? is_type_char(c) : field == 3 ? is_lower_hex(c) : is_digit(c);
    if (!good) return false;
    ++field_len;
    if (field == 3 && field_len > 8) return false;
  }
  return true;
}

// Digits only, in canonical form (no leading zero), at most 20 of them and within uint64_t.
std::optional<uint64_t> parse_decimal(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  if (s.size() > 1 && s[0] == '0') return std::nullopt;  // canonical form only
  return parse_uint(s);
}

struct Header {
  std::string_view type;
  uint64_t seq = 0;
  uint64_t len = 0;
  uint32_t crc = 0;
};

// `line` excludes the newline. Returns an error text on mismatch.
Result<Header> parse_header(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (fields.size() < 6) {
    const size_t sp = line.find(' ', start);
    fields.push_back(line.substr(start, sp == std::string_view::npos ? sp : sp - start));
    if (sp == std::string_view::npos) break;
    start = sp + 1;
  }
  if (fields.size() != 5) return make_error("header does not have 5 space-separated fields");
  if (fields[0] != kRecordMagic) return make_error("bad magic (expected @FL1)");
  Header h;
  h.type = fields[1];
  if (h.type.empty() || h.type.size() > kMaxRecordType ||
      !std::all_of(h.type.begin(), h.type.end(), is_type_char)) {
    return make_error("bad record type");
  }
  auto seq = parse_decimal(fields[2]);
  if (!seq) return make_error("bad seq");
  h.seq = *seq;
  auto len = parse_decimal(fields[3]);
  if (!len) return make_error("bad len");
  h.len = *len;
  const std::string_view crc = fields[4];
  if (crc.size() != 8 || !std::all_of(crc.begin(), crc.end(), is_lower_hex)) {
    return make_error("bad crc32 field (need 8 lowercase hex digits)");
  }
  h.crc = static_cast<uint32_t>(parse_uint(crc, 16).value_or(0));  // 8 hex digits: fits
  return h;
}

std::string printable(std::string_view s, size_t max = 40) {
  std::string out;
  for (char c : s.substr(0, max)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      out += fmt::format("\\x{:02x}", u);
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

// What is wrong with the record at the front of a stream.
struct Damage {
  bool torn = false;  // the stream ends inside it
  std::string what;
};

// The header of the record at the front of `rest`, which must be the record `expected_seq`;
// `nl` is set to the header line's length.
std::variant<Header, Damage> read_header(std::string_view rest, uint64_t expected_seq, size_t& nl) {
  nl = rest.substr(0, kMaxHeaderLen).find('\n');
  if (nl == std::string_view::npos) {
    if (rest.size() < kMaxHeaderLen && is_header_prefix(rest)) {
      return Damage{true, fmt::format("stream ends inside the header ({} bytes)", rest.size())};
    }
    return Damage{false, fmt::format("no valid header: \"{}\"", printable(rest))};
  }
  const std::string_view line = rest.substr(0, nl);
  auto header = parse_header(line);
  if (!header) {
    return Damage{false, fmt::format("{}: \"{}\"", header.error().message, printable(line))};
  }
  const Header& h = *header;
  if (h.len > kMaxRecordPayload) {
    return Damage{false, fmt::format("payload length {} exceeds the {} byte limit", h.len,
                                     kMaxRecordPayload)};
  }
  if (h.seq != expected_seq) {
    return Damage{false,
                  fmt::format("seq {} {}", h.seq, h.seq < expected_seq ? "repeats" : "skips")};
  }
  return h;
}

// Damage of the payload that follows header `h` at `payload_at` in `rest`, if any.
std::optional<Damage> check_payload(std::string_view rest, const Header& h, size_t payload_at) {
  const size_t avail = rest.size() - payload_at;
  if (avail < h.len) {
    return Damage{true, fmt::format("{} record: stream ends inside the payload ({} of {} bytes)",
                                    h.type, avail, h.len)};
  }
  if (avail == h.len) {
    return Damage{true, fmt::format("{} record: stream ends before the trailing newline", h.type)};
  }
  if (rest[payload_at + h.len] != '\n') {
    return Damage{false,
                  fmt::format("{} record: no newline after the {} byte payload", h.type, h.len)};
  }
  const uint32_t crc = crc32_of(rest.substr(payload_at, h.len));
  if (crc != h.crc) {
    return Damage{false, fmt::format("{} record: CRC mismatch (header {:08x}, payload {:08x})",
                                     h.type, h.crc, crc)};
  }
  return std::nullopt;
}

}  // namespace

ParsedStream parse_records(std::string_view bytes) {
  ParsedStream out;
  size_t pos = 0;
  uint64_t expected_seq = 0;
  while (pos < bytes.size()) {
    const std::string_view rest = bytes.substr(pos);
    size_t nl = 0;
    auto header = read_header(rest, expected_seq, nl);
    std::optional<Damage> damage;
    if (auto* d = std::get_if<Damage>(&header)) damage = std::move(*d);
    if (!damage) damage = check_payload(rest, std::get<Header>(header), nl + 1);
    if (damage) {
      out.damage_offset = pos;
      out.torn = damage->torn;
      out.damage = fmt::format("{} record at byte {} (expected seq {}): {}",
                               damage->torn ? "torn" : "garbled", pos, expected_seq, damage->what);
      return out;
    }
    const Header& h = std::get<Header>(header);
    out.records.push_back(
        Record{std::string(h.type), h.seq, std::string(rest.substr(nl + 1, h.len)), pos});
    pos += nl + 1 + h.len + 1;
    ++expected_seq;
  }
  return out;
}

std::string encode_record(std::string_view type, uint64_t seq, std::string_view payload) {
  std::string out = fmt::format("{} {} {} {} {:08x}\n", kRecordMagic, type, seq, payload.size(),
                                crc32_of(payload));
  out.append(payload);
  out += '\n';
  return out;
}

Result<KeyValues> parse_kv(std::string_view payload) {
  KeyValues kv;
  size_t line_no = 0;
  while (!payload.empty()) {
    ++line_no;
    const size_t nl = payload.find('\n');
    if (nl == std::string_view::npos) {
      return make_error(
          fmt::format("line {}: missing trailing newline: \"{}\"", line_no, printable(payload)));
    }
    const std::string_view line = payload.substr(0, nl);
    payload.remove_prefix(nl + 1);
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos) {
      return make_error(
          fmt::format("line {}: no tab between key and value: \"{}\"", line_no, printable(line)));
    }
    if (tab == 0) return make_error(fmt::format("line {}: empty key", line_no));
    if (line.find('\t', tab + 1) != std::string_view::npos) {
      return make_error(
          fmt::format("line {}: more than one tab: \"{}\"", line_no, printable(line)));
    }
    kv.emplace_back(std::string(line.substr(0, tab)), std::string(line.substr(tab + 1)));
  }
  return kv;
}

std::string encode_kv(const KeyValues& kv) {
  std::string out;
  for (const auto& [k, v] : kv) {
    out += k;
    out += '\t';
    out += v;
    out += '\n';
  }
  return out;
}

}  // namespace foliolab
