#include "protocol/dist_record.h"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "protocol/guest_text.h"
#include "util/text.h"

namespace foliolab {
namespace {

constexpr size_t kMaxDistName = 256;

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > kMaxDistName) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == ':' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// "<lo> <hi> <count>" -> a bucket; nullopt when it is not three numbers.
std::optional<DistributionBucket> parse_bucket(std::string_view text) {
  const std::vector<std::string> cells = split_words(text);
  if (cells.size() != 3) return std::nullopt;
  auto lo = parse_double(cells[0]), hi = parse_double(cells[1]);
  auto count = parse_int(cells[2]);
  if (!lo || !hi || !count) return std::nullopt;
  return DistributionBucket{*lo, *hi, *count};
}

// The fields of the header; "" when each parsed.
std::string read_header(const std::map<std::string, std::string>& f, Distribution& d) {
  auto get = [&](const char* key) -> const std::string* {
    auto it = f.find(key);
    return it == f.end() ? nullptr : &it->second;
  };
  for (const char* key : {"count", "sum", "min", "max"}) {
    if (!get(key)) return fmt::format("missing field {}", key);
  }
  auto count = parse_int(*get("count"));
  auto sum = parse_double(*get("sum")), min = parse_double(*get("min"));
  auto max = parse_double(*get("max"));
  if (!count || !sum || !min || !max) return "count, sum, min or max is not a number";
  d.unit = get("unit") ? *get("unit") : "";
  d.count = *count;
  d.sum = *sum;
  d.min = *min;
  d.max = *max;
  return "";
}

}  // namespace

std::string read_dist_record(const KeyValues& kv, std::map<std::string, Distribution>& into) {
  std::map<std::string, std::string> fields;
  std::vector<DistributionBucket> buckets;
  for (const auto& [k, v] : kv) {
    if (k.size() >= 2 && k[0] == 'b' && parse_int(k.substr(1))) {
      if (k != "b" + std::to_string(buckets.size()))
        return fmt::format("bucket {} out of order", bounded(k, 16));
      if (buckets.size() >= kMaxDistributionBuckets) return "more than 4096 buckets";
      auto b = parse_bucket(v);
      if (!b) return fmt::format("bucket {}: \"{}\" is not <lo> <hi> <count>", k, bounded(v, 64));
      buckets.push_back(*b);
    } else {
      fields[k] = v;
    }
  }
  const std::string name = fields.contains("name") ? fields["name"] : "";
  if (!valid_name(name)) return fmt::format("bad name \"{}\"", bounded(name, 64));
  Distribution d;
  if (std::string why = read_header(fields, d); !why.empty()) return name + ": " + why;
  d.buckets = std::move(buckets);
  if (std::string why = distribution_problem(d); !why.empty()) return name + ": " + why;
  if (into.contains(name)) return name + ": a second dist record for the rep";
  if (into.size() >= kMaxDistributionsPerRep) return name + ": more than 256 distributions";
  into.emplace(name, std::move(d));
  return "";
}

}  // namespace foliolab
