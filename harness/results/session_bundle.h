// A results session as one JSON document, the unit a lab server stores and serves: what
// `foliolab push` sends and what `--server` clients fetch back into a local session directory.
//
//   {"schema": 1, "experiment": "quickstart", "stamp": "20261206T120000Z",
//    "files": {"experiment.yaml": "...", "plan.json": "...", "runs/<run id>/run.json": "..."}}
//
// Guest output is untrusted and so is a push: parse_bundle() checks every name (no path can
// leave the session), parses every run record, and refuses anything it would not store whole.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "results/run_record.h"
#include "util/result.h"

namespace foliolab {

inline constexpr int kBundleSchema = 1;

struct SessionBundle {
  std::string experiment, stamp;
  std::map<std::string, std::string> files;  // name -> contents, sorted by name
  std::vector<RunRecord> records;            // the run.json files, parsed, in name order

  std::string key() const { return experiment + "/" + stamp; }
  // SHA-256 over every file's name and contents: two pushes of one session have one digest.
  std::string digest() const;
  // The hostname the runs name (the first run's), or "".
  std::string host() const;
};

// The files of a session directory (<root>/<experiment>/<stamp>): its experiment.yaml,
// plan.json, report.txt and every runs/<id>/run.json. Logs and guest output stay local. A
// symbolic link among them (or as runs/ or a run's folder) is refused, naming it: nothing a link
// points at is read.
Result<SessionBundle> bundle_from_dir(const std::filesystem::path& session_dir);
// A bundle from its files (as a server keeps them): names checked, records parsed.
Result<SessionBundle> bundle_from_files(std::string experiment, std::string stamp,
                                        std::map<std::string, std::string> files);
std::string bundle_json(const SessionBundle& bundle);
// A document from a client or a server; `where` names it in messages.
Result<SessionBundle> parse_bundle(std::string_view text, std::string_view where);
// Writes the bundle as <root>/<experiment>/<stamp>/ (the files go to a temporary sibling that
// is renamed into place; a copy already there is kept: a key's session never changes).
Result<std::filesystem::path> write_bundle(const SessionBundle& bundle,
                                           const std::filesystem::path& results_root);
// A name that may be an experiment, a stamp or a run id: [A-Za-z0-9][A-Za-z0-9._-]*, at most
// 200 characters.
bool is_plain_name(std::string_view name);

}  // namespace foliolab
