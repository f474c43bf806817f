#include "cli/cli_util.h"

#include "model/project.h"
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

void log_line(const std::string& s) { fmt::print(stderr, "{}\n", s); }

int fail(const Error& e, int code) {
  fmt::print(stderr, "error: {}\n", e.message);
  return e.kind == ErrorKind::kInput ? code : kExitEnvironment;
}

Result<void> write_output(const std::string& path,
                          const std::function<void(std::ostream&)>& write) {
  if (path.empty() || path == "-") {
    write(std::cout);
    std::cout.flush();
    return {};
  }
  std::ostringstream out;
  write(out);
  return write_file_atomic(path, out.str());
}

DataRoot find_data_root(const char* env, const std::filesystem::path& exe,
                        const std::filesystem::path& source) {
  namespace fs = std::filesystem;
  if (env && *env) return {fs::absolute(env), DataRootKind::kEnv};
  std::error_code ec;
  const fs::path installed = (exe.parent_path() / ".." / "share" / "foliolab").lexically_normal();
  if (exe.has_parent_path() && fs::is_directory(installed, ec)) {
    return {installed, DataRootKind::kInstalled};
  }
  return {source, DataRootKind::kSourceTree};
}

DataRoot data_root() {
  return find_data_root(std::getenv("FOLIOLAB_ROOT"), self_exe_path(), foliolab::source_dir());
}

std::filesystem::path data_dir() { return data_root().path; }

std::filesystem::path default_results_root() {
  std::error_code ec;
  if (auto project = find_project_marker(std::filesystem::current_path(ec))) {
    return *project / "results";
  }
  const DataRoot root = data_root();
  if (root.kind == DataRootKind::kInstalled) return std::filesystem::current_path() / "results";
  return root.path / "results";
}

std::filesystem::path self_exe_path() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("foliolab") : p;
}

}  // namespace foliolab::cli
