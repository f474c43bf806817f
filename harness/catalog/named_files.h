// The files an experiment names by name or path, and where each was found: `plan` prints them,
// so a user sees whether a series or fragment came from their project or from foliolab's data.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "model/experiment.h"

namespace foliolab {

struct NamedFile {
  std::string what;  // "series", "fragment", "recipe", "source", "kernel source"
  std::string name;  // as the experiment gives it
  std::filesystem::path path;
  // "project", "foliolab" (the data folder), "experiment" (a path relative to the experiment
  // file), or "missing".
  std::string origin;
};

// Every series, config fragment (the base ones too: a project may shadow them), image recipe,
// custom workload source and kernel source of `exp`, in experiment order, each once.
std::vector<NamedFile> named_files(const Experiment& exp, const std::filesystem::path& data_root);

// "files:" and one aligned line per file (what, name, origin, path); "" for none.
std::string format_named_files(const std::vector<NamedFile>& files);

}  // namespace foliolab
