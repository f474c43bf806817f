// The mail forms of a patch series (see series.h): a folder of `git format-patch` files and an
// mbox. git reads the mail: `git mailsplit` splits an mbox, `git mailinfo` gives each subject.
#include "kernel/series_mail.h"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSplitDone = ".complete";

// "0003-mm-foo.patch" -> 3, "v2-0003-mm-foo.patch" -> 3 (version "v2-"); nullopt otherwise.
struct FileNumber {
  int number = 0;
  std::string version;
};
std::optional<FileNumber> format_patch_number(const std::string& filename) {
  static const std::regex kName(R"(^(v\d+-)?(\d{4,})-.+\.patch$)");
  std::smatch m;
  if (!std::regex_match(filename, m, kName)) return std::nullopt;
  return FileNumber{std::stoi(m[2]), m[1]};
}

bool is_mbox_name(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".mbx" || ext == ".mbox";
}

bool has_format_patch_files(const fs::path& dir) {
  auto files = list_dir(dir);
  if (!files.ok()) return false;
  return std::any_of(files->begin(), files->end(), [](const fs::path& f) {
    return format_patch_number(f.filename().string()).has_value();
  });
}

// "[PATCH v2 3/5] mm: foo" -> 3 of 5.
struct PatchNumber {
  int k = 0, n = 0;
};
std::optional<PatchNumber> subject_number(const std::string& subject) {
  static const std::regex kTag(R"(^\s*\[(?:[^\]]*\s)?0*(\d+)/0*(\d+)(?:\s[^\]]*)?\])");
  std::smatch m;
  if (!std::regex_search(subject, m, kTag)) return std::nullopt;
  return PatchNumber{std::stoi(m[1]), std::stoi(m[2])};
}

// A mail as `git mailinfo` reads it.
struct Mail {
  std::string subject;   // as sent (mailinfo -k keeps the "[PATCH ...]")
  bool is_mail = false;  // it names a sender or a subject
};

Result<Mail> read_mail(ProcessRunner& runner, const fs::path& file) {
  ProcessResult r = runner.run({.argv = {"git", "mailinfo", "-k", "/dev/null", "/dev/null"},
                                .stdin_path = file,
                                .capture = true});
  if (!r.ok()) {
    return make_error(fmt::format("{}: git mailinfo cannot read it ({}): {}{}", file.string(),
                                  r.describe(), r.output, r.spawn_error));
  }
  Mail mail;
  for (const std::string_view line : split_lines(r.output)) {
    for (const std::string_view key : {"Author: ", "Email: ", "Subject: "}) {
      if (line.substr(0, key.size()) != key || trim(line.substr(key.size())).empty()) continue;
      mail.is_mail = true;
      if (key == "Subject: ") mail.subject = std::string(trim(line.substr(key.size())));
    }
  }
  return mail;
}

// One patch or cover letter of a mail form, before the order checks.
struct Entry {
  std::string label;  // `0002-x.patch` or `message 3 "[PATCH 2/5] x"`, for messages
  std::optional<PatchNumber> number;
};

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

// "[PATCH k/n]" numbers against the order: the i-th patch is i/n with n the number of patches.
// Patches without a number are not checked.
Result<void> check_numbers(const std::string& where, const std::vector<Entry>& entries) {
  const int total = static_cast<int>(entries.size());
  std::map<int, std::string> seen;  // k -> label
  for (int i = 0; i < total; ++i) {
    const Entry& e = entries[i];
    if (!e.number) continue;
    const int k = e.number->k, n = e.number->n;
    if (auto dup = seen.find(k); dup != seen.end()) {
      return make_error(
          fmt::format("{}: {} and {} are both patch {}/{}", where, dup->second, e.label, k, n));
    }
    seen[k] = e.label;
    if (k > i + 1) {
      for (int j = i + 1; j < total; ++j) {
        if (entries[j].number && entries[j].number->k == i + 1) {
          return make_error(fmt::format("{}: {} (patch {}/{}) comes before {} (patch {}/{})", where,
                                        e.label, k, n, entries[j].label, i + 1, n));
        }
      }
      return make_error(
          fmt::format("{}: patch {}/{} is missing (the next one is {})", where, i + 1, n, e.label));
    }
    if (n != total) {
      return make_error(fmt::format("{}: {} is patch {}/{} but the series holds {} patch(es)",
                                    where, e.label, k, n, total));
    }
  }
  return {};
}

// The cover letter's "0/N" against the number of patches.
Result<void> check_cover(const std::string& where, const CoverLetter& cover, size_t patches) {
  auto number = subject_number(cover.subject);
  if (!number || number->n == static_cast<int>(patches)) return {};
  return make_error(
      fmt::format("{}: the cover letter ({}) announces {} patch(es), the series holds {}", where,
                  cover.file, number->n, patches));
}

