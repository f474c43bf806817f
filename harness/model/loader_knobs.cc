// The experiment loader: knob sets (THP sysfs paths, sysctl, cmdline, prepare).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "model/file_keys.h"
#include "model/loader_internal.h"
#include "util/text.h"

namespace foliolab::loader_internal {
namespace {

constexpr std::string_view kThpRoot = "/sys/kernel/mm/transparent_hugepage/";
constexpr std::string_view kSysctlRoot = "/proc/sys/";

}  // namespace

Result<void> Parser::parse_knob_sets(const Field& f, std::vector<KnobSet>* out) const {
  auto sets = read_map(f, nullptr);
  FL_TRY(sets);
  if (sets->entries.empty()) return error(f, "must define at least one knob set");
  for (const auto& [name, field] : sets->entries) {
    if (name.empty() || name.find_first_of("\t\n\r") != std::string::npos) {
      return key_error(field, "invalid knob set name: must be non-empty, one line");
    }
    if (name.size() > kMaxRunPartLength) {
      return key_error(field, fmt::format("a knob set name of at most {} characters (it is part "
                                          "of every run id); this one has {}",
                                          kMaxRunPartLength, name.size()));
    }
    KnobSet set;
    set.name = name;
    set.loc = loc(field.key);
    if (!field.value.IsNull()) FL_TRY(parse_knob_set(field, &set));
    out->push_back(std::move(set));
  }
  return {};
}

Result<void> Parser::parse_knob_set(const Field& f, KnobSet* set) const {
  auto fields = read_map(f, nullptr);
  FL_TRY(fields);
  for (const auto& [key, field] : fields->entries) {
    if (key == "sysctl") {
      FL_TRY(parse_paths(field, kSysctlRoot, &set->sysctls));
    } else if (key == "cmdline") {
      auto cmdline = read_scalar(field);
      FL_TRY(cmdline);
      set->cmdline = *cmdline;
    } else if (key == "prepare") {  // after the top-level steps (model/machine_state.h)
      FL_TRY(parse_prepare(field, &set->prepare));
    } else {
      if (key.find('/') == std::string::npos) {
        // The table's keys (sysctl, cmdline, prepare); any other is a THP sysfs path.
        const Keys& reserved = file_keys::knob_set().names();
        if (const std::string near = did_you_mean(key, reserved); !near.empty()) {
          return key_error(field, "unknown key" + near);
        }
      }
      FL_TRY(check_path(field, key, kThpRoot));
      auto value = read_nonempty(field);
      FL_TRY(value);
      set->knobs.emplace_back(key, *value);
      set->knob_locs.push_back(loc(field));
    }
  }
  return {};
}

Result<void> Parser::parse_paths(const Field& f, std::string_view root, KeyValues* out) const {
  auto fields = read_map(f, nullptr);
  FL_TRY(fields);
  for (const auto& [key, field] : fields->entries) {
    if (key.find('/') == std::string::npos && key.find('.') != std::string::npos) {
      std::string slashed = key;
      std::replace(slashed.begin(), slashed.end(), '.', '/');
      return key_error(
          field, "sysctl keys are paths under " + std::string(root) + did_you_mean_text(slashed));
    }
    FL_TRY(check_path(field, key, root));
    auto value = read_nonempty(field);
    FL_TRY(value);
    out->emplace_back(key, *value);
  }
  return {};
}

Result<void> Parser::check_path(const Field& field, const std::string& key,
                                std::string_view root) const {
  if (is_relative_path(key)) return {};
  if (key.starts_with(root)) {
    return key_error(field, "write the path relative to " + std::string(root) + ": '" +
                                key.substr(root.size()) + "'");
  }
  return key_error(field, "invalid path '" + key + "': expected a path relative to " +
                              std::string(root) + " ([A-Za-z0-9_/.-], no '..', no leading '/')");
}

}  // namespace foliolab::loader_internal
