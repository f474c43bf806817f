#include "model/project.h"

#include <algorithm>
#include <system_error>

#include "model/file_keys.h"
#include "util/yaml_reader.h"

namespace foliolab {
namespace fs = std::filesystem;

std::optional<fs::path> find_project_marker(const fs::path& dir) {
  std::error_code ec;
  fs::path at = fs::absolute(dir, ec).lexically_normal();
  if (ec) return std::nullopt;
  while (true) {
    if (fs::is_regular_file(at / kProjectMarker, ec)) return at;
    if (!at.has_relative_path()) return std::nullopt;  // the file system's root
    fs::path up = at.parent_path();
    if (up == at) return std::nullopt;
    at = up;
  }
}

fs::path project_of(const fs::path& dir) {
  if (auto marked = find_project_marker(dir)) return *marked;
  std::error_code ec;
  return fs::absolute(dir, ec).lexically_normal();
}

Result<void> check_project_marker(const fs::path& file) {
  auto root = load_yaml_file(file.string(), "project file");
  FL_TRY(root);
  if (root->IsNull()) return {};
  const YamlReader reader(file.string());
  auto fields = reader.read_map(YamlReader::root(*root), &file_keys::project().names());
  FL_TRY(fields);
  if (const YamlField* name = fields->find("name")) FL_TRY(reader.read_nonempty(*name));
  return {};
}

SearchPath::SearchPath(const fs::path& project, const fs::path& data) {
  std::error_code ec;
  const fs::path d = fs::absolute(data, ec).lexically_normal();
  if (!project.empty()) {
    const fs::path p = fs::absolute(project, ec).lexically_normal();
    if (p != d) places_.push_back({p, "project"});
  }
  places_.push_back({d, "foliolab"});
}

std::optional<Found> SearchPath::find(const fs::path& rel) const {
  std::error_code ec;
  for (const Place& p : places_) {
    const fs::path candidate = p.dir / rel;
    if (fs::exists(candidate, ec)) return Found{candidate, p.origin};
  }
  return std::nullopt;
}

std::string SearchPath::searched(const fs::path& rel) const {
  std::string out;
  for (const Place& p : places_) {
    if (!out.empty()) out += " or ";
    out += (p.dir / rel).string();
  }
  return out;
}

std::vector<std::string> SearchPath::names(const std::string& room,
                                           const std::string& suffix) const {
  std::vector<std::string> out;
  for (const Place& p : places_) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(p.dir / room, ec)) {
      const std::string name = e.path().filename().string();
      if (name.size() <= suffix.size() ||
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        continue;
      }
      if (name.rfind("README", 0) == 0) continue;
      out.push_back(name.substr(0, name.size() - suffix.size()));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace foliolab
