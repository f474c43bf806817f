#include "results/session_bundle.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <functional>
#include <optional>
#include <system_error>
#include <thread>

#include "results/record_codec.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kSessionFiles[] = {"experiment.yaml", "plan.json", "report.txt"};
constexpr std::string_view kRunFile = "/run.json";

// runs/<id>/run.json -> <id>, else "".
std::string run_id_of(std::string_view name) {
  if (!name.starts_with("runs/") || !name.ends_with(kRunFile)) return "";
  const std::string_view id = name.substr(5, name.size() - 5 - kRunFile.size());
  return is_plain_name(id) ? std::string(id) : "";
}

Result<void> check_file(const std::string& name, const std::string& body) {
  bool known = !run_id_of(name).empty();
  for (const char* f : kSessionFiles) known = known || name == f;
  if (!known) {
    return make_error(
        fmt::format("file '{}': not a session file (experiment.yaml, plan.json, report.txt, "
                    "runs/<run id>/run.json)",
                    name));
  }
  if (body.find('\0') != std::string::npos) {
    return make_error(fmt::format("file '{}': holds a NUL byte", name));
  }
  return {};
}

// foliolab writes no links into a session: a link there is someone else's doing, and what it
// points at (outside the session, perhaps) is never read or pushed. The whole push is refused
// rather than the link skipped: a session's key never changes on a server, so a session
// stored without the file could not be completed by a later push.
Result<void> check_not_link(const fs::path& p) {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(p, ec))) return {};
  const fs::path target = fs::read_symlink(p, ec);
  return make_error(fmt::format(
      "{} is a symbolic link (to {}): a pushed session holds only its own files, and foliolab "
      "follows no link in one; put the file itself there, or remove the link",
      p.string(), ec ? "?" : target.string()));
}

// A session file's contents, nullopt when there is none; a link or a folder is refused.
Result<std::optional<std::string>> read_own_file(const fs::path& p) {
  FL_TRY(check_not_link(p));
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(p, ec);
  if (!fs::exists(st)) return std::optional<std::string>();
  if (!fs::is_regular_file(st)) return make_error(p.string() + " is not a regular file");
  // O_NOFOLLOW: a link put in its place since the check is refused too, not followed.
  const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return make_env_error(fmt_errno("cannot read " + p.string()));
  std::string text;
  char buf[65536];
  ssize_t n = 0;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  const std::string why = n < 0 ? fmt_errno("cannot read " + p.string()) : "";
  ::close(fd);
  if (!why.empty()) return make_env_error(why);
  return std::optional<std::string>(std::move(text));
}

}  // namespace

bool is_plain_name(std::string_view name) {
  if (name.empty() || name.size() > 200) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-'))) return false;
  }
  return true;
}

std::string SessionBundle::digest() const {
  Hasher h;
  h.add(experiment).add(stamp);
  for (const auto& [name, body] : files) h.add(name).add(body);
  return h.hex();
}

std::string SessionBundle::host() const {
  return records.empty() ? "" : records.front().provenance.host.hostname;
}

Result<SessionBundle> bundle_from_files(std::string experiment, std::string stamp,
                                        std::map<std::string, std::string> files) {
  SessionBundle b{std::move(experiment), std::move(stamp), std::move(files), {}};
  if (!is_plain_name(b.experiment)) return make_error(fmt::format("experiment '{}'", b.experiment));
  if (!is_plain_name(b.stamp)) return make_error(fmt::format("stamp '{}'", b.stamp));
  for (const auto& [name, body] : b.files) {
    FL_TRY(check_file(name, body));
    const std::string id = run_id_of(name);
    if (id.empty()) continue;
    auto record = parse_record(body, name);
    if (!record.ok()) return record.error();
    if (record->id.run_id != id) {
      return make_error(fmt::format("{}: the record is run {}", name, record->id.run_id));
    }
    b.records.push_back(std::move(*record));
  }
  if (b.records.empty()) return make_error(fmt::format("session {}: no run records", b.key()));
  return b;
}

