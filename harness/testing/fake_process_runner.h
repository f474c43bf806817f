// Test helper: a ProcessRunner that plays the programs a test names (tuxmake's trick) and runs
// every other command for real (patch, cp, git, tar). A script is a predicate on the argv and
// a reply; the first script whose predicate matches answers. Every ProcessSpec it is given is
// recorded, played or not.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/process.h"

namespace foliolab {

class FakeProcessRunner : public ProcessRunner {
 public:
  using Match = std::function<bool(const std::vector<std::string>& argv)>;
  using Reply = std::function<ProcessResult(const ProcessSpec& spec)>;

  // `reply` answers the commands `match` accepts (scripts added earlier win).
  FakeProcessRunner& on(Match match, Reply reply);
  // `<program> --version` prints `first_line`.
  FakeProcessRunner& version(std::string first_line);

  ProcessResult run(const ProcessSpec& spec) override;

  // Every spec run() was given, in order.
  std::vector<ProcessSpec> specs;
  // The argvs of those a script answered, in order.
  std::vector<std::vector<std::string>> played;
  // How many specs run() was given for `name` (argv[0] == name), played or run for real.
  size_t count(std::string_view name) const;

  // Matchers.
  static Match program(std::string name);         // argv[0] == name
  static Match program_suffix(std::string tail);  // argv[0] ends with tail ("gcc")
  // A successful reply with `output`.
  static ProcessResult ok(std::string output = "");

 private:
  struct Script {
    Match match;
    Reply reply;
  };
  std::vector<Script> scripts_;
  RealProcessRunner real_;
};

// The value of a `KEY=value` argument ("O=" -> the object directory), or "".
std::string arg_value(const std::vector<std::string>& argv, std::string_view key);

}  // namespace foliolab
