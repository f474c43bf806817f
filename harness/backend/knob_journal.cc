#include "backend/knob_journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "util/fs.h"
#include "util/text.h"
#include "util/time_stamp.h"

namespace foliolab {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kJournalSchema = 1;

Result<void> write_value(const fs::path& file, const std::string& value) {
  int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return make_error(fmt_errno("cannot open " + file.string()));
  ssize_t n;
  do n = ::write(fd, value.data(), value.size());
  while (n < 0 && errno == EINTR);
  std::string err =
      n < 0 ? fmt_errno(fmt::format("cannot write '{}' to {}", value, file.string())) : "";
  ::close(fd);
  if (!err.empty()) return make_error(err);
  return {};
}

}  // namespace

std::string knob_value(const std::string& raw) {
  const auto l = raw.find('['), r = raw.find(']', l == std::string::npos ? 0 : l);
  if (l == std::string::npos || r == std::string::npos) return std::string(trim(raw));
  return raw.substr(l + 1, r - l - 1);
}

KnobJournal::KnobJournal(fs::path file, fs::path sys_root)
    : file_(std::move(file)), root_(std::move(sys_root)) {}

fs::path KnobJournal::host_path(const std::string& path) const {
  return root_ / fs::path(path).relative_path();
}

bool KnobJournal::pending() const {
  std::error_code ec;
  return fs::exists(file_, ec);
}

Result<void> KnobJournal::save(const std::vector<std::string>& paths) {
  if (pending()) {
    return make_error(
        fmt::format("a restore journal is pending ({}): the knobs of an earlier host run were "
                    "never restored",
                    file_.string()));
  }
  json entries = json::array();
  for (const auto& p : paths) {
    auto raw = read_file(host_path(p));
    if (!raw.ok())
      return make_error(fmt::format("cannot save host knob {}: {}", p, raw.error().message));
    entries.push_back({{"path", p}, {"value", knob_value(*raw)}});
  }
  json j = {{"schema", kJournalSchema},
            {"pid", ::getpid()},
            {"started", utc_iso_now()},
            {"entries", entries}};
  return write_file_atomic(file_, j.dump(1) + "\n");  // fsyncs the file and its directory
}

Result<std::vector<JournalEntry>> KnobJournal::restore() {
  auto text = read_file(file_);
  if (!text.ok()) return text.error();
  std::vector<JournalEntry> entries;
  try {
    json j = json::parse(*text);
    if (j.value("schema", 0) != kJournalSchema) {
      return make_error(
          fmt::format("{}: unknown journal schema {}", file_.string(), j.value("schema", 0)));
    }
    for (const auto& e : j.at("entries")) entries.push_back({e.at("path"), e.at("value")});
  } catch (const json::exception& e) {
    return make_error(
        fmt::format("{}: unreadable restore journal ({}); its knobs must be checked by hand",
                    file_.string(), e.what()));
  }
  std::vector<std::string> failed;
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    if (auto st = write_value(host_path(it->path), it->value); !st.ok())
      failed.push_back(st.error().message);
  }
  if (!failed.empty()) {
    return make_error(fmt::format("could not restore {} host knob(s): {}; journal kept at {}",
                                  failed.size(), fmt::join(failed, "; "), file_.string()));
  }
  std::error_code ec;
  fs::remove(file_, ec);
  if (ec)
    return make_error(
        fmt::format("knobs restored, but cannot remove {}: {}", file_.string(), ec.message()));
  return entries;
}

Result<HostLock> HostLock::acquire(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path file = dir / "host.lock";
  int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(fmt_errno("cannot open " + file.string()));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int e = errno;
    char pid[32] = {};
    ssize_t n = ::pread(fd, pid, sizeof pid - 1, 0);
    ::close(fd);
    if (e != EWOULDBLOCK)
      return make_error(fmt::format("cannot lock {}: {}", file.string(), std::strerror(e)));
    return make_error(fmt::format("another foliolab (pid {}) is using the host backend ({})",
                                  n > 0 ? trim(pid) : "unknown", file.string()));
  }
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) < 0) {
    // the pid is only for the message above; the lock itself holds
  }
  return HostLock(fd);
}

HostLock::~HostLock() {
  if (fd_ >= 0) ::close(fd_);  // drops the flock
}

fs::path journal_path(const fs::path& state_dir) { return state_dir / "knob-journal.json"; }

Result<std::string> recover_host_journal(const fs::path& state_dir, const fs::path& sys_root) {
  KnobJournal journal(journal_path(state_dir), sys_root);
  if (!journal.pending()) return std::string();
  auto lock = HostLock::acquire(state_dir);
  if (!lock.ok()) return std::string();  // its owner is alive and restores it itself
  auto text = read_file(journal.file());
  std::string who = "an interrupted host run";
  if (text.ok()) {
    json j = json::parse(*text, nullptr, false);
    if (j.is_object()) {
      who = fmt::format("a host run interrupted before restoring (pid {}, started {})",
                        j.value("pid", 0), j.value("started", std::string("?")));
    }
  }
  auto restored = journal.restore();
  if (!restored.ok()) return restored.error();
  std::vector<std::string> what;
  for (const auto& e : *restored) what.push_back(e.path + "=" + e.value);
  return fmt::format("restored {} host knob(s) from the journal of {}: {}", restored->size(), who,
                     fmt::join(what, ", "));
}

}  // namespace foliolab
