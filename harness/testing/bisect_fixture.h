// Test helper: a bisection's log as `foliolab bisect --variants` leaves it in its directory,
// written by the real BisectLog (bisect/bisect_driver.h), so the index's tests read the format
// the bisect command writes.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bisect/bisect_driver.h"
#include "util/text.h"

namespace foliolab {

struct FakeBisection {
  std::vector<std::string> variants;
  std::string metric = "mthp.64kB.anon_fault_alloc", where = "arch=x86_64";
  std::vector<BisectStep> steps;
  std::vector<BisectConfirmation> confirmations;
};

// Writes <dir>/bisect.json (creating dir): the meta first, then each step and confirmation, as
// the bisect command appends them.
inline Result<void> write_bisect_log(const std::filesystem::path& dir, const FakeBisection& b) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  auto log = BisectLog::open(dir / "bisect.json");
  if (!log.ok()) return log.error();
  FL_TRY(log->set_meta({{"experiment", "/src/experiments/examples/bisect-variants.yaml"},
                        {"variants", join(b.variants, "\n")},
                        {"metric", b.metric},
                        {"where", b.where}}));
  for (const BisectStep& s : b.steps) FL_TRY(log->append(s));
  for (const BisectConfirmation& c : b.confirmations) FL_TRY(log->append(c));
  return {};
}

}  // namespace foliolab
