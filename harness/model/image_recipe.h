// A Debian root filesystem recipe (images/<name>.yaml): what `machine.image: <name>` boots. Read
// with the experiment loader's error style (file:line:col, did-you-mean); built by
// image/rootfs_builder.h with mmdebstrap from the Debian archive into an ext4 disk.
//
//   description: redis 7.0 and stress, for seed 002 and Arif's underused-THP table
//   suite: bookworm                  # bookworm (default); the archive the host's apt reaches
//   variant: minbase                 # mmdebstrap's: essential, apt, required, minbase, ...
//   packages: [redis-server, redis-tools, stress]
//   files:                           # host files (relative to images/) copied in
//     - {from: files/redis.conf, to: /etc/foliolab/redis.conf}
//   commands:                        # argv lists run inside the image (chroot) at build time
//     - [sed, -i, s/^bind .*/bind 127.0.0.1/, /etc/redis/redis.conf]
//   free: 256M                       # free space on the disk beyond its files (default 256M)
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/experiment.h"
#include "model/project.h"
#include "util/result.h"

namespace foliolab {

struct ImageRecipe {
  std::string name;  // the file's stem: images/<name>.yaml
  std::string file;  // path as read
  std::string description;
  std::string suite = "bookworm";
  std::string variant = "minbase";
  std::vector<std::string> packages;
  struct File {
    std::string from;  // relative to the recipe's folder (or absolute)
    std::string to;    // absolute path inside the image
    SourceLoc loc;
  };
  std::vector<File> files;
  std::vector<std::vector<std::string>> commands;
  uint64_t free_mb = 256;
  SourceLoc loc;
  std::vector<SourceLoc> package_locs;  // parallel to `packages`
};

// `images/<name>.yaml`, where a recipe named `name` is in a project or foliolab's data.
std::filesystem::path image_recipe_rel(const std::string& name);
// The recipe file of `name`: the project's, else foliolab's (model/project.h).
std::optional<Found> find_image_recipe(const SearchPath& names, const std::string& name);
// The recipes under images/ of every place (their names, sorted, unique).
std::vector<std::string> image_recipe_names(const SearchPath& names);

Result<ImageRecipe> load_image_recipe(const std::string& path);
Result<ImageRecipe> parse_image_recipe(const std::string& yaml_text, const std::string& file_name);

}  // namespace foliolab
