// The one YAML error style: file:line:col: key.path: message.
#include "util/yaml_reader.h"

#include <gtest/gtest.h>

namespace foliolab {
namespace {

// The root of `text` as parsed by parse_yaml (the test fails on a syntax error).
YAML::Node doc(const std::string& text) {
  auto root = parse_yaml(text, "f.yaml", "test file");
  EXPECT_TRUE(root.ok()) << root.error().message;
  return root.ok() ? *root : YAML::Node();
}

// The error message of a failed read, or "ok".
template <class T>
std::string message(const Result<T>& r) {
  return r.ok() ? "ok" : r.error().message;
}

TEST(YamlReader, SyntaxErrorsAndSecondDocumentsAreLocated) {
  EXPECT_EQ(message(parse_yaml("a: [1,\n", "f.yaml", "test file")).substr(0, 9), "f.yaml:2:");
  EXPECT_EQ(message(parse_yaml("a: 1\n---\nb: 2\n", "f.yaml", "test file")),
            "f.yaml:3:1: only one YAML document per test file");
  auto empty = parse_yaml("# nothing\n", "f.yaml", "test file");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->IsNull());
  EXPECT_EQ(message(load_yaml_file("/nonexistent/f.yaml", "test file")),
            "/nonexistent/f.yaml: cannot open: No such file or directory");
}

TEST(YamlReader, MapKeysAreCheckedWithDidYouMean) {
  const YamlReader r("f.yaml");
  const YamlReader::Keys keys = {"name", "slots"};
  EXPECT_EQ(message(r.read_map(YamlReader::root(doc("nmae: x\n")), &keys)),
            "f.yaml:1:1: nmae: unknown key; did you mean 'name'?");
  EXPECT_EQ(message(r.read_map(YamlReader::root(doc("colour: x\n")), &keys)),
            "f.yaml:1:1: colour: unknown key; valid keys here: name, slots");
  EXPECT_EQ(message(r.read_map(YamlReader::root(doc("name: a\nname: b\n")), &keys)),
            "f.yaml:2:1: name: duplicate key (first at 1:1)");
  EXPECT_EQ(message(r.read_map(YamlReader::root(doc("<<: {name: a}\n")), nullptr)),
            "f.yaml:1:1: [\"<<\"]: YAML merge keys ('<<') are not supported; repeat the keys");
  EXPECT_EQ(message(r.read_map(YamlReader::root(doc("- a\n")), &keys)),
            "f.yaml:1:1: expected a map, got a list");
  auto fields = r.read_map(YamlReader::root(doc("top:\n  name: a\n")), nullptr);
  ASSERT_TRUE(fields.ok());
  const YamlField& top = *fields->find("top");
  auto inner = r.read_map(top, &keys);
  ASSERT_TRUE(inner.ok());
  EXPECT_EQ(message(r.require(*inner, top, {"name", "slots"})),
            "f.yaml:2:3: top: missing required key 'slots'");
}

TEST(YamlReader, KeyPathsNameListItemsAndOddKeys) {
  EXPECT_EQ(yaml_key_path("", "hosts"), "hosts");
  EXPECT_EQ(yaml_key_path("hosts[0]", "uri"), "hosts[0].uri");
  EXPECT_EQ(yaml_key_path("knobs", "4K pages"), "knobs[\"4K pages\"]");
  EXPECT_EQ(yaml_index_path("hosts", 2), "hosts[2]");
  const YamlReader r("f.yaml");
  auto fields = r.read_map(YamlReader::root(doc("hosts:\n  - a\n  - [b]\n")), nullptr);
  ASSERT_TRUE(fields.ok());
  auto items = r.read_list(*fields->find("hosts"), "must list a host");
  ASSERT_TRUE(items.ok());
  ASSERT_EQ(items->size(), 2u);
  EXPECT_EQ(message(r.read_scalar((*items)[1])),
            "f.yaml:3:5: hosts[1]: expected a scalar, got a list");
  auto none = r.read_map(YamlReader::root(doc("hosts: []\n")), nullptr);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(message(r.read_list(*none->find("hosts"), "must list a host")),
            "f.yaml:1:8: hosts: must list a host");
}

TEST(YamlReader, ScalarsOfATypeNameTheWrongValue) {
  const YamlReader r("f.yaml");
  const std::string text = "n: 3\nbig: 99999999999\nword: two\non: yes\nx: 1.5\nmem: 2G\nempty:\n";
  auto fields = r.read_map(YamlReader::root(doc(text)), nullptr);
  ASSERT_TRUE(fields.ok());
  auto f = [&](const char* key) -> const YamlField& { return *fields->find(key); };
  EXPECT_EQ(*r.read_int(f("n")), 3);
  EXPECT_EQ(message(r.read_int(f("n"), 4, 10)), "f.yaml:1:4: n: integer out of range: 3");
  EXPECT_EQ(message(r.read_int(f("big"))), "f.yaml:2:6: big: integer out of range: 99999999999");
  EXPECT_EQ(message(r.read_int(f("word"))), "f.yaml:3:7: word: expected an integer, got 'two'");
  EXPECT_EQ(message(r.read_bool(f("on"))), "f.yaml:4:5: on: expected true or false, got 'yes'");
  EXPECT_EQ(*r.read_number(f("x")), 1.5);
  EXPECT_EQ(message(r.read_number(f("word"))), "f.yaml:3:7: word: expected a number, got 'two'");
  EXPECT_EQ(*r.read_memory(f("mem")), 2048u);
  // An empty value is located at its key.
  EXPECT_EQ(message(r.read_scalar(f("empty"))),
            "f.yaml:7:1: empty: expected a scalar, got nothing");
  EXPECT_EQ(message(r.read_nonempty(f("empty"))),
            "f.yaml:7:1: empty: expected a scalar, got nothing");
}

}  // namespace
}  // namespace foliolab