// Splits `mbox` into <dir>/0001, 0002, ... once (a folder per mbox content: kept and reused).
Result<void> split_mbox(ProcessRunner& runner, const fs::path& mbox, const fs::path& dir) {
  if (path_exists(dir / kSplitDone)) return {};
  const fs::path tmp = dir.string() + ".tmp" + std::to_string(::getpid());
  FL_TRY(remove_tree(tmp));
  FL_TRY(make_dirs(tmp));
  ProcessResult r = runner.run(
      {.argv = {"git", "mailsplit", "-o" + tmp.string(), mbox.string()}, .capture = true});
  if (!r.ok()) {
    (void)remove_tree(tmp);
    return make_error(fmt::format("patch series {}: not an mbox git can split ({}): {}{}",
                                  mbox.string(), r.describe(), r.output, r.spawn_error));
  }
  FL_TRY(write_file_atomic(tmp / kSplitDone, ""));
  FL_TRY(remove_tree(dir));
  if (!rename_path(tmp, dir).ok() && !path_exists(dir / kSplitDone)) {
    return make_env_error(fmt::format("cannot keep the split mbox in {}", dir.string()));
  }
  (void)remove_tree(tmp);
  return {};
}

// b4 writes the cover letter beside the mbox: <name>.cover.
Result<std::optional<CoverLetter>> sibling_cover(ProcessRunner& runner, const fs::path& mbox) {
  fs::path file = mbox;
  file.replace_extension(".cover");
  if (!path_exists(file)) return std::optional<CoverLetter>();
  auto text = read_file(file);
  if (!text.ok()) return text.error();
  auto mail = read_mail(runner, file);
  if (!mail.ok()) return mail.error();
  std::string subject = mail->subject;
  if (subject.empty())
    subject = std::string(trim(split_lines(*text).empty() ? "" : split_lines(*text)[0]));
  return std::optional<CoverLetter>(CoverLetter{subject, file.string(), sha256_hex(*text)});
}

// One message of an mbox: the cover letter (0/N) or a patch.
Result<void> add_message(ProcessRunner& runner, const fs::path& mbox, const fs::path& file,
                         int index, Series* series, std::vector<Entry>* entries) {
  const std::string where = mbox.string();
  auto mail = read_mail(runner, file);
  if (!mail.ok()) return mail.error();
  if (!mail->is_mail) {
    return make_error(
        fmt::format("{}: message {} is not a mail (no From: or Subject: header)", where, index));
  }
  auto text = read_file(file);
  if (!text.ok()) return text.error();
  const auto number = subject_number(mail->subject);
  const std::string name = fmt::format("{}#{}", mbox.filename().string(), index);
  if (number && number->k == 0) {
    if (series->cover) {
      return make_error(fmt::format("{}: two cover letters ({} and message {} {})", where,
                                    series->cover->file, index, in_quotes(mail->subject)));
    }
    series->cover = CoverLetter{mail->subject, name, sha256_hex(*text)};
    return {};
  }
  if (!holds_unified_diff(*text)) {
    return make_error(
        fmt::format("{}: message {} {} holds no diff", where, index, in_quotes(mail->subject)));
  }
  series->patches.push_back({name, file, std::move(*text), strip_subject_tags(mail->subject)});
  entries->push_back({fmt::format("message {} {}", index, in_quotes(mail->subject)), number});
  return {};
}

Result<Series> load_mbox(ProcessRunner& runner, const fs::path& mbox, const fs::path& scratch) {
  auto text = read_file(mbox);
  if (!text.ok())
    return make_error(fmt::format("patch series {}: {}", mbox.string(), text.error().message));
  const fs::path root =
      scratch.empty() ? fs::temp_directory_path() / fmt::format("foliolab-mbox-{}", ::getuid())
                      : scratch;
  const fs::path dir = root / sha256_hex(*text).substr(0, 16);
  FL_TRY(split_mbox(runner, mbox, dir));
  auto files = list_dir(dir);
  if (!files.ok()) return files.error();
  Series series{.name = mbox.filename().string(), .form = SeriesForm::kMbox};
  std::vector<Entry> entries;
  int index = 0;
  for (const fs::path& file : *files) {
    if (file.filename().string().front() == '.') continue;
    FL_TRY(add_message(runner, mbox, file, ++index, &series, &entries));
  }
  if (series.patches.empty()) {
    return make_error(fmt::format("patch series {}: the mbox holds no patches ({} message(s){})",
                                  mbox.string(), index, series.cover ? ", a cover letter" : ""));
  }
  FL_TRY(check_numbers(mbox.string(), entries));
  if (!series.cover) {
    auto cover = sibling_cover(runner, mbox);
    if (!cover.ok()) return cover.error();
    series.cover = std::move(*cover);
  }
  if (series.cover) FL_TRY(check_cover(mbox.string(), *series.cover, series.patches.size()));
  return series;
}

