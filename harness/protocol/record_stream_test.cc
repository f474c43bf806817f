#include "protocol/record_stream.h"

#include <gtest/gtest.h>

#include <string>

namespace foliolab {
namespace {

std::string three_records() {
  return encode_record("hello", 0, "release\t6.12.0\n") + encode_record("stdout", 1, "") +
         encode_record("done", 2, "status\tok\n");
}

TEST(Protocol, EncodeMatchesContract) {
  // CRC-32 of "123456789" is the standard check value cbf43926.
  EXPECT_EQ(encode_record("stdout", 7, "123456789"), "@FL1 stdout 7 9 cbf43926\n123456789\n");
  EXPECT_EQ(encode_record("done", 0, ""), "@FL1 done 0 0 00000000\n\n");
}

TEST(Protocol, RoundTrip) {
  const std::string payload("bin\0ary\n\t@FL1 x 0 0 00000000\n", 29);
  const std::string bytes = encode_record("hello", 0, "a\tb\n") +
                            encode_record("stdout", 1, payload) + encode_record("done", 2, "");
  ParsedStream s = parse_records(bytes);
  ASSERT_TRUE(s.clean()) << s.damage;
  ASSERT_EQ(s.records.size(), 3u);
  EXPECT_EQ(s.records[0].type, "hello");
  EXPECT_EQ(s.records[0].payload, "a\tb\n");
  EXPECT_EQ(s.records[0].offset, 0u);
  EXPECT_EQ(s.records[1].type, "stdout");
  EXPECT_EQ(s.records[1].seq, 1u);
  EXPECT_EQ(s.records[1].payload, payload);
  EXPECT_EQ(s.records[1].offset, encode_record("hello", 0, "a\tb\n").size());
  EXPECT_EQ(s.records[2].payload, "");
}

TEST(Protocol, EmptyStreamIsClean) {
  ParsedStream s = parse_records("");
  EXPECT_TRUE(s.clean());
  EXPECT_TRUE(s.records.empty());
}

TEST(Protocol, TornAtEveryCutPoint) {
  const std::string full = three_records();
  std::vector<size_t> boundaries = {0};
  for (const Record& r : parse_records(full).records) {
    boundaries.push_back(r.offset + encode_record(r.type, r.seq, r.payload).size());
  }
  ASSERT_EQ(boundaries.size(), 4u);
  ASSERT_EQ(boundaries.back(), full.size());
  for (size_t cut = 0; cut <= full.size(); ++cut) {
    SCOPED_TRACE(testing::Message() << "cut at " << cut);
    ParsedStream s = parse_records(std::string_view(full).substr(0, cut));
    size_t complete = 0;
    while (complete + 1 < boundaries.size() && boundaries[complete + 1] <= cut) ++complete;
    ASSERT_EQ(s.records.size(), complete);
    for (size_t i = 0; i < complete; ++i) EXPECT_EQ(s.records[i].seq, i);
    if (cut == boundaries[complete]) {
      EXPECT_TRUE(s.clean()) << s.damage;
    } else {
      EXPECT_FALSE(s.clean());
      EXPECT_TRUE(s.torn) << s.damage;
      EXPECT_EQ(s.damage_offset, boundaries[complete]);
      EXPECT_NE(s.damage.find("torn record at byte " + std::to_string(boundaries[complete])),
                std::string::npos)
          << s.damage;
    }
  }
}

TEST(Protocol, BitFlipInPayloadIsCrcDamage) {
  const std::string good = encode_record("hello", 0, "k\tv\n");
  const std::string second = encode_record("counters", 1, "vmstat.pgfault\t12345\n");
  const size_t payload_start = good.size() + second.find('\n') + 1;
  for (size_t byte = payload_start; byte < good.size() + second.size() - 1; ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bytes = good + second;
      bytes[byte] = static_cast<char>(bytes[byte] ^ (1 << bit));
      ParsedStream s = parse_records(bytes);
      ASSERT_EQ(s.records.size(), 1u);
      EXPECT_FALSE(s.torn);
      EXPECT_EQ(s.damage_offset, good.size());
      EXPECT_NE(s.damage.find("CRC mismatch"), std::string::npos) << s.damage;
    }
  }
}

TEST(Protocol, GarbledHeaders) {
  const std::string good = encode_record("hello", 0, "k\tv\n");
  const std::vector<std::string> bad = {
      "@FL2 done 1 0 00000000\n\n",        // magic
      "@FL1 Done 1 0 00000000\n\n",        // type chars
      "@FL1 done 01 0 00000000\n\n",       // non-canonical seq
      "@FL1 done 1 x 00000000\n\n",        // len
      "@FL1 done 1 0 0000000\n\n",         // short crc
      "@FL1 done 1 0 0000000A\n\n",        // upper-case hex
      "@FL1 done 1 0 00000000 extra\n\n",  // extra field
      "@FL1  done 1 0 00000000\n\n",       // empty field
      "garbage\n",
      std::string(200, 'x'),
  };
  for (const std::string& b : bad) {
    SCOPED_TRACE(b);
    ParsedStream s = parse_records(good + b);
    EXPECT_EQ(s.records.size(), 1u);
    EXPECT_FALSE(s.torn);
    EXPECT_EQ(s.damage_offset, good.size());
    EXPECT_NE(s.damage.find("garbled record at byte"), std::string::npos) << s.damage;
  }
}

TEST(Protocol, TrailingGarbageWithoutNewlineIsGarbledNotTorn) {
  ParsedStream s = parse_records(encode_record("hello", 0, "") + std::string(3, '\0'));
  EXPECT_EQ(s.records.size(), 1u);
  EXPECT_FALSE(s.torn);
  EXPECT_FALSE(s.clean());
}

TEST(Protocol, SeqGapAndDuplicate) {
  const std::string r0 = encode_record("hello", 0, "");
  ParsedStream gap = parse_records(r0 + encode_record("done", 2, ""));
  EXPECT_EQ(gap.records.size(), 1u);
  EXPECT_NE(gap.damage.find("seq 2 skips"), std::string::npos) << gap.damage;
  ParsedStream dup = parse_records(r0 + encode_record("hello", 0, ""));
  EXPECT_EQ(dup.records.size(), 1u);
  EXPECT_NE(dup.damage.find("seq 0 repeats"), std::string::npos) << dup.damage;
  ParsedStream late_start = parse_records(encode_record("hello", 1, ""));
  EXPECT_TRUE(late_start.records.empty());
  EXPECT_FALSE(late_start.clean());
}

TEST(Protocol, OversizeLenRejectedBeforeReading) {
  const std::string bytes = "@FL1 stdout 0 16777217 00000000\n";
  ParsedStream s = parse_records(bytes);
  EXPECT_TRUE(s.records.empty());
  EXPECT_FALSE(s.torn);  // not "waiting for 16 MiB": the length itself is invalid
  EXPECT_NE(s.damage.find("exceeds"), std::string::npos) << s.damage;
  ParsedStream huge = parse_records("@FL1 stdout 0 99999999999999999999999 00000000\n");
  EXPECT_FALSE(huge.clean());
}

TEST(Protocol, MissingTrailingNewline) {
  std::string bytes = encode_record("hello", 0, "abc");
  bytes.back() = 'X';
  ParsedStream s = parse_records(bytes + encode_record("done", 1, ""));
  EXPECT_TRUE(s.records.empty());
  EXPECT_FALSE(s.torn);
  EXPECT_NE(s.damage.find("no newline after"), std::string::npos) << s.damage;
}

TEST(Protocol, ParseKv) {
  auto kv = parse_kv("a\t1\nb c\tx y\nempty\t\n");
  ASSERT_TRUE(kv.ok()) << kv.error().message;
  ASSERT_EQ(kv->size(), 3u);
  EXPECT_EQ((*kv)[1], (std::pair<std::string, std::string>{"b c", "x y"}));
  EXPECT_EQ((*kv)[2].second, "");
  EXPECT_TRUE(parse_kv("").ok());
  EXPECT_EQ(encode_kv(*kv), "a\t1\nb c\tx y\nempty\t\n");

  auto no_tab = parse_kv("a\t1\nnotab\n");
  ASSERT_FALSE(no_tab.ok());
  EXPECT_NE(no_tab.error().message.find("line 2"), std::string::npos);
  EXPECT_FALSE(parse_kv("a\t1").ok());       // no trailing newline
  EXPECT_FALSE(parse_kv("\tvalue\n").ok());  // empty key
  EXPECT_FALSE(parse_kv("a\tb\tc\n").ok());  // tab in value
}

}  // namespace
}  // namespace foliolab
