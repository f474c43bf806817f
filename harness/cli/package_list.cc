#include "cli/package_list.h"

#include <fmt/format.h>

#include <sstream>

#include "util/text.h"

namespace foliolab::cli {

Result<std::vector<PackageEntry>> parse_package_list(std::string_view text,
                                                     const std::string& file_name) {
  std::vector<PackageEntry> out;
  std::istringstream in{std::string(text)};
  std::string line, section;
  for (int number = 1; std::getline(in, line); ++number) {
    const size_t hash = line.find('#');
    const std::string why(
        hash == std::string::npos ? "" : trim(std::string_view(line).substr(hash + 1)));
    std::istringstream words(line.substr(0, hash));
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (w.empty()) continue;
    if (w[0].size() > 2 && w[0].front() == '[' && w[0].back() == ']') {
      section = w[0].substr(1, w[0].size() - 2);
      continue;
    }
    if (section.empty()) {
      return make_error(
          fmt::format("{}:{}: package '{}' before the first [section]", file_name, number, w[0]));
    }
    out.push_back({.section = section,
                   .package = w[0],
                   .programs = std::vector<std::string>(w.begin() + 1, w.end()),
                   .why = why,
                   .line = number});
  }
  return out;
}

std::filesystem::path package_list_path(const std::filesystem::path& root) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(root / "packages.txt", ec)) return root / "packages.txt";
  return root / "scripts" / "packages.txt";
}

}  // namespace foliolab::cli
