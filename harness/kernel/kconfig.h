// Kconfig fragments: parse, merge in order (later wins), apply onto a .config, and verify that
// every requested option landed after olddefconfig (which silently drops options whose
// dependencies are unmet: tuxmake's pitfall); and which files of a tree decide a .config besides
// the requests (the digest the builder keeps beside an O= directory's .config).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace foliolab {

struct ConfigRequest {
  std::string option;  // CONFIG_FOO
  std::string value;   // y, m, n, "string", 123
  std::string origin;  // fragment name or "experiment options", for messages
};

// Parses "CONFIG_FOO=y" and "# CONFIG_FOO is not set" (= "n"); other comments and blank lines
// are skipped; anything else is an error naming origin:line.
Result<std::vector<ConfigRequest>> parse_fragment(std::string_view text, const std::string& origin);

// Later requests for the same option replace earlier ones (the order fragments are given in).
std::vector<ConfigRequest> merge_requests(const std::vector<std::vector<ConfigRequest>>& fragments);

// Final values of a .config: option -> value ("n" for "is not set").
std::map<std::string, std::string> parse_dotconfig(std::string_view text);

// The options two .configs set differently, "CONFIG_X: y → n" sorted by option (an option one
// of them lacks is "n").
std::vector<std::string> config_difference(std::string_view a, std::string_view b);
// How many options two .configs set differently (an option one of them lacks counts as "n").
size_t config_distance(std::string_view a, std::string_view b);

// Rewrites a .config so that each request holds (replacing existing lines, appending others).
std::string apply_requests(std::string_view dotconfig, const std::vector<ConfigRequest>& requests);

struct ConfigMismatch {
  ConfigRequest request;
  std::string actual;  // "n" when absent or not set
};

std::vector<ConfigMismatch> verify_config(const std::vector<ConfigRequest>& requests,
                                          std::string_view final_dotconfig);

// "CONFIG_NUMA_EMU=y (from numa) ended up not set\n..." for an error message.
std::string describe_mismatches(const std::vector<ConfigMismatch>& mismatches);

// What decides the .config that `make tinyconfig` + the requests + `olddefconfig` produce, besides
// the requests, the arch and the compiler: every file named Kconfig*, the tiny fragments
// (tiny*.config), the kconfig tool (scripts/kconfig/), the shell probes Kconfig runs
// (scripts/*.sh) and the top Makefile. `rel` is relative to the tree's top.
bool is_kconfig_input(std::string_view rel);

// SHA-256 over the paths and contents of the tree's Kconfig inputs (skipping `.git` and the
// top-level folders whose names start with `skip_prefix`: foliolab's O= directories). Equal
// digests with equal requests, arch and compiler configure to the same .config, so a prefix of a
// series that touches only .c files reuses its O= directory's .config as it is (about 10 s of
// kconfig and syncconfig per bisection step on 2 cores).
Result<std::string> kconfig_inputs_digest(const std::filesystem::path& tree,
                                          std::string_view skip_prefix);

}  // namespace foliolab
