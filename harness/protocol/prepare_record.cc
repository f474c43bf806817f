#include "protocol/prepare_record.h"

#include "protocol/guest_text.h"

namespace foliolab {

PreparedStep read_prepare_record(const KeyValues& kv) {
  PreparedStep step;
  for (const auto& [k, v] : kv) {
    if (k == "step") {
      if (step.step.empty()) step.step = bounded(v);  // the first, as the other fields are read
    } else if (step.fields.size() < kMaxPrepareFields) {
      step.fields.emplace_back(bounded(k, 128), bounded(v));
    }
  }
  return step;
}

}  // namespace foliolab
