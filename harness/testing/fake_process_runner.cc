#include "testing/fake_process_runner.h"

#include <algorithm>

namespace foliolab {

FakeProcessRunner& FakeProcessRunner::on(Match match, Reply reply) {
  scripts_.push_back({std::move(match), std::move(reply)});
  return *this;
}

FakeProcessRunner& FakeProcessRunner::version(std::string first_line) {
  return on([](const std::vector<std::string>& a) { return a.size() == 2 && a[1] == "--version"; },
            [line = std::move(first_line)](const ProcessSpec&) { return ok(line + "\n"); });
}

ProcessResult FakeProcessRunner::run(const ProcessSpec& spec) {
  specs.push_back(spec);
  for (const auto& s : scripts_) {
    if (!spec.argv.empty() && s.match(spec.argv)) {
      played.push_back(spec.argv);
      return s.reply(spec);
    }
  }
  return real_.run(spec);
}

size_t FakeProcessRunner::count(std::string_view name) const {
  return std::count_if(specs.begin(), specs.end(), [name](const ProcessSpec& s) {
    return !s.argv.empty() && s.argv[0] == name;
  });
}

FakeProcessRunner::Match FakeProcessRunner::program(std::string name) {
  return [name = std::move(name)](const std::vector<std::string>& a) { return a[0] == name; };
}

FakeProcessRunner::Match FakeProcessRunner::program_suffix(std::string tail) {
  return
      [tail = std::move(tail)](const std::vector<std::string>& a) { return a[0].ends_with(tail); };
}

ProcessResult FakeProcessRunner::ok(std::string output) {
  ProcessResult r;
  r.exit_code = 0;
  r.output = std::move(output);
  return r;
}

std::string arg_value(const std::vector<std::string>& argv, std::string_view key) {
  for (const auto& a : argv) {
    if (a.size() >= key.size() && std::string_view(a).substr(0, key.size()) == key) {
      return a.substr(key.size());
    }
  }
  return "";
}

}  // namespace foliolab
