// `foliolab doctor`: every program foliolab runs, the Debian package it comes from and what
// needs it, from the one package list (cli/package_list.h); exit 3 naming the apt-get line when
// a program the main job needs is missing from PATH.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/package_list.h"

namespace CLI {
class App;
}

namespace foliolab::cli {

struct DoctorReport {
  std::string table;                  // program, package, found at / MISSING, what needs it
  std::vector<std::string> missing;   // [run] packages with a program not on PATH
  std::vector<std::string> optional;  // [recommends] packages likewise
};

// `find` looks a program up (find_program: PATH); only [run] and [recommends] entries count.
DoctorReport check_programs(const std::vector<PackageEntry>& list,
                            const std::function<std::string(const std::string&)>& find);

std::function<int()> setup_doctor(CLI::App& app);

}  // namespace foliolab::cli
