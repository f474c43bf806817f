#include "results/run_query.h"

#include <fmt/format.h>

#include <utility>

#include "util/text.h"

namespace foliolab {
namespace {

// Session stamps look like 20261130T051430Z; accept 2026-11-30 and 2026-11-30T05:14:30Z too.
std::string stamp_of(std::string_view when) {
  std::string out;
  for (char c : when) {
    if (c != '-' && c != ':') out += c;
  }
  return out;
}

const std::vector<std::string> kQueryKeys = {"experiment", "kernel",  "arch",  "knobs",
                                             "workload",   "session", "since", "until"};

}  // namespace

bool RunQuery::empty() const {
  return experiment.empty() && kernel.empty() && arch.empty() && knobs.empty() &&
         workload.empty() && session.empty() && since.empty() && until.empty();
}

Result<RunQuery> parse_run_query(std::string_view text) {
  RunQuery q;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text.remove_prefix(comma == std::string_view::npos ? text.size() : comma + 1);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
      return make_error(fmt::format("selection '{}': expected key=value", item));
    }
    const std::string key(item.substr(0, eq));
    const std::string value(item.substr(eq + 1));
    std::string* field = key == "experiment" ? &q.experiment
                         : key == "kernel"   ? &q.kernel
                         : key == "arch"     ? &q.arch
                         : key == "knobs"    ? &q.knobs
                         : key == "workload" ? &q.workload
                         : key == "session"  ? &q.session
                         : key == "since"    ? &q.since
                         : key == "until"    ? &q.until
                                             : nullptr;
    if (!field) {
      return make_error(
          fmt::format("selection key '{}' is unknown{}", key, did_you_mean(key, kQueryKeys)) +
          " (keys: experiment, kernel, arch, knobs, workload, session, since, until)");
    }
    *field = value;
  }
  return q;
}

RunQuery merge_queries(RunQuery base, const RunQuery& extra) {
  for (auto [to, from] : {std::pair{&base.experiment, &extra.experiment},
                          {&base.kernel, &extra.kernel},
                          {&base.arch, &extra.arch},
                          {&base.knobs, &extra.knobs},
                          {&base.workload, &extra.workload},
                          {&base.session, &extra.session},
                          {&base.since, &extra.since},
                          {&base.until, &extra.until}}) {
    if (!from->empty()) *to = *from;
  }
  base.include_failed = base.include_failed || extra.include_failed;
  return base;
}

std::string run_query_sql(const RunQuery& q, std::vector<std::string>* params) {
  std::string sql;
  auto eq = [&](const char* column, const std::string& value) {
    if (value.empty()) return;
    sql += fmt::format(" AND {} = ?", column);
    params->push_back(value);
  };
  eq("r.experiment", q.experiment);
  eq("r.kernel", q.kernel);
  eq("r.arch", q.arch);
  eq("r.knob_set", q.knobs);
  eq("r.workload", q.workload);
  eq("se.path", q.session);
  if (!q.since.empty()) {
    sql += " AND se.stamp >= ?";
    params->push_back(stamp_of(q.since));
  }
  if (!q.until.empty()) {
    // A date means the whole day: "until=2026-11-30" keeps 20261130T235959Z.
    sql += " AND se.stamp <= ?";
    params->push_back(stamp_of(q.until) + "~");
  }
  if (!q.include_failed) sql += " AND r.status = 'ok'";
  return sql;
}

}  // namespace foliolab
