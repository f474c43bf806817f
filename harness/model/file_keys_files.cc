// The key tables of image recipes, known-issues files and foliolab.yaml, and the file kinds
// `foliolab schema` prints.
#include <string>
#include <vector>

#include "model/file_keys.h"

namespace foliolab::file_keys {

using T = ValueType;

const std::vector<FileKind>& file_kinds() {
  static const std::vector<FileKind> k = {
      {"experiment", "foliolab experiment", experiment},
      {"recipe", "foliolab image recipe", image_recipe},
      {"known-issues", "foliolab known-issues file", known_issues_file},
      {"project", "foliolab project (foliolab.yaml)", project},
  };
  return k;
}

const FileKind* find_file_kind(const std::string& name) {
  for (const FileKind& k : file_kinds()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

const ValueType& image_recipe() {
  static const T t = T::map(
      "a Debian root filesystem recipe (images/NAME.yaml)",
      {
          key("description", T::text("what the image is for")),
          // Debian's archive as this host reaches it: bookworm's -updates and -security come
          // with the suite.
          key("suite", T::choice("the Debian suite", {"bookworm"})),
          key("variant",
              T::choice("mmdebstrap's variant", {"essential", "apt", "required", "minbase",
                                                 "buildd", "important", "standard"})),
          required_key("packages",
                       T::list("Debian packages to install",
                               T::string("a package name", "^[a-z0-9][a-z0-9+.-]+$"), 1)),
          key("files", T::list("files copied into the image", recipe_file(), 1)),
          key("commands", T::list("commands run in the image (chroot)",
                                  T::one_of("a command", {T::string("program and arguments"),
                                                          T::list("program and arguments",
                                                                  T::string("an argument"), 1)}),
                                  1)),
          key("free", T::size("free space in the image, at least 16M")),
      });
  return t;
}

const ValueType& recipe_file() {
  static const T t = T::map("a file copied into the image",
                            {required_key("from", T::string("relative to the recipe's folder")),
                             required_key("to", T::string("an absolute path in the image", "^/"))});
  return t;
}

const ValueType& known_issues_file() {
  static const T t =
      T::map("a known-issues file: gate failures that are expected until they expire",
             {required_key("known_issues", T::list("the known issues", known_issue()))});
  return t;
}

const std::vector<std::string>& known_effects() {
  static const std::vector<std::string> k = {"regressed", "value", "flaky"};
  return k;
}

const ValueType& known_issue() {
  static const T t =
      T::map("a known issue: the runs and metric it covers, its effect, where it is tracked",
             {
                 required_key("id", T::string("a unique id")),
                 key("runs", selector()),
                 required_key("metric", T::string("a metric")),
                 key("regressed", T::percent("regresses by at most: <= 8%", "<=")),
                 key("value", T::number("the metric's expected value")),
                 key("flaky", T::boolean("fails now and then (true)")),
                 required_key("url", T::string("where the issue is tracked")),
                 required_key("expires", T::date("YYYY-MM-DD: after it the issue fails again")),
             })
          .with_exactly_one(known_effects());
  return t;
}

const ValueType& project() {
  static const T t = T::map("a foliolab project's marker (foliolab init makes one)",
                            {key("name", T::string("the project's name"))})
                         .or_null();
  return t;
}

}  // namespace foliolab::file_keys
