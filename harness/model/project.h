// Projects: a folder of the user's own that holds their experiments and the files those name.
//
// The project of an experiment is the nearest folder, from the experiment file's own folder up,
// that holds a `foliolab.yaml` marker; without one, the experiment's folder itself. The names an
// experiment gives (a patch series under patches/, a config fragment under kernel-config/, an
// image recipe under images/) are looked up in the project first, then in foliolab's data
// folder (the installed share/foliolab, the source tree, or --root / FOLIOLAB_ROOT).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace foliolab {

constexpr const char* kProjectMarker = "foliolab.yaml";

// The folder holding foliolab.yaml nearest to `dir` (dir itself or an ancestor), if any.
std::optional<std::filesystem::path> find_project_marker(const std::filesystem::path& dir);

// The project of an experiment in `dir`: find_project_marker(dir), else `dir`.
std::filesystem::path project_of(const std::filesystem::path& dir);

// Checks a foliolab.yaml: empty, or a map whose only key is `name` (a located error otherwise).
Result<void> check_project_marker(const std::filesystem::path& file);

// Where a name is found: the file or folder and which place it came from.
struct Found {
  std::filesystem::path path;
  std::string origin;  // "project" or "foliolab"
};

// The folders a name is looked up in, first match wins.
class SearchPath {
 public:
  struct Place {
    std::filesystem::path dir;
    std::string origin;
  };
  SearchPath() = default;
  // `project` (may be empty: no project) before `data`; one place when they are the same.
  SearchPath(const std::filesystem::path& project, const std::filesystem::path& data);

  // The first place holding `rel` (e.g. "patches/mthp-vmstat").
  std::optional<Found> find(const std::filesystem::path& rel) const;
  // Where `rel` was looked for: "/p/patches/x or /usr/share/foliolab/patches/x".
  std::string searched(const std::filesystem::path& rel) const;
  // The names in every place's `room` whose file name ends with `suffix` (suffix removed),
  // sorted and unique: what a did-you-mean can offer.
  std::vector<std::string> names(const std::string& room, const std::string& suffix) const;
  const std::vector<Place>& places() const { return places_; }

 private:
  std::vector<Place> places_;
};

}  // namespace foliolab
