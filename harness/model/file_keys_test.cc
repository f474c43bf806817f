// The key tables against the loaders: every key of every table is in a fixture the loader
// accepts (testdata/every_key/), the loader refuses a key the table lacks at every map the
// fixtures reach, the committed schema/ is what the tables make, and the JSON Schema says what
// the tables say.
#include "model/file_keys.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "model/image_recipe.h"
#include "model/json_schema.h"
#include "model/known_issue.h"
#include "model/loader.h"
#include "model/project.h"
#include "testing/source_root.h"
#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/yaml_reader.h"

namespace foliolab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using Kind = ValueType::Kind;

const fs::path kEveryKeyDir = kSourceRoot / "harness/model/testdata/every_key";

// The fixture of each file kind, and its loader.
struct KindFixture {
  std::string kind;
  std::string file;
  std::function<Result<void>(const std::string& text)> load;
};

// `parse(text, file)`, its value dropped.
template <class Parse>
std::function<Result<void>(const std::string&)> parsed_by(Parse parse, std::string file) {
  return [=](const std::string& text) -> Result<void> {
    auto r = parse(text, file);
    FL_TRY(r);
    return {};
  };
}

std::vector<KindFixture> kind_fixtures() {
  return {
      {"experiment", "experiment.yaml", parsed_by(parse_experiment, "experiment.yaml")},
      {"known-issues", "known-issues.yaml", parsed_by(parse_known_issues, "known-issues.yaml")},
      {"recipe", "recipe.yaml", parsed_by(parse_image_recipe, "recipe.yaml")},
      {"project", "foliolab.yaml",
       [](const std::string& text) -> Result<void> {
         ScopedTestDir dir("foliolab-project-keys");
         FL_TRY(write_file_atomic(dir / "foliolab.yaml", text));
         return check_project_marker(dir / "foliolab.yaml");
       }},
  };
}

// A fixed-key map of a document (its path and node) a table describes.
struct TableMap {
  std::string path;
  YAML::Node node;
};

// Walks `node` along `t`: records every table key the document gives and every map whose keys
// the table fixes.
void walk(const ValueType& t, const YAML::Node& node, const std::string& path,
          std::set<const KeySpec*>* given, std::vector<TableMap>* maps) {
  if (t.kind == Kind::kList && node.IsSequence()) {
    for (size_t i = 0; i < node.size(); ++i) {
      walk(*t.item, node[i], yaml_index_path(path, i), given, maps);
    }
  } else if (t.kind == Kind::kOneOf) {
    for (const ValueType& a : t.alternatives) walk(a, node, path, given, maps);
  } else if (t.kind == Kind::kMap && node.IsMap()) {
    if (!t.extra) maps->push_back({path, node});
    for (const auto& kv : node) {
      const std::string name = kv.first.Scalar();
      const std::string child = yaml_key_path(path, name);
      if (const KeySpec* k = t.key(name)) {
        given->insert(k);
        walk(k->type, kv.second, child, given, maps);
      } else if (t.extra) {
        walk(*t.extra, kv.second, child, given, maps);
      }
    }
  }
}

// Every key of `t` with its path ("machine.numa.nodes[].cpus").
void all_keys(const ValueType& t, const std::string& path,
              std::vector<std::pair<std::string, const KeySpec*>>* out) {
  if (t.kind == Kind::kList) all_keys(*t.item, path + "[]", out);
  for (const ValueType& a : t.alternatives) all_keys(a, path, out);
  if (t.extra) all_keys(*t.extra, yaml_key_path(path, "*"), out);
  for (const KeySpec& k : t.keys) {
    out->emplace_back(yaml_key_path(path, k.name), &k);
    all_keys(k.type, yaml_key_path(path, k.name), out);
  }
}

std::string fixture_text(const KindFixture& f) {
  auto text = read_file(kEveryKeyDir / f.file);
  EXPECT_TRUE(text.ok()) << (kEveryKeyDir / f.file);
  return text.ok() ? *text : "";
}

