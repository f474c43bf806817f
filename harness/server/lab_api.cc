#include "server/lab_api.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <utility>

#include "results/session_bundle.h"

namespace foliolab {
using json = nlohmann::json;

std::string samples_json(const std::vector<IndexedSample>& samples) {
  json rows = json::array();
  for (const IndexedSample& s : samples) {
    const IndexedRun& r = s.run;
    rows.push_back({{"session", r.session},
                    {"stamp", r.stamp},
                    {"experiment", r.experiment},
                    {"run_id", r.run_id},
                    {"kernel", r.kernel},
                    {"arch", r.arch},
                    {"knob_set", r.knob_set},
                    {"workload", r.workload},
                    {"status", r.status},
                    {"accel", r.accel},
                    {"timings_emulated", r.timings_emulated},
                    {"timing", r.timing},
                    {"rep", s.rep},
                    {"value", s.value}});
  }
  return json{{"samples", std::move(rows)}}.dump();
}

Result<std::vector<IndexedSample>> parse_samples_json(std::string_view text) {
  try {
    std::vector<IndexedSample> out;
    const json doc = json::parse(text);  // kept: a range-for over a temporary's member dangles
    for (const json& j : doc.at("samples")) {
      IndexedSample s;
      IndexedRun& r = s.run;
      for (auto [key, to] : {std::pair{"session", &r.session},
                             {"stamp", &r.stamp},
                             {"experiment", &r.experiment},
                             {"run_id", &r.run_id},
                             {"kernel", &r.kernel},
                             {"arch", &r.arch},
                             {"knob_set", &r.knob_set},
                             {"workload", &r.workload},
                             {"status", &r.status},
                             {"accel", &r.accel},
                             {"timing", &r.timing}}) {
        *to = j.at(key).get<std::string>();
      }
      r.session_dir = r.session;
      r.timings_emulated = j.at("timings_emulated").get<bool>();
      s.rep = j.at("rep").get<int>();
      s.value = j.at("value").get<double>();
      out.push_back(std::move(s));
    }
    return out;
  } catch (const json::exception& e) {
    return make_error(fmt::format("the server's samples: {}", e.what()));
  }
}

std::string sessions_json(const std::vector<PushedSession>& sessions) {
  json rows = json::array();
  for (const PushedSession& s : sessions) {
    rows.push_back({{"session", s.key},
                    {"experiment", s.experiment},
                    {"stamp", s.stamp},
                    {"host", s.host},
                    {"pushed", s.pushed},
                    {"kernels", s.kernels},
                    {"arches", s.arches},
                    {"runs", s.runs},
                    {"ok", s.ok}});
  }
  return json{{"sessions", std::move(rows)}}.dump();
}

Result<std::vector<PushedSession>> parse_sessions_json(std::string_view text) {
  try {
    std::vector<PushedSession> out;
    const json doc = json::parse(text);
    for (const json& j : doc.at("sessions")) {
      out.push_back({j.at("session"), j.at("experiment"), j.at("stamp"), j.at("host"),
                     j.at("pushed"), j.at("kernels"), j.at("arches"), j.at("runs"), j.at("ok")});
    }
    return out;
  } catch (const json::exception& e) {
    return make_error(fmt::format("the server's sessions: {}", e.what()));
  }
}

namespace {

// A gate case's text fields, for both directions.
template <typename Case>
auto gate_case_fields(Case& c) {
  using Field = std::pair<const char*, decltype(&c.session)>;
  return std::array<Field, 10>{Field{"session", &c.session},   Field{"baseline", &c.baseline},
                               Field{"rule", &c.rule},         Field{"group", &c.group},
                               Field{"metric", &c.metric},     Field{"kernel", &c.kernel},
                               Field{"arch", &c.arch},         Field{"knobs", &c.knobs},
                               Field{"workload", &c.workload}, Field{"outcome", &c.outcome}};
}

}  // namespace

std::string gate_cases_json(const std::vector<IndexedGateCase>& cases) {
  json rows = json::array();
  for (const IndexedGateCase& c : cases) {
    json one;
    for (auto [key, field] : gate_case_fields(c)) one[key] = *field;
    one["rel_change"] = c.rel_change ? json(*c.rel_change) : json();
    rows.push_back(std::move(one));
  }
  return json{{"cases", std::move(rows)}}.dump();
}

Result<std::vector<IndexedGateCase>> parse_gate_cases_json(std::string_view text) {
  try {
    std::vector<IndexedGateCase> out;
    const json doc = json::parse(text);
    for (const json& j : doc.at("cases")) {
      IndexedGateCase c;
      for (auto [key, field] : gate_case_fields(c)) *field = j.at(key).get<std::string>();
      if (j.at("rel_change").is_number()) c.rel_change = j.at("rel_change").get<double>();
      out.push_back(std::move(c));
    }
    return out;
  } catch (const json::exception& e) {
    return make_error(fmt::format("the server's gate cases: {}", e.what()));
  }
}

// Bytes that are not UTF-8 (a path segment like %c0%ae echoed back) are replaced, not thrown.
std::string error_json(std::string_view message) {
  return json{{"error", message}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool is_kernel_name(std::string_view name) { return is_plain_name(name); }

}  // namespace foliolab
