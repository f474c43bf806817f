// Patch series: a folder with a `series` file naming its *.patch files in order (quilt style).
// Applied with GNU patch in a private tree; a patch that does not apply is reported with its
// name, the failing file and hunk, and the hunk's text.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/process.h"
#include "util/result.h"

namespace foliolab {

struct PatchFile {
  std::string name;  // as listed in `series`
  std::filesystem::path path;
  std::string text;
};

struct Series {
  std::string name;  // folder name
  std::vector<PatchFile> patches;
};

Result<Series> load_series(const std::filesystem::path& dir);

// Paths (relative to the tree root) that a unified diff creates, modifies or deletes.
std::vector<std::string> files_touched(std::string_view patch_text);

struct HunkFailure {
  std::string file;
  int hunk = 0;      // 1-based within that file; 0 = whole file (e.g. missing)
  int line = 0;      // where patch tried to apply it; 0 unknown
  std::string what;  // "FAILED", "missing file", "already applied"
};

// Reads GNU patch's output ("patching file X", "Hunk #2 FAILED at 4830.", "can't find file").
std::vector<HunkFailure> parse_patch_output(std::string_view output);

// Text of hunk number `hunk` (1-based) for `file` in a unified diff; "" if absent.
std::string extract_hunk(std::string_view patch_text, const std::string& file, int hunk);

// Applies every patch in order (each checked with --dry-run first, so a failing patch leaves the
// tree as the previous patch left it). `source_label` names the tree in messages.
Status apply_series(ProcessRunner& runner, const std::filesystem::path& tree, const Series& series,
                    const std::string& source_label);

}  // namespace foliolab
