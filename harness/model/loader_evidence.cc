// The experiment loader's `evidence:` section (docs/evidence.md): what the guest measures beside
// the workload's own metrics. Each key has its own function.
#include "model/file_keys.h"
#include "model/loader_internal.h"

namespace foliolab {
namespace loader_internal {

Result<void> Parser::parse_evidence(const Field& f, EvidenceSpec* e) const {
  auto fields = read_map(f, &file_keys::evidence().names());
  FL_TRY(fields);
  for (const auto& [key, field] : fields->entries) {
    if (key == "census") FL_TRY(parse_census(field, e));
  }
  return {};
}

// `census: true`: the agent takes a folio census whenever the workload says it is at its peak.
Result<void> Parser::parse_census(const Field& f, EvidenceSpec* e) const {
  auto on = read_bool(f);
  FL_TRY(on);
  e->census = *on;
  e->census_loc = loc(f);
  return {};
}

}  // namespace loader_internal
}  // namespace foliolab