// The NNNN-*.patch files of `dir` by number: gaps, duplicates and mixed versions are errors.
Result<std::vector<std::pair<int, fs::path>>> numbered_files(const fs::path& dir) {
  auto files = list_dir(dir);
  if (!files.ok()) return files.error();
  std::vector<std::pair<int, fs::path>> out;
  std::set<std::string> versions;
  for (const fs::path& f : *files) {
    auto number = format_patch_number(f.filename().string());
    if (!number) continue;
    out.push_back({number->number, f});
    versions.insert(number->version);
  }
  if (out.empty()) return make_error(series_location_problem(dir));
  if (versions.size() > 1) {
    return make_error(fmt::format("patch series {}: holds files of several versions ({}): keep one",
                                  dir.string(), fmt::join(versions, ", ")));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const int first = out.front().first == 0 ? 0 : 1;
  for (size_t i = 0; i < out.size(); ++i) {
    const int want = first + static_cast<int>(i);
    if (out[i].first == want) continue;
    if (i > 0 && out[i].first == out[i - 1].first) {
      return make_error(fmt::format("patch series {}: {} and {} are both patch {:04}", dir.string(),
                                    out[i - 1].second.filename().string(),
                                    out[i].second.filename().string(), out[i].first));
    }
    return make_error(fmt::format("patch series {}: patch {:04} is missing (the next one is {})",
                                  dir.string(), want, out[i].second.filename().string()));
  }
  return out;
}

Result<Series> load_format_patch(ProcessRunner& runner, const fs::path& dir) {
  auto files = numbered_files(dir);
  if (!files.ok()) return files.error();
  Series series{.name = dir.filename().string(), .form = SeriesForm::kFormatPatch};
  std::vector<Entry> entries;
  for (const auto& [number, file] : *files) {
    auto text = read_file(file);
    if (!text.ok()) return text.error();
    auto mail = read_mail(runner, file);
    if (!mail.ok()) return mail.error();
    const std::string name = file.filename().string();
    if (!mail->is_mail && text->rfind("From ", 0) == 0) {
      return make_error(
          fmt::format("{}: not a mail git can read (no From: or Subject: header)", file.string()));
    }
    if (number == 0) {
      series.cover = CoverLetter{mail->subject, file.string(), sha256_hex(*text)};
      continue;
    }
    if (!holds_unified_diff(*text))
      return make_error(fmt::format("{}: holds no diff", file.string()));
    entries.push_back({mail->subject.empty() ? name : name + " " + in_quotes(mail->subject),
                       subject_number(mail->subject)});
    series.patches.push_back({name, file, std::move(*text), strip_subject_tags(mail->subject)});
  }
  if (series.patches.empty()) {
    return make_error(
        fmt::format("patch series {}: only a cover letter, no patches", dir.string()));
  }
  FL_TRY(check_numbers(dir.string(), entries));
  if (series.cover) FL_TRY(check_cover(dir.string(), *series.cover, series.patches.size()));
  return series;
}

}  // namespace

std::string series_location_problem(const fs::path& where) {
  std::error_code ec;
  if (fs::is_directory(where, ec)) {
    if (fs::is_regular_file(where / "series", ec) || has_format_patch_files(where)) return "";
    return fmt::format(
        "patch series folder {} has no 'series' file and no NNNN-*.patch files (git "
        "format-patch)",
        where.string());
  }
  if (is_mbox_name(where)) return "";
  return fmt::format("patch series {} is neither a folder nor an mbox file (.mbx, .mbox)",
                     where.string());
}

Result<Series> load_patch_series(ProcessRunner& runner, const fs::path& where,
                                 const fs::path& scratch) {
  std::error_code ec;
  if (!fs::exists(where, ec)) {
    return make_error(fmt::format("patch series {}: no such folder or mbox file", where.string()));
  }
  if (const std::string problem = series_location_problem(where); !problem.empty())
    return make_error(problem);
  if (!fs::is_directory(where, ec)) return load_mbox(runner, where, scratch);
  if (fs::is_regular_file(where / "series", ec)) return load_series(where);
  return load_format_patch(runner, where);
}

std::string strip_subject_tags(const std::string& subject) {
  static const std::regex kTags(R"(^\s*(\[[^\]]*\]\s*)+)");
  return std::regex_replace(subject, kTags, "", std::regex_constants::format_first_only);
}

}  // namespace foliolab
