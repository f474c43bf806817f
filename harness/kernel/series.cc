#include "kernel/series.h"

#include <fmt/format.h>

#include <regex>
#include <set>
#include <sstream>

#include "util/fs.h"
#include "util/hash.h"
#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

// How messages name a patch: its name, and a mail's subject.
std::string patch_label(const PatchFile& patch) {
  return patch.subject.empty() ? patch.name : fmt::format("{} \"{}\"", patch.name, patch.subject);
}

// "b/mm/memory.c\t2024-..." -> "mm/memory.c"; "/dev/null" -> "".
std::string diff_path(std::string p) {
  if (auto tab = p.find('\t'); tab != std::string::npos) p.resize(tab);
  while (!p.empty() && (p.back() == ' ' || p.back() == '\r')) p.pop_back();
  if (p == "/dev/null") return {};
  if (auto slash = p.find('/'); slash != std::string::npos) return p.substr(slash + 1);
  return p;
}

bool starts_with(std::string_view line, std::string_view prefix) {
  return line.substr(0, prefix.size()) == prefix;
}

// Where the diff of `lines` starts: a "diff " line, or a "--- " line followed by "+++ ".
size_t diff_start(const std::vector<std::string_view>& lines) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (starts_with(lines[i], "diff ")) return i;
    if (starts_with(lines[i], "--- ") && i + 1 < lines.size() && starts_with(lines[i + 1], "+++ "))
      return i;
  }
  return std::string::npos;
}

// "@@ -a,b +c,d @@": the old and new line counts (1 when left out).
bool hunk_counts(std::string_view line, int* old_lines, int* new_lines) {
  static const std::regex kHunkHeader(R"(^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(line.begin(), line.end(), m, kHunkHeader)) return false;
  *old_lines = m[1].matched ? std::stoi(m[1].str()) : 1;
  *new_lines = m[2].matched ? std::stoi(m[2].str()) : 1;
  return true;
}

// What follows the last hunk: kept from a "diff " line on (a file with no hunks, e.g. a mode
// change) up to the format-patch signature ("-- "), else dropped (signature, list footer).
std::string trailing_headers(const std::vector<std::string_view>& lines) {
  std::string out;
  bool keep = false;
  for (const std::string_view line : lines) {
    if (line == "-- ") break;
    keep = keep || starts_with(line, "diff ");
    if (keep) out += std::string(line) + "\n";
  }
  while (out.size() >= 2 && out.compare(out.size() - 2, 2, "\n\n") == 0) out.pop_back();
  return out;
}

}  // namespace

std::string_view series_form_name(SeriesForm form) {
  switch (form) {
    case SeriesForm::kQuilt:
      return "quilt";
    case SeriesForm::kFormatPatch:
      return "format-patch";
    case SeriesForm::kMbox:
      return "mbox";
  }
  return "?";
}

std::string applied_diff(std::string_view patch_text) {
  const std::vector<std::string_view> lines = split_lines(patch_text);
  const size_t start = diff_start(lines);
  if (start == std::string::npos) return std::string(patch_text);
  std::string out;
  std::vector<std::string_view> pending;  // lines between hunks, kept once another hunk follows
  int old_left = 0, new_left = 0;
  for (size_t i = start; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (old_left > 0 || new_left > 0) {
      const char c = line.empty() ? ' ' : line[0];  // mailers may strip a context line's space
      old_left -= (c == ' ' || c == '-') ? 1 : 0;
      new_left -= (c == ' ' || c == '+') ? 1 : 0;
    } else if (hunk_counts(line, &old_left, &new_left)) {
      for (const std::string_view p : pending) out += std::string(p) + "\n";
      pending.clear();
    } else if (!(pending.empty() && starts_with(line, "\\"))) {  // "\ No newline at end of file"
      pending.push_back(line);
      continue;
    }
    out += std::string(line) + "\n";
  }
  return out + trailing_headers(pending);
}

bool holds_unified_diff(std::string_view text) {
  return diff_start(split_lines(text)) != std::string::npos;
}

namespace {

// "1-3", "1,2,4,5", "none": 1-based, as patch numbers are said.
std::string pick_text(const std::vector<size_t>& indices) {
  if (indices.empty()) return "none";
  bool run = true;
  for (size_t i = 1; i < indices.size(); ++i) run = run && indices[i] == indices[i - 1] + 1;
  if (run && indices.size() > 2) {
    return fmt::format("{}-{}", indices.front() + 1, indices.back() + 1);
  }
  std::string out;
  for (size_t i : indices) out += (out.empty() ? "" : ",") + std::to_string(i + 1);
  return out;
}

}  // namespace

Result<void> pick_patches(Series& series, const std::vector<size_t>& indices) {
  const size_t total = series.patches.size();
  std::vector<PatchFile> kept;
  for (size_t k = 0; k < indices.size(); ++k) {
    const size_t i = indices[k];
    if (i >= total || (k > 0 && i <= indices[k - 1])) {
      return make_error(fmt::format("series {}: no patch {} to pick of {} (indices must rise)",
                                    series.name, i + 1, total));
    }
    kept.push_back(series.patches[i]);
  }
  series.patches = std::move(kept);
  series.name = fmt::format("{} (patches {} of {})", series.name, pick_text(indices), total);
  return {};
}

std::string series_digest(const std::optional<Series>& series) {
  Hasher h;
  if (series) {
    for (const auto& p : series->patches) h.add(applied_diff(p.text));
  }
  return h.hex();
}