TEST(FileKeys, EveryKeyOfEveryTableIsInAFixtureTheLoaderAccepts) {
  for (const KindFixture& f : kind_fixtures()) {
    const std::string text = fixture_text(f);
    auto loaded = f.load(text);
    ASSERT_TRUE(loaded.ok()) << f.file << ": " << loaded.error().message;
    const ValueType& table = file_keys::find_file_kind(f.kind)->table();
    std::set<const KeySpec*> given;
    std::vector<TableMap> maps;
    walk(table, YAML::Load(text), "", &given, &maps);
    std::vector<std::pair<std::string, const KeySpec*>> keys;
    all_keys(table, "", &keys);
    EXPECT_GT(keys.size(), 0u) << f.kind;
    for (const auto& [path, key] : keys) {
      EXPECT_TRUE(given.count(key)) << f.file << " gives no " << path;
    }
  }
}

TEST(FileKeys, TheLoaderRefusesAKeyTheTableLacksAtEveryMap) {
  size_t checked = 0;
  for (const KindFixture& f : kind_fixtures()) {
    const YAML::Node root = YAML::Load(fixture_text(f));
    std::set<const KeySpec*> given;
    std::vector<TableMap> maps;
    walk(file_keys::find_file_kind(f.kind)->table(), root, "", &given, &maps);
    for (TableMap& m : maps) {
      m.node["nosuch_key"] = 1;
      YAML::Emitter out;
      out << root;
      auto loaded = f.load(out.c_str());
      m.node.remove("nosuch_key");
      ++checked;
      ASSERT_FALSE(loaded.ok()) << f.file << ": " << m.path << " took nosuch_key";
      EXPECT_THAT(loaded.error().message,
                  HasSubstr(yaml_key_path(m.path, "nosuch_key") + ": unknown key"));
    }
  }
  EXPECT_GT(checked, 40u);  // top, machine, numa, kernels, workloads, expect, gate, ...
}

TEST(FileKeys, TheCommittedSchemasAreWhatTheTablesMake) {
  for (const file_keys::FileKind& k : file_keys::file_kinds()) {
    const fs::path committed = kSourceRoot / "schema" / (k.name + ".json");
    auto text = read_file(committed);
    ASSERT_TRUE(text.ok()) << committed;
    EXPECT_TRUE(*text == json_schema(k))
        << committed << " is not what the tables make: run `foliolab schema --out schema`";
  }
}

TEST(JsonSchema, AMapIsClosedUnlessItsValuesAreFreeForm) {
  const auto machine = nlohmann::json::parse(json_schema_of(file_keys::machine()));
  EXPECT_EQ(machine["additionalProperties"], false);
  EXPECT_EQ(machine["properties"].size(), file_keys::machine().names().size());
  EXPECT_EQ(machine["properties"]["cpus"]["anyOf"][0]["type"], "integer");
  // a quoted "2" is 2 to the loader, so the schema takes it too
  EXPECT_EQ(machine["properties"]["cpus"]["anyOf"][1]["type"], "string");
  EXPECT_EQ(machine["properties"]["memory"]["type"], nlohmann::json({"string", "integer"}));
  EXPECT_EQ(machine["properties"]["accel"]["enum"], nlohmann::json({"auto", "kvm", "tcg"}));
  const auto knobs = nlohmann::json::parse(json_schema_of(file_keys::knob_set()));
  EXPECT_EQ(knobs["type"], nlohmann::json({"object", "null"}));
  EXPECT_EQ(knobs["additionalProperties"]["type"], nlohmann::json({"string", "number", "boolean"}));
  const auto top = nlohmann::json::parse(json_schema(*file_keys::find_file_kind("experiment")));
  EXPECT_EQ(top["$schema"], kJsonSchemaDraft);
  EXPECT_EQ(top["required"], nlohmann::json(file_keys::experiment().required()));
  const auto expect = nlohmann::json::parse(json_schema_of(file_keys::expectation()));
  EXPECT_EQ(expect["oneOf"].size(), file_keys::comparison_keys().size());
}

TEST(FileKeys, TheFileKindsAreTheFourFilesFoliolabReads) {
  std::vector<std::string> names;
  for (const file_keys::FileKind& k : file_keys::file_kinds()) names.push_back(k.name);
  EXPECT_THAT(names, ::testing::ElementsAre("experiment", "recipe", "known-issues", "project"));
  EXPECT_EQ(file_keys::find_file_kind("nosuch"), nullptr);
}

}  // namespace
}  // namespace foliolab
