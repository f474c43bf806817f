// `foliolab schema` as an editor uses it: the schema the binary prints validates every
// experiment, example, image recipe and project file in the tree (python3-jsonschema, YAML 1.2
// types), and structural mistakes at each level fail both the schema and the loader.
#include "cli/schema_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cli/init_command.h"
#include "model/image_recipe.h"
#include "model/known_issue.h"
#include "model/loader.h"
#include "testing/cli_binary.h"
#include "testing/schema_check.h"
#include "testing/source_root.h"
#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// `foliolab schema KIND` written to DIR/KIND.json.
fs::path printed_schema(const ScopedTestDir& dir, const std::string& kind) {
  RealProcessRunner proc;
  const ProcessResult r = proc.run({.argv = {cli_binary(), "schema", kind},
                                    .capture = true,
                                    .timeout = std::chrono::seconds(60)});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const fs::path file = dir / (kind + ".json");
  EXPECT_TRUE(write_file_atomic(file, r.output).ok());
  return file;
}

// The tree's YAML files of one kind (relative to the source root) under `folders`.
std::vector<std::string> tree_yaml(const std::vector<std::string>& folders,
                                   const std::function<bool(const fs::path&)>& take) {
  std::vector<std::string> out;
  for (const std::string& folder : folders) {
    for (const auto& e : fs::recursive_directory_iterator(kSourceRoot / folder)) {
      const fs::path rel = fs::relative(e.path(), kSourceRoot);
      if (e.is_regular_file() && rel.extension() == ".yaml" && take(rel)) out.push_back(rel);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool is_known_issues(const fs::path& p) { return p.filename().string().starts_with("known"); }

std::vector<std::pair<std::string, YAML::Node>> documents(const std::vector<std::string>& files) {
  std::vector<std::pair<std::string, YAML::Node>> docs;
  for (const std::string& rel : files) docs.emplace_back(rel, YAML::LoadFile(kSourceRoot / rel));
  return docs;
}

void expect_all_valid(const fs::path& schema,
                      const std::vector<std::pair<std::string, YAML::Node>>& docs) {
  ASSERT_FALSE(docs.empty()) << schema;
  const SchemaVerdicts v = validate_with_schema(schema, docs);
  ASSERT_EQ(v.failure, "");
  for (const auto& [name, errors] : v.errors) {
    EXPECT_THAT(errors, ::testing::IsEmpty()) << name << " against " << schema.filename();
  }
}

TEST(SchemaCommand, TheSchemasValidateEveryFileOfTheirKindInTheTree) {
  ScopedTestDir dir("foliolab-schema-tree");
  const auto experiments = tree_yaml({"experiments", "examples", "bench"},
                                     [](const fs::path& p) { return !is_known_issues(p); });
  EXPECT_GE(experiments.size(), 20u);
  for (const std::string& rel : experiments) {
    auto e = load_experiment((kSourceRoot / rel).string());
    EXPECT_TRUE(e.ok()) << e.error().message;  // the loader takes them too
  }
  auto experiment_docs = documents(experiments);
  experiment_docs.emplace_back("every_key/experiment.yaml",
                               YAML::LoadFile(kSourceRoot / "harness/model/testdata/every_key/"
                                                            "experiment.yaml"));
  auto made = project_files(kSourceRoot, "mine");  // what `foliolab init` writes
  ASSERT_TRUE(made.ok());
  experiment_docs.emplace_back("init/quickstart.yaml", YAML::Load((*made)[1].second));
  expect_all_valid(printed_schema(dir, "experiment"), experiment_docs);
  auto issues = documents(tree_yaml({"examples"}, is_known_issues));
  issues.emplace_back("every_key/known-issues.yaml",
                      YAML::LoadFile(kSourceRoot / "harness/model/testdata/every_key/"
                                                   "known-issues.yaml"));
  expect_all_valid(printed_schema(dir, "known-issues"), issues);
  auto recipes = documents(tree_yaml({"images"}, [](const fs::path&) { return true; }));
  expect_all_valid(printed_schema(dir, "recipe"), recipes);
  expect_all_valid(printed_schema(dir, "project"),
                   {{"init/foliolab.yaml", YAML::Load((*made)[0].second)},
                    {"empty foliolab.yaml", YAML::Load("")}});
}

// A mistake made to the quickstart experiment at one place; `loader_says`, when given, is what
// the loader's error holds (a rule between keys, refused for that rule and not another).
struct Mistake {
  std::string what;
  std::function<void(YAML::Node&)> make;
  std::string loader_says;
};

// The quickstart's prepare steps set to `steps` (YAML).
std::function<void(YAML::Node&)> prepare(const std::string& steps) {
  return [steps](YAML::Node& e) { e["prepare"] = YAML::Load(steps); };
}

// The quickstart's workload with one metric declaration `decl` (YAML).
std::function<void(YAML::Node&)> metric(const std::string& decl) {
  return [decl](YAML::Node& e) { e["workloads"][0]["metrics"]["kb"] = YAML::Load(decl); };
}

// Rules between keys (model/key_table.h KeyRule): each kind of rule, broken once.
std::vector<Mistake> rule_mistakes() {
  return {
      {"an approx without its tolerance",
       [](YAML::Node& e) {
         e["expect"][0].remove(">");
         e["expect"][0]["approx"] = 1;
       },
       "'approx' needs a relative 'tolerance'"},
      {"a tolerance beside '>'", [](YAML::Node& e) { e["expect"][0]["tolerance"] = 0.1; },
       "'tolerance' applies only to 'approx'"},
      {"method unusable without its order",
       prepare("[{fragment: {method: unusable, unusable: 0.5}}]"), "method unusable needs order"},
      {"an order without its index", prepare("[{fragment: {order: 9}}]"),
       "method unusable needs order"},
      {"a target for thpscale",
       prepare("[{fragment: {method: thpscale, order: 9, unusable: 0.5}}]"),
       "thpscale fragments at the PMD size"},
      {"pin for churn", prepare("[{fragment: {method: churn, pin: true}}]"),
       "pin is not for churn"},
      {"a churn key without method churn", prepare("[{fragment: {size: 64M}}]"),
       "size is for method churn"},
      {"pattern and regex both", metric("{pattern: 'x(\\d)', regex: 'y(\\d)'}"),
       "give 'pattern' or 'regex' (the same thing), not both"},
      {"an aggregate without a pattern", metric("{aggregate: sum}"),
       "'aggregate' needs a 'pattern' (or 'regex') beside it"},
  };
}

std::vector<Mistake> mistakes() {
  const auto list = [] { return YAML::Load("[a, b]"); };
  return {
      {"an unknown top-level key", [](YAML::Node& e) { e["colour"] = "red"; }},
      {"a string where the repeat count goes", [](YAML::Node& e) { e["repeat"] = "many"; }},
      {"a list where the knob sets go", [&](YAML::Node& e) { e["knobs"] = list(); }},
      {"an unknown machine key", [](YAML::Node& e) { e["machine"]["gpus"] = 1; }},
      {"a string where machine.cpus goes", [](YAML::Node& e) { e["machine"]["cpus"] = "two"; }},
      {"a list where the machine goes", [&](YAML::Node& e) { e["machine"] = list(); }},
      {"an unknown kernel key", [](YAML::Node& e) { e["kernels"][0]["colour"] = "red"; }},
      {"a list where a kernel's options go",
       [&](YAML::Node& e) { e["kernels"][0]["options"] = list(); }},
      {"a string where a kernel's archs go",
       [](YAML::Node& e) { e["kernels"][0]["archs"] = "x86_64"; }},
      {"an unknown workload key", [](YAML::Node& e) { e["workloads"][0]["colour"] = "red"; }},
      {"a list where a workload's params go",
       [&](YAML::Node& e) { e["workloads"][0]["params"] = list(); }},
      {"a string where a workload's exclusive goes",
       [](YAML::Node& e) { e["workloads"][0]["exclusive"] = "maybe"; }},
      {"a list where a knob set's sysctl goes",
       [&](YAML::Node& e) { e["knobs"]["4K"]["sysctl"] = list(); }},
      {"an unknown stat in an expectation", [](YAML::Node& e) { e["expect"][0]["stat"] = "mode"; }},
  };
}

// Names that become folders or run ids, and paths: what plan refuses from the file alone.
std::vector<Mistake> name_mistakes() {
  const auto named = [](std::string name) { return [name](YAML::Node& e) { e["name"] = name; }; };
  return {
      {"an experiment named '..'", named(".."), "'.' and '..' are no folder of their own"},
      {"an experiment named '.'", named("."), "'.' and '..' are no folder of their own"},
      {"a 5,000-character name", named(std::string(5000, 'n')), "a name of at most 200"},
      {"a 201-character name", named(std::string(201, 'n')), "a name of at most 200"},
      {"a tab inside a name", named("quick\tstart"), "tab"},
      {"a newline inside a name", named("quick\nstart"), "newline"},
      {"a kernel named '..'", [](YAML::Node& e) { e["kernels"][0]["name"] = ".."; },
       "invalid kernel name '..'"},
      {"a 61-character kernel name",
       [](YAML::Node& e) { e["kernels"][0]["name"] = std::string(61, 'k'); },
       "a kernel name of at most 60"},
      {"a newline inside a knob set name",
       [](YAML::Node& e) { e["knobs"]["four\nK"] = YAML::Load("{}"); }, "one line"},
      {"a 61-character knob set name",
       [](YAML::Node& e) { e["knobs"][std::string(61, 's')] = YAML::Load("{}"); },
       "a knob set name of at most 60"},
      {"a tab inside a workload label",
       [](YAML::Node& e) { e["workloads"][0]["label"] = "fa\tult"; }, "tab"},
      {"a 61-character workload label",
       [](YAML::Node& e) { e["workloads"][0]["label"] = std::string(61, 'l'); },
       "a label of at most 60"},
      {"'..' in the patches' path", [](YAML::Node& e) { e["kernels"][0]["patches"] = "../../etc"; },
       "invalid patch series"},
      {"'.' in the patches' path",
       [](YAML::Node& e) { e["kernels"][0]["patches"] = "mthp-vmstat/./x"; },
       "invalid patch series"},
      {"an image named '..'", [](YAML::Node& e) { e["machine"]["image"] = ".."; },
       "invalid image recipe name"},
      {"an image path out of images/", [](YAML::Node& e) { e["machine"]["image"] = "../../etc/x"; },
       "invalid image recipe name"},
      {"'..' in a knob's sysfs path",
       [](YAML::Node& e) { e["knobs"]["4K"]["../../../etc/x"] = "1"; }, "../../../etc/x"},
  };
}

std::vector<Mistake> all_mistakes() {
  std::vector<Mistake> all = mistakes();
  for (Mistake& m : name_mistakes()) all.push_back(std::move(m));
  for (Mistake& m : rule_mistakes()) all.push_back(std::move(m));
  return all;
}

// What the loader takes, each at one place of the quickstart: the schema takes it too, so that an
// editor never flags a file plan accepts. A quoted number is the number to the loader.
std::vector<Mistake> accepted_variants() {
  return {
      {"a quoted repeat count", [](YAML::Node& e) { e["repeat"] = "3"; }},
      {"a quoted machine.cpus", [](YAML::Node& e) { e["machine"]["cpus"] = "1"; }},
      {"a quoted timeout", [](YAML::Node& e) { e["timeout"] = "300"; }},
      {"a quoted expectation value", [](YAML::Node& e) { e["expect"][0][">"] = "0.5"; }},
      {"a quoted boolean", [](YAML::Node& e) { e["workloads"][0]["exclusive"] = "true"; }},
      {"approx with its tolerance",
       [](YAML::Node& e) {
         e["expect"][0].remove(">");
         e["expect"][0]["approx"] = 1;
         e["expect"][0]["tolerance"] = 0.5;
       }},
      {"order and unusable without a method", prepare("[{fragment: {order: 9, unusable: 0.5}}]")},
      {"a churn with its keys", prepare("[{fragment: {method: churn, size: 64M, passes: 2}}]")},
      {"a thpscale with pin", prepare("[{fragment: {method: thpscale, pin: true}}]")},
      {"an aggregate with its regex", metric("{regex: 'x(\\d)', aggregate: sum}")},
      {"a 200-character name", [](YAML::Node& e) { e["name"] = std::string(200, 'n'); }},
      {"a name with dots", [](YAML::Node& e) { e["name"] = "quick.start..2"; }},
      {"a 60-character kernel name",
       [](YAML::Node& e) { e["kernels"][0]["name"] = std::string(60, 'k'); }},
      {"a knob set name with blanks and '..'",
       [](YAML::Node& e) { e["knobs"]["64K .. mTHP"] = YAML::Load("{}"); }},
  };
}

// The quickstart with `make` applied, as a document and as text the loader reads.
std::pair<YAML::Node, std::string> changed_quickstart(const Mistake& m) {
  YAML::Node e = YAML::LoadFile(kSourceRoot / "experiments/quickstart.yaml");
  m.make(e);
  YAML::Emitter out;
  out << e;
  return {e, out.c_str()};
}

TEST(SchemaCommand, StructuralMistakesFailTheSchemaAndTheLoader) {
  ScopedTestDir dir("foliolab-schema-mistakes");
  const fs::path schema = printed_schema(dir, "experiment");
  std::vector<std::pair<std::string, YAML::Node>> docs;
  for (const Mistake& m : all_mistakes()) {
    const auto [e, text] = changed_quickstart(m);
    auto loaded = parse_experiment(text, "quickstart.yaml");
    EXPECT_FALSE(loaded.ok()) << m.what << ": the loader took it";
    if (!loaded.ok() && !m.loader_says.empty()) {
      EXPECT_THAT(loaded.error().message, HasSubstr(m.loader_says)) << m.what;
    }
    docs.emplace_back(m.what, e);
  }
  docs.emplace_back("the quickstart as it is",
                    YAML::LoadFile(kSourceRoot / "experiments/quickstart.yaml"));
  const SchemaVerdicts v = validate_with_schema(schema, docs);
  ASSERT_EQ(v.failure, "");
  for (const Mistake& m : all_mistakes()) {
    EXPECT_THAT(v.errors.at(m.what), ::testing::Not(::testing::IsEmpty())) << m.what;
  }
  EXPECT_THAT(v.errors.at("the quickstart as it is"), ::testing::IsEmpty());
}

TEST(SchemaCommand, WhatTheLoaderTakesTheSchemaTakes) {
  ScopedTestDir dir("foliolab-schema-variants");
  std::vector<std::pair<std::string, YAML::Node>> docs;
  for (const Mistake& m : accepted_variants()) {
    const auto [e, text] = changed_quickstart(m);
    auto loaded = parse_experiment(text, "quickstart.yaml");
    EXPECT_TRUE(loaded.ok()) << m.what << ": " << loaded.error().message;
    docs.emplace_back(m.what, e);
  }
  const SchemaVerdicts v = validate_with_schema(printed_schema(dir, "experiment"), docs);
  ASSERT_EQ(v.failure, "");
  for (const Mistake& m : accepted_variants()) {
    EXPECT_THAT(v.errors.at(m.what), ::testing::IsEmpty()) << m.what;
  }
}

TEST(SchemaCommand, AnUnknownKindFailsWithTheKindsNamed) {
  RealProcessRunner proc;
  const ProcessResult r = proc.run({.argv = {cli_binary(), "schema", "experiments"},
                                    .capture = true,
                                    .timeout = std::chrono::seconds(60)});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("unknown file kind 'experiments'; did you mean 'experiment'?"));
  EXPECT_THAT(r.output, HasSubstr("recipe, known-issues, project"));
}

TEST(SchemaCommand, InitPointsTheExperimentAtTheDataRootsSchema) {
  auto made = project_files(kSourceRoot, "mine");
  ASSERT_TRUE(made.ok());
  const std::string& experiment = (*made)[1].second;
  const std::string first = experiment.substr(0, experiment.find('\n'));
  EXPECT_EQ(first, "# yaml-language-server: $schema=" +
                       schema_file(kSourceRoot.lexically_normal(), "experiment").string());
  EXPECT_TRUE(fs::is_regular_file(schema_file(kSourceRoot, "experiment")));
  EXPECT_TRUE(parse_experiment(experiment, "quickstart.yaml").ok());
}

}  // namespace
}  // namespace foliolab::cli
