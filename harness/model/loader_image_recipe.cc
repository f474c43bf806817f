// The loader of Debian root filesystem recipes (model/image_recipe.h), in the experiment
// loader's error style.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "model/file_keys.h"
#include "model/image_recipe.h"
#include "model/loader_internal.h"
#include "util/text.h"

namespace foliolab {
namespace loader_internal {
namespace {

// A Debian package name (Debian Policy 5.6.1): lower-case letters, digits, + - . ; at least two
// characters, starting with a letter or digit.
bool valid_package_name(const std::string& name) {
  if (name.size() < 2 || !std::isalnum(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  });
}

}  // namespace

Result<void> Parser::parse_image_recipe(const YAML::Node& root, ImageRecipe* r) const {
  const Field top = YamlReader::root(root);
  const ValueType& table = file_keys::image_recipe();
  auto fields = read_map(top, &table.names());
  FL_TRY(fields);
  r->loc = loc(root);
  FL_TRY(require(*fields, top, table.required()));
  if (const Field* d = fields->find("description")) {
    auto text = read_scalar(*d, false);
    FL_TRY(text);
    r->description = *text;
  }
  if (const Field* s = fields->find("suite")) {
    auto suite = read_choice(*s, table.values_of("suite"), "suite");
    FL_TRY(suite);
    r->suite = *suite;
  }
  if (const Field* v = fields->find("variant")) {
    auto variant = read_choice(*v, table.values_of("variant"), "variant");
    FL_TRY(variant);
    r->variant = *variant;
  }
  FL_TRY(parse_recipe_packages(*fields->find("packages"), r));
  if (const Field* f = fields->find("files")) FL_TRY(parse_recipe_files(*f, r));
  if (const Field* c = fields->find("commands")) {
    auto items = read_list(*c, "must list at least one command, e.g. [[sed, -i, ...]]");
    FL_TRY(items);
    for (const Field& item : *items) {
      auto argv = read_argv(item, "a command: [program, arg, ...] or 'program arg ...'");
      FL_TRY(argv);
      r->commands.push_back(*argv);
    }
  }
  if (const Field* f = fields->find("free")) {
    auto mib = read_memory(*f);
    FL_TRY(mib);
    if (*mib < 16) return error(*f, "at least 16M: the image's applications write logs and data");
    r->free_mb = *mib;
  }
  return {};
}

Result<void> Parser::parse_recipe_packages(const Field& f, ImageRecipe* r) const {
  auto items = read_list(f, "must list at least one package, e.g. [redis-server]");
  FL_TRY(items);
  for (const Field& item : *items) {
    auto name = read_nonempty(item);
    FL_TRY(name);
    if (!valid_package_name(*name)) {
      return error(
          item, "'" + *name + "' is not a Debian package name (lower-case letters, digits, + - .)");
    }
    const auto dup = std::find(r->packages.begin(), r->packages.end(), *name);
    if (dup != r->packages.end()) {
      return error(item, "package '" + *name + "' listed twice" +
                             first_at(r->package_locs[dup - r->packages.begin()]));
    }
    r->packages.push_back(*name);
    r->package_locs.push_back(loc(item));
  }
  return {};
}

Result<void> Parser::parse_recipe_files(const Field& f, ImageRecipe* r) const {
  auto items = read_list(f, "must list at least one {from, to}");
  FL_TRY(items);
  for (const Field& item : *items) {
    auto fields = read_map(item, &file_keys::recipe_file().names());
    FL_TRY(fields);
    FL_TRY(require(*fields, item, file_keys::recipe_file().required()));
    ImageRecipe::File file{.loc = loc(item)};
    auto from = read_nonempty(*fields->find("from"));
    FL_TRY(from);
    const Field& to_field = *fields->find("to");
    auto to = read_nonempty(to_field);
    FL_TRY(to);
    const std::filesystem::path to_path(*to);
    if (!to_path.is_absolute() || to_path.lexically_normal() != to_path ||
        to_path.filename().empty()) {
      return error(to_field, "'" + *to + "' must be an absolute file path without . or ..");
    }
    file.from = *from;
    file.to = *to;
    r->files.push_back(std::move(file));
  }
  return {};
}

}  // namespace loader_internal

std::filesystem::path image_recipe_rel(const std::string& name) {
  return std::filesystem::path("images") / (name + ".yaml");
}

std::optional<Found> find_image_recipe(const SearchPath& names, const std::string& name) {
  return names.find(image_recipe_rel(name));
}

std::vector<std::string> image_recipe_names(const SearchPath& names) {
  return names.names("images", ".yaml");
}

namespace {

Result<ImageRecipe> recipe_from(const YAML::Node& root, const std::string& file_name) {
  return loader_internal::parse_document<ImageRecipe>(
      root, file_name, "image recipe",
      [&](const loader_internal::Parser& p) -> Result<ImageRecipe> {
        ImageRecipe r;
        r.file = file_name;
        r.name = std::filesystem::path(file_name).stem().string();
        FL_TRY(p.parse_image_recipe(root, &r));
        return r;
      });
}

}  // namespace

Result<ImageRecipe> parse_image_recipe(const std::string& yaml_text, const std::string& file_name) {
  auto root = parse_yaml(yaml_text, file_name, "image recipe");
  FL_TRY(root);
  return recipe_from(*root, file_name);
}

Result<ImageRecipe> load_image_recipe(const std::string& path) {
  auto root = load_yaml_file(path, "image recipe");
  FL_TRY(root);
  return recipe_from(*root, path);
}

}  // namespace foliolab
