#include "cli/doctor_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/cli_util.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab::cli {
namespace {

void add_once(std::vector<std::string>* list, const std::string& package) {
  if (list->empty() || list->back() != package) list->push_back(package);
}

}  // namespace

DoctorReport check_programs(const std::vector<PackageEntry>& list,
                            const std::function<std::string(const std::string&)>& find) {
  DoctorReport r;
  r.table = fmt::format("{:<22} {:<24} {:<34} {}\n", "program", "package", "found", "needed by");
  for (const PackageEntry& e : list) {
    if (e.section != "run" && e.section != "recommends") continue;
    const bool needed = e.section == "run";
    for (const std::string& program : e.programs) {
      const std::string at = find(program);
      if (at.empty()) add_once(needed ? &r.missing : &r.optional, e.package);
      const std::string found = !at.empty() ? at : needed ? "MISSING" : "missing (optional)";
      r.table += fmt::format("{:<22} {:<24} {:<34} {}\n", program, e.package, found, e.why);
    }
  }
  return r;
}

std::function<int()> setup_doctor(CLI::App&) {
  return [] {
    const auto path = package_list_path(project_root());
    auto text = read_file(path);
    if (!text.ok()) {
      return fail(make_error("the package list " + path.string() + ": " + text.error().message),
                  kExitEnvironment);
    }
    auto list = parse_package_list(*text, path.string());
    if (!list.ok()) return fail(list.error(), kExitEnvironment);
    const DoctorReport r = check_programs(*list, find_program);
    fmt::print("{}", r.table);
    if (!r.optional.empty()) {
      fmt::print("optional: sudo apt-get install {}\n", fmt::join(r.optional, " "));
    }
    if (r.missing.empty()) {
      fmt::print("the main job can run: every program it needs is on PATH\n");
      return kExitOk;
    }
    fmt::print(stderr,
               "error: the main job cannot run without {}; install: sudo apt-get install {}\n",
               fmt::join(r.missing, ", "), fmt::join(r.missing, " "));
    return kExitEnvironment;
  };
}

}  // namespace foliolab::cli
