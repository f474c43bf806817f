#include "kernel/series.h"

#include <fmt/format.h>

#include <regex>
#include <set>
#include <sstream>

#include "util/fs.h"

#include "util/text.h"

namespace foliolab {
namespace fs = std::filesystem;
namespace {

// "b/mm/memory.c\t2024-..." -> "mm/memory.c"; "/dev/null" -> "".
std::string diff_path(std::string p) {
  if (auto tab = p.find('\t'); tab != std::string::npos) p.resize(tab);
  while (!p.empty() && (p.back() == ' ' || p.back() == '\r')) p.pop_back();
  if (p == "/dev/null") return {};
  if (auto slash = p.find('/'); slash != std::string::npos) return p.substr(slash + 1);
  return p;
}

}  // namespace

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

Status apply_series(ProcessRunner& runner, const fs::path& tree, const Series& series,
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
                                    patch.name, i + 1, total, series.name, source_label);
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
                      patch.name, i + 1, total, series.name, r.describe(), r.output));
    }
  }
  return {};
}

}  // namespace foliolab
