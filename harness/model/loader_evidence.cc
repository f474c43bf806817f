// The experiment loader: `evidence:` (model/evidence.h), what the guest counts during each
// repetition. The names' syntax is checked here; whether the kernel has them, at plan
// (catalog/evidence_check.h) and by the guest before rep 0.
#include <fmt/format.h>

#include <string>

#include "model/file_keys.h"
#include "model/loader_internal.h"

namespace foliolab::loader_internal {

Result<void> Parser::parse_evidence(const Field& f, EvidenceSpec* e) const {
  const ValueType& table = file_keys::evidence();
  auto fields = read_map(f, &table.names());
  FL_TRY(fields);
  e->loc = loc(f);
  if (const Field* events = fields->find("events")) {
    auto items = read_list(*events, "must list at least one event, e.g. kmem:mm_page_alloc");
    FL_TRY(items);
    if (items->size() > static_cast<size_t>(kMaxEvidenceEvents))
      return error(*events, fmt::format("at most {} events", kMaxEvidenceEvents));
    for (const Field& item : *items) {
      EventCount ev;
      FL_TRY(parse_event_count(item, &ev));
      for (const EventCount& seen : e->events) {
        if (seen.name() == ev.name() && seen.by == ev.by)
          return error(item, "counts " + ev.name() + " a second time (the guest counts each once)");
      }
      e->events.push_back(std::move(ev));
    }
  }
  if (const Field* kprobes = fields->find("kprobes")) {
    auto items = read_list(*kprobes, "must list at least one function, e.g. handle_mm_fault");
    FL_TRY(items);
    if (items->size() > static_cast<size_t>(kMaxEvidenceKprobes))
      return error(*kprobes, fmt::format("at most {} kprobes", kMaxEvidenceKprobes));
    for (const Field& item : *items) {
      KprobeCount k;
      FL_TRY(parse_kprobe_count(item, &k));
      for (const KprobeCount& seen : e->kprobes) {
        if (seen.function == k.function) return error(item, "probes " + k.function + " twice");
      }
      e->kprobes.push_back(std::move(k));
    }
  }
  if (const Field* profile = fields->find("function_profile")) {
    auto p = read_map(*profile, &file_keys::function_profile().names());
    FL_TRY(p);
    FL_TRY(require(*p, *profile, file_keys::function_profile().required()));
    auto top = read_int(*p->find("top"), 1, kMaxProfileTop);
    FL_TRY(top);
    e->profile_top = static_cast<int>(*top);
  }
  if (const Field* census = fields->find("census")) FL_TRY(parse_census(*census, e));
  if (!e->enabled() && !e->census) {
    return error(f, "names nothing to count: give events, kprobes, function_profile or census");
  }
  return {};
}

// `census: true`: the agent takes a folio census whenever the workload says it is at its peak.
Result<void> Parser::parse_census(const Field& f, EvidenceSpec* e) const {
  auto on = read_bool(f);
  FL_TRY(on);
  e->census = *on;
  e->census_loc = loc(f);
  return {};
}

Result<void> Parser::read_named(const Field& item, const ValueType& table, const std::string& key,
                                YamlFields* fields, const Field** name) const {
  *name = &item;
  if (!item.value.IsMap()) return {};
  auto m = read_map(item, &table.names());
  FL_TRY(m);
  FL_TRY(require(*m, item, table.required()));
  *fields = std::move(*m);
  *name = fields->find(key);
  return {};
}

// "system:event", "system:*" or {event: "system:event", by: field}.
Result<void> Parser::parse_event_count(const Field& item, EventCount* ev) const {
  const Field* name = nullptr;
  YamlFields fields;
  FL_TRY(read_named(item, file_keys::evidence_event(), "event", &fields, &name));
  auto text = read_nonempty(*name);
  FL_TRY(text);
  const size_t colon = text->find(':');
  ev->loc = loc(*name);
  if (colon != std::string::npos) {
    ev->system = text->substr(0, colon);
    ev->event = text->substr(colon + 1);
  }
  if (!is_trace_word(ev->system) || (ev->event != "*" && !is_trace_word(ev->event))) {
    return error(*name, "'" + *text +
                            "' is not a tracepoint: <system>:<event> (letters, digits, '_'), "
                            "e.g. kmem:mm_page_alloc, or <system>:* for all of a system's");
  }
  if (const Field* by = fields.find("by")) {
    auto field = read_nonempty(*by);
    FL_TRY(field);
    if (!is_trace_word(*field))
      return error(*by, "'" + *field + "' is not a field name of an event (letters, digits, '_')");
    if (ev->event == "*")
      return error(*by, "a split names one event's field: not with " + ev->system + ":*");
    ev->by = *field;
  }
  return {};
}

// "function" or {function: name}.
Result<void> Parser::parse_kprobe_count(const Field& item, KprobeCount* k) const {
  const Field* name = nullptr;
  YamlFields fields;
  FL_TRY(read_named(item, file_keys::evidence_kprobe(), "function", &fields, &name));
  auto text = read_nonempty(*name);
  FL_TRY(text);
  if (!is_function_name(*text)) {
    return error(*name, "'" + *text +
                            "' is not a kernel function name (letters, digits, '_' and '.', as "
                            "available_filter_functions lists them), e.g. handle_mm_fault");
  }
  k->function = *text;
  k->loc = loc(*name);
  return {};
}

}  // namespace foliolab::loader_internal
