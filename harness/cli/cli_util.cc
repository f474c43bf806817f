#include "cli/cli_util.h"
#include "util/build_info.h"

#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "util/fs.h"

namespace foliolab::cli {

int exit_code_for(const Error& e) {
  return e.kind == ErrorKind::kInput ? kExitBadInput : kExitEnvironment;
}

int fail(const Error& e, int code) {
  fmt::print(stderr, "error: {}\n", e.message);
  return e.kind == ErrorKind::kInput ? code : kExitEnvironment;
}

Status write_output(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty() || path == "-") {
    write(std::cout);
    std::cout.flush();
    return {};
  }
  std::ostringstream out;
  write(out);
  return write_file_atomic(path, out.str());
}

std::filesystem::path project_root() {
  if (const char* r = std::getenv("FOLIOLAB_ROOT"); r && *r) return std::filesystem::absolute(r);
  return foliolab::source_dir();
}

std::filesystem::path default_results_root() { return project_root() / "results"; }

std::filesystem::path self_exe_path() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("foliolab") : p;
}

}  // namespace foliolab::cli