Result<SessionBundle> bundle_from_dir(const fs::path& session_dir) {
  std::error_code ec;
  const fs::path dir = fs::weakly_canonical(session_dir, ec);
  std::map<std::string, std::string> files;
  for (const char* name : kSessionFiles) {
    auto text = read_own_file(dir / name);
    if (!text.ok()) return text.error();
    if (*text) files[name] = std::move(**text);
  }
  FL_TRY(check_not_link(dir / "runs"));
  auto runs = list_dir(dir / "runs");
  if (!runs.ok()) return runs.error();
  for (const fs::path& run : *runs) {
    FL_TRY(check_not_link(run));
    auto text = read_own_file(run / "run.json");  // none: a run still going, or never finished
    if (!text.ok()) return text.error();
    if (*text) files["runs/" + run.filename().string() + "/run.json"] = std::move(**text);
  }
  auto b = bundle_from_files(dir.parent_path().filename().string(), dir.filename().string(),
                             std::move(files));
  if (!b.ok()) return in_context(dir.string(), b.error());
  return b;
}

std::string bundle_json(const SessionBundle& bundle) {
  json files = json::object();
  for (const auto& [name, body] : bundle.files) files[name] = body;
  return json{{"schema", kBundleSchema},
              {"experiment", bundle.experiment},
              {"stamp", bundle.stamp},
              {"files", std::move(files)}}
      .dump();
}

Result<SessionBundle> parse_bundle(std::string_view text, std::string_view where) {
  try {
    const json j = json::parse(text);
    if (!j.is_object() || j.value("schema", 0) != kBundleSchema) {
      return make_error(fmt::format("{}: not a session bundle of schema {}", where, kBundleSchema));
    }
    std::map<std::string, std::string> files;
    for (const auto& [name, body] : j.at("files").items()) files[name] = body.get<std::string>();
    auto b = bundle_from_files(j.at("experiment").get<std::string>(),
                               j.at("stamp").get<std::string>(), std::move(files));
    if (!b.ok()) return in_context(where, b.error());
    return b;
  } catch (const json::exception& e) {
    return make_error(fmt::format("{}: damaged session bundle: {}", where, e.what()));
  }
}

namespace {

// The bundle's files under `tmp`, removed again if any cannot be written (a full disk).
Result<void> write_files(const SessionBundle& bundle, const fs::path& tmp) {
  auto st = make_dirs(tmp / "runs");
  for (auto it = bundle.files.begin(); st.ok() && it != bundle.files.end(); ++it) {
    st = make_dirs((tmp / it->first).parent_path());
    if (st.ok()) st = write_file_atomic(tmp / it->first, it->second);
  }
  if (!st.ok()) (void)remove_tree(tmp);
  return st;
}

}  // namespace

Result<fs::path> write_bundle(const SessionBundle& bundle, const fs::path& results_root) {
  const fs::path dir = results_root / bundle.experiment / bundle.stamp;
  // A session's contents never change under its key: a copy already there is kept (a reader
  // may be using it), and concurrent writers each use a temporary folder of their own.
  if (path_exists(dir / "runs")) return dir;
  const fs::path tmp = results_root / bundle.experiment /
                       fmt::format(".{}.{}-{}.partial", bundle.stamp, ::getpid(),
                                   std::hash<std::thread::id>{}(std::this_thread::get_id()));
  if (path_exists(tmp)) FL_TRY(remove_tree(tmp));
  FL_TRY(write_files(bundle, tmp));
  if (path_exists(dir / "runs")) {
    FL_TRY(remove_tree(tmp));  // another writer was first
    return dir;
  }
  if (auto st = rename_path(tmp, dir); !st.ok()) {
    (void)remove_tree(tmp);
    return st.error();
  }
  return dir;
}

}  // namespace foliolab
