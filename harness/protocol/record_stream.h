// Host side of the guest record channel (docs/guest-protocol.md, "Record channel").
//
// Wire format of one record:
//   @FL1 <type> <seq> <len> <crc32>\n<payload: exactly len bytes>\n
// The parser is all-or-nothing per record: it returns every complete, valid record that precedes
// the first damage, and a description of that damage. It never returns part of a record.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/experiment.h"  // KeyValues
#include "util/result.h"

namespace foliolab {

inline constexpr std::string_view kRecordMagic = "@FL1";
inline constexpr size_t kMaxRecordPayload = size_t{16} << 20;  // 16 MiB, per the contract
inline constexpr size_t kMaxRecordType = 32;

struct Record {
  std::string type;
  uint64_t seq = 0;
  std::string payload;
  size_t offset = 0;  // byte offset of the header's '@' in the stream
};

struct ParsedStream {
  std::vector<Record> records;  // complete valid records before the damage, in stream order
  std::string damage;           // empty if the whole stream parsed cleanly
  size_t damage_offset = 0;     // byte offset where the damaged record starts (if damage)
  bool torn = false;            // damage is "stream ends inside a record" (guest stopped)
  bool clean() const { return damage.empty(); }
};

// Splits a record stream. Damage kinds: torn (EOF inside header, payload or trailer), garbled
// header, payload longer than kMaxRecordPayload, CRC mismatch, missing trailing newline, seq gap
// or duplicate (seq must start at 0 and go up by one).
ParsedStream parse_records(std::string_view bytes);

// One wire record; type must match [a-z-]+ (not checked here: used by tests and fakes).
std::string encode_record(std::string_view type, uint64_t seq, std::string_view payload);

// Parses a `key\tvalue\n` payload. Every line must end in '\n', hold exactly one tab and a
// non-empty key. Errors name the 1-based line.
Result<KeyValues> parse_kv(std::string_view payload);

// Builds a `key\tvalue\n` payload (no validation; for tests and fakes).
std::string encode_kv(const KeyValues& kv);

}  // namespace foliolab
