// scripts/packages.txt, the one list of the Debian packages foliolab needs (installed as
// share/foliolab/packages.txt): what scripts/setup.sh installs, the .deb's Depends and
// Recommends (cmake/install.cmake), and the table of `foliolab doctor`.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace foliolab::cli {

// One line `package [program ...]  # what needs it` of section `[section]`.
struct PackageEntry {
  std::string section;  // build, run, recommends, test
  std::string package;
  std::vector<std::string> programs;  // those foliolab runs from it; may be empty (a library)
  std::string why;
  int line = 0;
};

// Every entry, in file order; a line before the first section is an error naming file:line.
Result<std::vector<PackageEntry>> parse_package_list(std::string_view text,
                                                     const std::string& file_name);
// <root>/packages.txt (installed) or <root>/scripts/packages.txt (a source tree).
std::filesystem::path package_list_path(const std::filesystem::path& root);

}  // namespace foliolab::cli
