#include "results/session_ref.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "results/store.h"
#include "util/file_lock.h"
#include "util/fs.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

Result<std::map<std::string, std::string>> read_tags(const fs::path& root) {
  std::map<std::string, std::string> tags;
  const fs::path file = root / "tags.json";
  std::error_code ec;
  if (!fs::exists(file, ec)) return tags;
  auto text = read_file(file);
  if (!text.ok()) return text.error();
  const json j = json::parse(*text, nullptr, false);
  if (!j.is_object() || j.value("schema", 0) != kTagsSchema || !j.contains("tags") ||
      !j["tags"].is_object()) {
    return make_error(fmt::format("{}: not a schema-{} tags file", file.string(), kTagsSchema));
  }
  for (const auto& [name, path] : j["tags"].items()) {
    if (path.is_string()) tags[name] = path.get<std::string>();
  }
  return tags;
}

Result<void> tag_session(const fs::path& root, const fs::path& session_dir,
                         const std::string& name) {
  if (!is_word(name, "._-")) {
    return make_error(fmt::format("tag '{}': use letters, digits, '.', '_' and '-'", name));
  }
  auto store = ResultStore::open(session_dir);
  if (!store.ok()) return store.error();
  std::error_code ec;
  const fs::path canon_root = fs::weakly_canonical(root, ec);
  const std::string rel = store->dir().lexically_relative(canon_root).generic_string();
  if (rel.empty() || rel.starts_with("..")) {
    return make_error(fmt::format("{} is not under the results root {}", store->dir().string(),
                                  canon_root.string()));
  }
  FileLock lock(root / ".tags.lock");
  auto tags = read_tags(root);
  if (!tags.ok()) return tags.error();
  (*tags)[name] = rel;
  return write_file_atomic(root / "tags.json",
                           json{{"schema", kTagsSchema}, {"tags", *tags}}.dump(2) + "\n");
}

Result<fs::path> resolve_session(std::string_view ref, const fs::path& root,
                                 const std::string& experiment) {
  if (ref == "latest") {
    auto latest = ResultStore::latest(root, experiment);
    if (!latest) {
      return make_error(
          fmt::format("no session of experiment '{}' under {}", experiment, root.string()));
    }
    return *latest;
  }
  if (ref.starts_with("tag:")) {
    const std::string name(ref.substr(4));
    auto tags = read_tags(root);
    if (!tags.ok()) return tags.error();
    auto it = tags->find(name);
    if (it == tags->end()) {
      std::vector<std::string> names;
      for (const auto& [n, _] : *tags) names.push_back(n);
      return make_error(fmt::format("no baseline tagged '{}' under {}{}", name, root.string(),
                                    did_you_mean(name, names)));
    }
    return root / it->second;
  }
  const fs::path dir(ref);
  if (auto st = ResultStore::open(dir); !st.ok()) return st.error();
  return dir;
}

}  // namespace foliolab
