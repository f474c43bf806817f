#include "kernel/kernel_meta.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "util/fs.h"

namespace foliolab {
using json = nlohmann::json;

namespace {

// Kernels cached before the Makefile parser was fixed say "6.12.117NAME = Baby Opossum Posse"
// (an empty EXTRAVERSION ran on into the NAME line).
std::string repaired_version(std::string version) {
  if (auto bad = version.find("NAME ="); bad != std::string::npos) version.resize(bad);
  return version;
}

template <class T>
T field(const json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->get<T>();
}

KernelMeta::Source source_from_json(const json& s) {
  if (!s.is_object()) return {};
  return {.id = field<std::string>(s, "id", ""),
          .location = field<std::string>(s, "location", ""),
          .describe = field<std::string>(s, "describe", ""),
          .git_ref = field<std::string>(s, "git_ref", ""),
          .git_commit = field<std::string>(s, "git_commit", ""),
          .git_dirty = field<bool>(s, "git_dirty", false),
          .work_id = field<std::string>(s, "work_id", "")};
}

KernelMeta fields_from_json(const json& j) {
  KernelMeta m;
  m.schema = field<int>(j, "schema", 1);
  m.build_id = field<std::string>(j, "build_id", "");
  m.cache_key = field<std::string>(j, "cache_key", "");
  m.kernel = field<std::string>(j, "kernel", "");
  m.arch = field<std::string>(j, "arch", "");
  m.version = repaired_version(field<std::string>(j, "version", ""));
  if (auto s = j.find("source"); s != j.end()) m.source = source_from_json(*s);
  m.series = field<std::string>(j, "series", "");
  m.series_form = field<std::string>(j, "series_form", "");
  if (auto p = j.find("patches"); p != j.end() && p->is_array()) {
    for (const auto& patch : *p) {
      m.patches.push_back({field<std::string>(patch, "name", ""),
                           field<std::string>(patch, "sha256", ""),
                           field<std::string>(patch, "subject", "")});
    }
  }
  if (auto c = j.find("cover_letter"); c != j.end() && c->is_object()) {
    m.cover_letter = {field<std::string>(*c, "subject", ""), field<std::string>(*c, "file", ""),
                      field<std::string>(*c, "sha256", "")};
  }
  m.config_requests = field<std::vector<std::string>>(j, "config_requests", {});
  m.compiler = field<std::string>(j, "compiler", "");
  m.ccache = field<bool>(j, "ccache", false);
  m.build_seconds = field<double>(j, "build_seconds", 0.0);
  m.reproduce = field<std::string>(j, "reproduce", "");
  return m;
}

}  // namespace

json KernelMeta::to_json() const {
  json j = {
      {"schema", schema},
      {"build_id", build_id},
      {"cache_key", cache_key},
      {"kernel", kernel},
      {"arch", arch},
      {"version", version},
      {"source",
       {{"id", source.id},
        {"location", source.location},
        {"describe", source.describe},
        {"git_ref", source.git_ref},
        {"git_commit", source.git_commit},
        {"git_dirty", source.git_dirty},
        {"work_id", source.work_id}}},
      {"series", series},
      {"patches", json::array()},
      {"config_requests", config_requests},
      {"compiler", compiler},
      {"ccache", ccache},
      {"build_seconds", build_seconds},
      {"reproduce", reproduce},
  };
  // Keys added since schema 1 are written when they say something: a file of a quilt series
  // reads and writes as it always did.
  for (const auto& p : patches) {
    json patch = {{"name", p.name}, {"sha256", p.sha256}};
    if (!p.subject.empty()) patch["subject"] = p.subject;
    j["patches"].push_back(std::move(patch));
  }
  if (!series_form.empty()) j["series_form"] = series_form;
  if (!cover_letter.subject.empty() || !cover_letter.file.empty()) {
    j["cover_letter"] = {{"subject", cover_letter.subject},
                         {"file", cover_letter.file},
                         {"sha256", cover_letter.sha256}};
  }
  return j;
}

Result<KernelMeta> KernelMeta::from_json(const json& j) {
  if (!j.is_object()) return make_error("not a JSON object");
  if (auto s = j.find("schema"); s != j.end() && !s->is_number_integer()) {
    return make_error(fmt::format("schema {} is not a number", s->dump()));
  }
  const int schema = j.value("schema", 1);
  if (schema > kSchema) {
    return make_error(
        fmt::format("schema {} is newer than this foliolab reads ({})", schema, kSchema));
  }
  if (schema < 1) return make_error(fmt::format("schema {} is not one foliolab wrote", schema));
  try {
    return fields_from_json(j);
  } catch (const json::exception& e) {
    return make_error(fmt::format("a field has the wrong type: {}", e.what()));
  }
}

Result<KernelMeta> KernelMeta::parse(std::string_view text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return make_error("not valid JSON");
  return from_json(j);
}

std::string KernelMeta::describe_source() const {
  std::string out = source.describe.empty() ? source.location : source.describe;
  if (!series.empty()) out += (out.empty() ? "" : " + ") + std::string("patches ") + series;
  if (!series.empty() && !cover_letter.subject.empty()) {
    out += " (cover: " + cover_letter.subject + ")";
  }
  return out;
}

Result<KernelMeta> load_kernel_meta(const std::filesystem::path& file) {
  auto text = read_file(file);
  if (!text.ok()) return text.error();
  auto meta = KernelMeta::parse(*text);
  if (!meta.ok()) return make_error(fmt::format("{}: {}", file.string(), meta.error().message));
  return meta;
}

}  // namespace foliolab
