#include "protocol/oom_reason.h"

#include <fmt/format.h>

#include <csignal>
#include <cstdint>
#include <map>
#include <string>

namespace foliolab {
namespace {

int64_t value_or_zero(const StateValues& values, const std::string& key) {
  auto it = values.find(key);
  return it == values.end() ? 0 : it->second;
}

}  // namespace

std::string oom_kill_reason(int64_t signal, const StateValues& before, const StateValues& after) {
  if (signal != SIGKILL) return {};
  const auto kills = after.find("memcg.events.oom_kill");
  if (kills == after.end()) return {};
  if (kills->second <= value_or_zero(before, "memcg.events.oom_kill")) return {};
  return fmt::format("OOM-killed in its memory cgroup (memory.events: oom {}, oom_kill {}, max {})",
                     value_or_zero(after, "memcg.events.oom"), kills->second,
                     value_or_zero(after, "memcg.events.max"));
}

}  // namespace foliolab