Result<Series> load_series(const fs::path& dir) {
  Series series;
  series.name = dir.filename().string();
  auto listing = read_file(dir / "series");
  if (!listing.ok())
    return make_error(fmt::format("patch series {}: {}", dir.string(), listing.error().message));
  int lineno = 0;
  for (const std::string_view raw : split_lines(*listing)) {
    ++lineno;
    const std::string line(trim(raw.substr(0, raw.find('#'))));
    if (line.empty()) continue;
    if (line.find(' ') != std::string::npos) {
      return make_error(fmt::format("{}:{}: patch options are not supported: {}",
                                    (dir / "series").string(), lineno, line));
    }
    PatchFile p{line, dir / line, {}};
    auto text = read_file(p.path);
    if (!text.ok()) {
      return make_error(fmt::format("{}:{}: {} is listed but cannot be read",
                                    (dir / "series").string(), lineno, line));
    }
    p.text = std::move(*text);
    series.patches.push_back(std::move(p));
  }
  if (series.patches.empty()) {
    return make_error(
        fmt::format("patch series {}: the series file lists no patches", dir.string()));
  }
  return series;
}

std::vector<std::string> files_touched(std::string_view patch_text) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::string minus;
  for (const std::string_view text_line : split_lines(patch_text)) {
    const std::string line(text_line);
    if (line.rfind("--- ", 0) == 0) {
      minus = diff_path(line.substr(4));
    } else if (line.rfind("+++ ", 0) == 0) {
      std::string plus = diff_path(line.substr(4));
      for (const auto& f : {minus, plus}) {
        if (!f.empty() && seen.insert(f).second) out.push_back(f);
      }
    }
  }
  return out;
}

std::vector<HunkFailure> parse_patch_output(std::string_view output) {
  static const std::regex kPatching(R"(^(?:checking|patching) file '?([^']+?)'?$)");
  static const std::regex kHunk(R"(^Hunk #(\d+) FAILED at (\d+)\.?.*$)");
  static const std::regex kMissing(R"(^can't find file to patch at input line (\d+))");
  static const std::regex kReversed(R"(^Reversed \(or previously applied\) patch detected)");
  std::vector<HunkFailure> failures;
  std::string current;
  for (const std::string_view text_line : split_lines(output)) {
    const std::string line(text_line);
    std::smatch m;
    if (std::regex_search(line, m, kPatching)) {
      current = m[1];
    } else if (std::regex_search(line, m, kHunk)) {
      failures.push_back({current, std::stoi(m[1]), std::stoi(m[2]), "FAILED"});
    } else if (std::regex_search(line, m, kMissing)) {
      failures.push_back({current, 0, 0, "missing file"});
    } else if (std::regex_search(line, m, kReversed)) {
      failures.push_back({current, 0, 0, "already applied (reversed patch detected)"});
    }
  }
  return failures;
}

std::string extract_hunk(std::string_view patch_text, const std::string& file, int hunk) {
  std::string out;
  bool in_file = false;
  int count = 0;
  bool capturing = false;
  for (const std::string_view text_line : split_lines(patch_text)) {
    const std::string line(text_line);
    if (line.rfind("+++ ", 0) == 0) {
      in_file = diff_path(line.substr(4)) == file;
      capturing = false;
      continue;
    }
    if (line.rfind("diff ", 0) == 0 || line.rfind("--- ", 0) == 0) {
      capturing = false;
      continue;
    }
    if (in_file && line.rfind("@@", 0) == 0) {
      capturing = (++count == hunk);
      if (!capturing && count > hunk) break;
    }
    if (capturing) out += line + "\n";
  }
  return out;
}

Result<void> apply_series(ProcessRunner& runner, const fs::path& tree, const Series& series,
                          const std::string& source_label) {
  const size_t total = series.patches.size();
  for (size_t i = 0; i < total; ++i) {
    const auto& patch = series.patches[i];
    std::vector<std::string> base = {
        "patch",           "-p1", "--batch",     "--forward", "--no-backup-if-mismatch",
        "--reject-file=-", "-d",  tree.string(), "-i",        patch.path.string()};
    std::vector<std::string> dry = base;
    dry.push_back("--dry-run");
    ProcessSpec spec{.argv = dry, .capture = true};
    ProcessResult r = runner.run(spec);
    if (!r.ok()) {
      std::string msg = fmt::format("patch {} ({}/{} in series {}) does not apply to {}:\n",
                                    patch_label(patch), i + 1, total, series.name, source_label);
      auto failures = parse_patch_output(r.output);
      for (const auto& f : failures) {
        if (f.hunk > 0) {
          msg += fmt::format("  {}: hunk #{} FAILED at line {}\n", f.file, f.hunk, f.line);
          msg += extract_hunk(patch.text, f.file, f.hunk);
        } else {
          msg += fmt::format("  {}: {}\n", f.file.empty() ? "?" : f.file, f.what);
        }
      }
      if (failures.empty())
        msg += "  patch said: " + r.output + (r.spawn_error.empty() ? "" : r.spawn_error);
      return make_error(msg);
    }
    spec.argv = base;
    r = runner.run(spec);
    if (!r.ok()) {
      return make_error(
          fmt::format("patch {} ({}/{} in series {}) passed --dry-run but failed: {}\n{}",
                      patch_label(patch), i + 1, total, series.name, r.describe(), r.output));
    }
  }
  return {};
}

}  // namespace foliolab
