#include "kernel/trace_events.h"

#include <algorithm>
#include <regex>
#include <system_error>
#include <vector>

#include "util/fs.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

// The record fields of one macro's text: __field(type, name), __field_struct(type, name),
// __array(type, name, n), __dynamic_array(type, name, n), __string(name, src) and the like.
std::set<std::string> fields_of(const std::string& text) {
  static const std::regex kTyped(
      R"(__(?:field|field_struct|field_hex|array|dynamic_array|bitmask|cpumask)\s*\(\s*[^,()]+,\s*(\w+))");
  static const std::regex kNamed(R"(__(?:string|string_len|vstring|rel_string)\s*\(\s*(\w+))");
  std::set<std::string> out;
  for (const std::regex* re : {&kTyped, &kNamed}) {
    for (std::sregex_iterator it(text.begin(), text.end(), *re), end; it != end; ++it) {
      out.insert((*it)[1].str());
    }
  }
  return out;
}

}  // namespace

bool is_common_trace_field(std::string_view field) {
  for (std::string_view c : {"common_pid", "common_type", "common_flags", "common_preempt_count",
                             "common_timestamp", "common_cpu", "common_comm"}) {
    if (field == c) return true;
  }
  return false;
}

void read_trace_header(std::string_view view, TraceEventTable* table) {
  const std::string text(view);
  static const std::regex kSystem(R"(#define\s+TRACE_SYSTEM\s+(\w+))");
  std::smatch sys;
  if (!std::regex_search(text, sys, kSystem)) return;
  TraceSystem& out = (*table)[sys[1].str()];
  static const std::regex kOwnMacro(R"(#define\s+\w*(?:EVENT|DEFINE)\w*\s*\()");
  if (std::regex_search(text, kOwnMacro)) out.partial = true;
  // Each macro runs to the next one; a class's fields serve the events defined from it.
  static const std::regex kMacro(
      R"((?:^|\n)(TRACE_EVENT\w*|DECLARE_EVENT_CLASS\w*|DEFINE_EVENT\w*)\s*\(\s*(\w+)(?:\s*,\s*(\w+))?)");
  std::vector<std::smatch> macros;
  for (std::sregex_iterator it(text.begin(), text.end(), kMacro), end; it != end; ++it) {
    macros.push_back(*it);
  }
  std::map<std::string, std::set<std::string>> classes;
  for (size_t i = 0; i < macros.size(); ++i) {
    const std::smatch& m = macros[i];
    const size_t from = static_cast<size_t>(m.position(0));
    const size_t to =
        i + 1 < macros.size() ? static_cast<size_t>(macros[i + 1].position(0)) : text.size();
    const std::string kind = m[1].str();
    if (kind == "TRACE_EVENT_FLAGS") continue;
    if (kind.starts_with("DECLARE_EVENT_CLASS")) {
      classes[m[2].str()] = fields_of(text.substr(from, to - from));
    } else if (kind.starts_with("DEFINE_EVENT") && m[3].matched) {
      auto cls = classes.find(m[2].str());
      out.events[m[3].str()] = cls == classes.end() ? std::set<std::string>() : cls->second;
    } else if (kind.starts_with("TRACE_EVENT")) {
      out.events[m[2].str()] = fields_of(text.substr(from, to - from));
    }
  }
}

TraceEventTable read_trace_events(const fs::path& tree) {
  TraceEventTable table;
  std::error_code ec;
  for (fs::directory_iterator it(tree / "include" / "trace" / "events", ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().extension() != ".h") continue;
    if (auto text = read_file(it->path()); text.ok()) read_trace_header(*text, &table);
  }
  return table;
}

}  // namespace foliolab
