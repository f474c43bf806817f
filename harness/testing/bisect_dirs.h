// End-to-end bisection tests' helpers: a fresh directory per test, the bisection directory a
// call made, a JSON file as read (null when missing or damaged), a bisection killed mid-way.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <filesystem>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/fs.h"

namespace foliolab {

inline std::filesystem::path fresh_e2e_dir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("foliolab-e2e-{}-{}", name, getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// <results>/<experiment>/bisect-*: the one bisection a call made there.
inline std::optional<std::filesystem::path> bisection_dir(const std::filesystem::path& results,
                                                          const std::string& experiment) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(results / experiment, ec)) {
    if (e.path().filename().string().starts_with("bisect-")) return e.path();
  }
  return std::nullopt;
}

inline nlohmann::json json_file(const std::filesystem::path& file) {
  auto text = read_file(file);
  return text.ok() ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
}

// Waits until the bisection `cli` runs under <results>/<experiment> has logged `steps` steps,
// then kills it with SIGKILL and reaps it: its directory, or nullopt when it ended first (no
// deadline: ctest's timeout bounds it).
inline std::optional<std::filesystem::path> kill_after_steps(pid_t cli,
                                                             const std::filesystem::path& results,
                                                             const std::string& experiment,
                                                             size_t steps) {
  for (;;) {
    int status = 0;
    if (::waitpid(cli, &status, WNOHANG) == cli) return std::nullopt;
    if (auto d = bisection_dir(results, experiment)) {
      const nlohmann::json j = json_file(*d / "bisect.json");
      if (j.is_object() && j.contains("steps") && j["steps"].size() >= steps) {
        ::kill(cli, SIGKILL);
        ::waitpid(cli, &status, 0);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) return d;
        return std::nullopt;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace foliolab
