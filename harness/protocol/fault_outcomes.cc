#include "protocol/fault_outcomes.h"

#include <vector>

namespace foliolab {

void add_fault_outcomes(const std::map<std::string, int64_t>& deltas, size_t max_metrics,
                        std::map<std::string, double>* metrics) {
  auto add = [&](const std::string& kind, const std::string& alloc, const std::string& fb) {
    auto a = deltas.find(alloc), f = deltas.find(fb);
    if (a == deltas.end() || f == deltas.end() || a->second + f->second <= 0) return;
    if (metrics->size() + 2 > max_metrics) return;
    metrics->try_emplace("success." + kind, static_cast<double>(a->second) /
                                                static_cast<double>(a->second + f->second));
    metrics->try_emplace("fallback." + kind, static_cast<double>(f->second));
  };
  add("thp", "vmstat.thp_fault_alloc", "vmstat.thp_fault_fallback");
  std::vector<std::string> sizes;
  for (const auto& [name, _] : deltas) {
    if (name.starts_with("mthp.") && name.ends_with(".anon_fault_alloc")) {
      sizes.push_back(name.substr(5, name.size() - 5 - std::string(".anon_fault_alloc").size()));
    }
  }
  for (const std::string& s : sizes) {
    add("anon." + s, "mthp." + s + ".anon_fault_alloc", "mthp." + s + ".anon_fault_fallback");
    add("shmem." + s, "mthp." + s + ".shmem_alloc", "mthp." + s + ".shmem_fallback");
  }
}

}  // namespace foliolab
