// `foliolab init DIR`: a project folder of the user's own (model/project.h): the foliolab.yaml
// marker, the quickstart experiment to start from, and empty patches/ and kernel-config/.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "util/result.h"

namespace CLI {
class App;
}

namespace foliolab::cli {

// "# yaml-language-server: $schema=<data root>/schema/KIND.json\n": the first line of a file
// init writes, so that an editor with yaml-language-server checks and completes its keys.
std::string schema_modeline(const std::filesystem::path& data_root, const std::string& kind);

// The files of a new project named `name` (relative path, content), the experiment copied from
// `data_root`/experiments/quickstart.yaml; each YAML file starts with its schema_modeline.
Result<std::vector<std::pair<std::filesystem::path, std::string>>> project_files(
    const std::filesystem::path& data_root, const std::string& name);

// Writes them under `dir` (created), refusing to overwrite any file there; the paths written.
Result<std::vector<std::filesystem::path>> init_project(const std::filesystem::path& dir,
                                                        const std::filesystem::path& data_root);

std::function<int()> setup_init(CLI::App& app);

}  // namespace foliolab::cli
