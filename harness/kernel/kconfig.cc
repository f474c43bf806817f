#include "kernel/kconfig.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "util/hash.h"
#include "util/text.h"

namespace foliolab {
namespace {

const std::regex kSet(R"(^(CONFIG_[A-Za-z0-9_]+)=(.*)$)");
const std::regex kNotSet(R"(^# (CONFIG_[A-Za-z0-9_]+) is not set\s*$)");

// "" and "n" both mean "not set" in a final .config.
std::string normalized(const std::string& v) { return v.empty() ? "n" : v; }

}  // namespace

Result<std::vector<ConfigRequest>> parse_fragment(std::string_view text,
                                                  const std::string& origin) {
  std::vector<ConfigRequest> out;
  std::istringstream in{std::string(text)};
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    const std::string t(trim(line));
    std::smatch m;
    if (std::regex_match(t, m, kNotSet)) {
      out.push_back({m[1], "n", origin});
    } else if (std::regex_match(t, m, kSet)) {
      out.push_back({m[1], std::string(trim(m[2].str())), origin});
    } else if (!t.empty() && t[0] != '#') {
      return make_error(fmt::format("{}:{}: not a Kconfig line: {}", origin, lineno, t));
    }
  }
  return out;
}

std::vector<ConfigRequest> merge_requests(
    const std::vector<std::vector<ConfigRequest>>& fragments) {
  std::vector<ConfigRequest> merged;
  std::map<std::string, size_t> index;
  for (const auto& fragment : fragments) {
    for (const auto& req : fragment) {
      auto it = index.find(req.option);
      if (it == index.end()) {
        index[req.option] = merged.size();
        merged.push_back(req);
      } else {
        merged[it->second] = req;
      }
    }
  }
  return merged;
}

std::map<std::string, std::string> parse_dotconfig(std::string_view text) {
  std::map<std::string, std::string> values;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    const std::string t(trim(line));
    if (std::regex_match(t, m, kNotSet)) {
      values[m[1]] = "n";
    } else if (std::regex_match(t, m, kSet)) {
      values[m[1]] = m[2];
    }
  }
  return values;
}

std::vector<std::string> config_difference(std::string_view a, std::string_view b) {
  std::map<std::string, std::string> left = parse_dotconfig(a), right = parse_dotconfig(b);
  auto value = [](const std::map<std::string, std::string>& m, const std::string& option) {
    auto it = m.find(option);
    return it == m.end() ? std::string("n") : it->second;
  };
  std::map<std::string, std::string> differ;  // sorted by option
  for (const auto& [option, v] : left) {
    if (v != value(right, option))
      differ[option] = fmt::format("{}: {} → {}", option, v, value(right, option));
  }
  for (const auto& [option, v] : right) {
    if (!left.count(option) && v != "n") differ[option] = fmt::format("{}: n → {}", option, v);
  }
  std::vector<std::string> out;
  for (auto& [option, line] : differ) out.push_back(std::move(line));
  return out;
}

size_t config_distance(std::string_view a, std::string_view b) {
  return config_difference(a, b).size();
}

std::string apply_requests(std::string_view dotconfig, const std::vector<ConfigRequest>& requests) {
  std::map<std::string, const ConfigRequest*> wanted;
  for (const auto& r : requests) wanted[r.option] = &r;
  auto render = [](const ConfigRequest& r) {
    return r.value == "n" ? fmt::format("# {} is not set", r.option)
                          : fmt::format("{}={}", r.option, r.value);
  };
  std::ostringstream out;
  std::set<std::string> done;
  std::istringstream in{std::string(dotconfig)};
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    const std::string t(trim(line));
    std::string option;
    if (std::regex_match(t, m, kNotSet) || std::regex_match(t, m, kSet)) option = m[1];
    auto it = option.empty() ? wanted.end() : wanted.find(option);
    if (it == wanted.end()) {
      out << line << '\n';
    } else if (done.insert(option).second) {
      out << render(*it->second) << '\n';
    }
  }
  for (const auto& r : requests) {
    if (done.insert(r.option).second) out << render(r) << '\n';
  }
  return out.str();
}

std::vector<ConfigMismatch> verify_config(const std::vector<ConfigRequest>& requests,
                                          std::string_view final_dotconfig) {
  const auto values = parse_dotconfig(final_dotconfig);
  std::vector<ConfigMismatch> bad;
  for (const auto& r : requests) {
    auto it = values.find(r.option);
    const std::string actual = it == values.end() ? "n" : normalized(it->second);
    if (actual != normalized(r.value)) bad.push_back({r, actual});
  }
  return bad;
}

std::string describe_mismatches(const std::vector<ConfigMismatch>& mismatches) {
  std::string out;
  for (const auto& m : mismatches) {
    out +=
        fmt::format("  {}={} (from {}) ended up {}\n", m.request.option, m.request.value,
                    m.request.origin, m.actual == "n" ? std::string("not set") : "as " + m.actual);
  }
  return out;
}

bool is_kconfig_input(std::string_view rel) {
  const size_t slash = rel.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? rel : rel.substr(slash + 1);
  const std::string_view dir = slash == std::string_view::npos ? "" : rel.substr(0, slash);
  if (name.starts_with("Kconfig")) return true;
  if (name.starts_with("tiny") && name.ends_with(".config")) return true;
  if (rel.starts_with("scripts/kconfig/")) return true;
  if (dir == "scripts" && name.ends_with(".sh")) return true;
  return rel == "Makefile";
}

Result<std::string> kconfig_inputs_digest(const std::filesystem::path& tree,
                                          std::string_view skip_prefix) {
  namespace fs = std::filesystem;
  std::vector<std::string> inputs;
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(tree, ec);
  if (ec) return make_env_error(fmt::format("cannot read {}: {}", tree.string(), ec.message()));
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return make_env_error(fmt::format("cannot read {}: {}", tree.string(), ec.message()));
    const std::string name = it->path().filename().string();
    if (it->is_directory(ec)) {
      if (name == ".git" ||
          (it.depth() == 0 && !skip_prefix.empty() && name.starts_with(skip_prefix))) {
        it.disable_recursion_pending();
      }
      continue;
    }
    std::string rel = it->path().lexically_relative(tree).string();
    if (is_kconfig_input(rel)) inputs.push_back(std::move(rel));
  }
  std::sort(inputs.begin(), inputs.end());
  Hasher h;
  for (const std::string& rel : inputs) h.add(rel).add_file(tree / rel);
  return h.hex();
}

}  // namespace foliolab
