#include "cli/init_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <system_error>

#include "cli/cli_util.h"
#include "cli/schema_command.h"
#include "model/project.h"
#include "util/fs.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

std::string schema_modeline(const fs::path& data_root, const std::string& kind) {
  std::error_code ec;
  const fs::path root = fs::absolute(data_root, ec).lexically_normal();
  return "# yaml-language-server: $schema=" + schema_file(root, kind).string() + "\n";
}

Result<std::vector<std::pair<fs::path, std::string>>> project_files(const fs::path& data_root,
                                                                    const std::string& name) {
  const fs::path quickstart = data_root / "experiments" / "quickstart.yaml";
  auto experiment = read_file(quickstart);
  if (!experiment.ok()) {
    return make_error("the quickstart experiment " + quickstart.string() + ": " +
                      experiment.error().message);
  }
  return std::vector<std::pair<fs::path, std::string>>{
      {kProjectMarker,
       schema_modeline(data_root, "project") +
           fmt::format("# A foliolab project: names in its experiments (patch series, config "
                       "fragments, image\n# recipes) are looked up here first, then in "
                       "foliolab's data. See foliolab(1).\nname: {}\n",
                       name)},
      {"experiments/quickstart.yaml", schema_modeline(data_root, "experiment") + *experiment},
      {"patches/README",
       "Patch series: a folder per series (quilt `series` file or git format-patch output) or "
       "an mbox file; name it in an experiment as `patches: NAME`.\n"},
      {"kernel-config/README",
       "Config fragments: NAME.config (CONFIG_X=y lines); name them in an experiment as "
       "`config: [NAME]`.\n"},
  };
}

Result<std::vector<fs::path>> init_project(const fs::path& dir, const fs::path& data_root) {
  std::error_code ec;
  const fs::path abs = fs::absolute(dir, ec).lexically_normal();
  std::string name = abs.filename().string();
  if (name.empty()) name = abs.parent_path().filename().string();
  auto files = project_files(data_root, name);
  FL_TRY(files);
  for (const auto& [rel, text] : *files) {
    if (fs::exists(abs / rel, ec)) {
      return make_error((abs / rel).string() +
                        " exists: init writes a new project and "
                        "overwrites nothing");
    }
  }
  std::vector<fs::path> written;
  for (const auto& [rel, text] : *files) {
    FL_TRY(write_file_atomic(abs / rel, text));
    written.push_back(abs / rel);
  }
  return written;
}

std::function<int()> setup_init(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto root = std::make_shared<std::string>(data_dir().string());
  app.add_option("dir", *dir, "the project folder to make (created)")->required();
  app.add_option("--root", *root, "foliolab's data, whose quickstart the project starts from");
  return [=] {
    auto written = init_project(*dir, *root);
    if (!written.ok()) return fail(written.error());
    for (const fs::path& p : *written) fmt::print("wrote {}\n", p.string());
    fmt::print("next: cd {} && foliolab plan experiments/quickstart.yaml\n", *dir);
    return kExitOk;
  };
}

}  // namespace foliolab::cli
