#include "protocol/evidence_record.h"

#include <fmt/format.h>

#include "protocol/guest_text.h"
#include "util/text.h"

namespace foliolab {

bool is_evidence_metric(std::string_view name) {
  if (!name.starts_with("event.") && !name.starts_with("kprobe.") && !name.starts_with("func."))
    return false;
  if (name.size() > 256) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == ':' || c == '=' || c == '[' || c == ']' ||
                    c == '-';
    if (!ok) return false;
  }
  return true;
}

void read_evidence_counts(const KeyValues& kv, const std::string& where,
                          std::map<std::string, int64_t>* counts,
                          std::vector<std::string>* problems) {
  for (const auto& [k, v] : kv) {
    if (k == "rep") continue;
    if (counts->size() >= kMaxEvidenceCounts) {
      problems->push_back(fmt::format("{}: more than {} counts", where, kMaxEvidenceCounts));
      return;
    }
    const auto n = parse_int(v);
    if (!is_evidence_metric(k) || !n || *n < 0) {
      problems->push_back(fmt::format("{}: not an evidence count: {} = \"{}\"", where,
                                      bounded(k, 128), bounded(v, 64)));
      continue;
    }
    (*counts)[k] = *n;
  }
}

std::string profile_text(const KeyValues& kv, const std::string& where,
                         std::vector<std::string>* problems) {
  std::string out;
  size_t rows = 0;
  for (const auto& [k, v] : kv) {
    if (k == "rep") continue;
    const auto n = parse_int(v);
    if (!n || *n < 0 || !is_evidence_metric("func." + k)) {
      problems->push_back(fmt::format("{}: not a profile row: {} = \"{}\"", where, bounded(k, 128),
                                      bounded(v, 64)));
      return out;
    }
    if (++rows > kMaxProfileRows) break;
    out += fmt::format("{} {}\n", k, *n);
  }
  return out;
}

}  // namespace foliolab
