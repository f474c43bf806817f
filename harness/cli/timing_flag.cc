#include "cli/timing_flag.h"

#include "backend/backend_table.h"
#include "cli/cli_util.h"
#include "runner/planner.h"

namespace foliolab::cli {

void add_timing_flag(CLI::App& app, std::string& timing) {
  app.add_option("--timing", timing,
                 "wall | icount (overrides machine.timing; icount: QEMU -icount under TCG, guest "
                 "time counts instructions and does not depend on the host's load)")
      ->check(CLI::IsMember({"wall", "icount"}));
}

void apply_timing_flag(const std::string& timing, Experiment& exp) {
  if (timing.empty()) return;
  exp.machine.timing = *parse_timing_mode(timing);
  exp.machine.timing_loc = {};
}

std::optional<int> timing_refused(const Experiment& exp, const std::vector<Run>& runs) {
  const BackendEntry* entry = find_backend(exp.machine.backend);  // validated by load()
  auto st = check_timing_mode(exp, runs, entry ? entry->needs : BackendNeeds{});
  if (st.ok()) return std::nullopt;
  return fail(st.error());
}

}  // namespace foliolab::cli
