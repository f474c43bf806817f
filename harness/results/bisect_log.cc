#include "results/bisect_log.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "util/fs.h"
#include "util/fs_ops.h"

namespace foliolab {
namespace {

using nlohmann::json;

json step_json(const BisectStep& s) {
  return {{"candidate", s.candidate},
          {"class", s.cls ? json(*s.cls) : json()},
          {"session", s.session},
          {"evidence", s.evidence},
          {"values", s.values}};
}

json confirmation_json(const BisectConfirmation& c) {
  return {{"parent", c.parent},
          {"culprit", c.culprit},
          {"confirmed", c.confirmed},
          {"evidence", c.evidence},
          {"sessions", c.sessions}};
}

Result<json> parse_log(const std::filesystem::path& file, const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return make_error(file.string() + ": not a bisection log (damaged JSON)");
  }
  const int schema = j.value("schema", 0);
  if (schema != kBisectLogSchema) {
    return make_error(fmt::format("{}: bisection log schema {} (this foliolab reads {})",
                                  file.string(), schema, kBisectLogSchema));
  }
  return j;
}

}  // namespace

Result<BisectLog> BisectLog::open(std::filesystem::path file) {
  BisectLog log;
  log.file_ = std::move(file);
  if (!path_exists(log.file_)) return log;
  auto text = read_file(log.file_);
  if (!text.ok()) return text.error();
  auto j = parse_log(log.file_, *text);
  if (!j.ok()) return j.error();
  try {
    log.meta_ = j->value("bisect", std::map<std::string, std::string>{});
    for (const json& s : (*j)["steps"]) {
      log.steps_.push_back({s.at("candidate").get<size_t>(),
                            s.at("class").is_null()
                                ? std::nullopt
                                : std::optional<std::string>(s.at("class").get<std::string>()),
                            s.value("session", ""), s.value("evidence", ""),
                            s.value("values", std::vector<double>{})});
    }
    for (const json& c : (*j)["confirmations"]) {
      log.confirmations_.push_back({c.at("parent").get<size_t>(), c.at("culprit").get<size_t>(),
                                    c.at("confirmed").get<bool>(), c.value("evidence", ""),
                                    c.value("sessions", std::vector<std::string>{})});
    }
  } catch (const json::exception& e) {
    return make_error(log.file_.string() + ": damaged bisection log: " + e.what());
  }
  return log;
}

Result<void> BisectLog::save() const {
  json j{{"schema", kBisectLogSchema},
         {"bisect", meta_},
         {"steps", json::array()},
         {"confirmations", json::array()}};
  for (const BisectStep& s : steps_) j["steps"].push_back(step_json(s));
  for (const BisectConfirmation& c : confirmations_) {
    j["confirmations"].push_back(confirmation_json(c));
  }
  return write_file_atomic(file_, j.dump(1) + "\n");
}

Result<void> BisectLog::set_meta(std::map<std::string, std::string> meta) {
  meta_ = std::move(meta);
  return save();
}

Result<void> BisectLog::append(const BisectStep& step) {
  steps_.push_back(step);
  return save();
}

Result<void> BisectLog::append(const BisectConfirmation& c) {
  confirmations_.push_back(c);
  return save();
}

}  // namespace foliolab
