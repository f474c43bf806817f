// The loader of known-issues files (model/known_issue.h): the experiment parser's selectors,
// percentages and error style.
#include <fmt/format.h>

#include <cctype>
#include <string>
#include <vector>

#include "model/file_keys.h"
#include "model/known_issue.h"
#include "model/loader_internal.h"
#include "util/text.h"

namespace foliolab {
namespace loader_internal {
Result<std::vector<KnownIssue>> Parser::parse_known_issues(const YAML::Node& root) const {
  auto top = read_map(YamlReader::root(root), &file_keys::known_issues_file().names());
  FL_TRY(top);
  FL_TRY(require(*top, YamlReader::root(root), file_keys::known_issues_file().required()));
  auto items = read_list(*top->find("known_issues"), nullptr);
  FL_TRY(items);
  std::vector<KnownIssue> out;
  for (const Field& item : *items) {
    KnownIssue k;
    FL_TRY(parse_known_issue(item, &k));
    for (const KnownIssue& seen : out) {
      if (seen.id == k.id) {
        return error(k.loc, item.path, "duplicate id '" + k.id + "'" + first_at(seen.loc));
      }
    }
    out.push_back(std::move(k));
  }
  return out;
}

Result<void> Parser::parse_known_issue(const Field& f, KnownIssue* k) const {
  auto fields = read_map(f, &file_keys::known_issue().names());
  FL_TRY(fields);
  k->loc = loc(f.value);
  FL_TRY(require(*fields, f, file_keys::known_issue().required()));
  for (auto [key, out] :
       {std::pair{"id", &k->id}, std::pair{"metric", &k->metric}, std::pair{"url", &k->url}}) {
    auto value = read_nonempty(*fields->find(key));
    FL_TRY(value);
    *out = *value;
  }
  k->metric_loc = loc(*fields->find("metric"));
  if (const Field* r = fields->find("runs")) FL_TRY(parse_selector(*r, &k->runs));
  const Field& expires = *fields->find("expires");
  auto text = read_scalar(expires);
  FL_TRY(text);
  auto date = parse_iso_date(*text);
  if (!date) return error(expires, "expected a date YYYY-MM-DD, got '" + *text + "'");
  k->expires = *date;
  k->expires_text = *text;
  return parse_known_effect(f, *fields, k);
}

// Exactly one of `regressed: <= 8%`, `value: N`, `flaky: true`.
Result<void> Parser::parse_known_effect(const Field& f, const Fields& fields, KnownIssue* k) const {
  const Field* given = nullptr;
  for (const std::string& key : file_keys::known_effects()) {
    const Field* e = fields.find(key);
    if (!e) continue;
    if (given) return key_error(*e, "give one expected effect: regressed, value or flaky");
    given = e;
  }
  if (!given) {
    return error(loc(f.value), f.path,
                 "missing the expected effect: 'regressed: <= 8%', 'value: N' or 'flaky: true'");
  }
  const std::string key = given->key.as<std::string>();
  if (key == "regressed") {
    auto fraction = read_percent(*given, "<=");
    FL_TRY(fraction);
    k->effect = KnownEffect::kRegressed;
    k->amount = *fraction;
  } else if (key == "value") {
    auto value = read_number(*given);
    FL_TRY(value);
    k->effect = KnownEffect::kValue;
    k->amount = *value;
  } else {
    auto on = read_bool(*given);
    FL_TRY(on);
    if (!*on) return error(*given, "only 'flaky: true' is meaningful");
    k->effect = KnownEffect::kFlaky;
  }
  return {};
}

}  // namespace loader_internal

std::optional<std::chrono::year_month_day> parse_iso_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
  }
  const auto num = [&](size_t at, size_t n) { return std::stoi(std::string(text.substr(at, n))); };
  const std::chrono::year_month_day d{std::chrono::year(num(0, 4)),
                                      std::chrono::month(static_cast<unsigned>(num(5, 2))),
                                      std::chrono::day(static_cast<unsigned>(num(8, 2)))};
  if (!d.ok()) return std::nullopt;
  return d;
}

namespace {

Result<std::vector<KnownIssue>> issues_from(const YAML::Node& root, const std::string& file_name) {
  return loader_internal::parse_document<std::vector<KnownIssue>>(
      root, file_name, "known-issues file",
      [&](const loader_internal::Parser& p) { return p.parse_known_issues(root); });
}

}  // namespace

Result<std::vector<KnownIssue>> parse_known_issues(const std::string& yaml_text,
                                                   const std::string& file_name) {
  auto root = parse_yaml(yaml_text, file_name, "known-issues file");
  FL_TRY(root);
  return issues_from(*root, file_name);
}

Result<std::vector<KnownIssue>> load_known_issues(const std::string& path) {
  auto root = load_yaml_file(path, "known-issues file");
  FL_TRY(root);
  return issues_from(*root, path);
}

}  // namespace foliolab
