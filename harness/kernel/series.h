// Patch series as linux-mm developers hold them, each named by its place under patches/:
// - a quilt folder: a `series` file naming its *.patch files in order;
// - a folder of `git format-patch` files (NNNN-*.patch or vN-NNNN-*.patch, no `series` file):
//   the numbering is the order, 0000-cover-letter.patch is the cover letter;
// - an mbox file (*.mbx or *.mbox, what `b4 am` writes), split with `git mailsplit`: the mbox
//   order is the order, its 0/N message (or b4's <name>.cover beside it) the cover letter.
// Mails are read with `git mailinfo`; "[PATCH v2 3/5]" numbers, where present, must agree with
// the order (a gap or a duplicate names the file). Every form becomes the same ordered list of
// patch files, applied with GNU patch in a private tree; a patch that does not apply is reported
// with its name (and subject), the failing file and hunk, and the hunk's text. The series'
// digest covers each patch's diff as applied, not names, mail headers or the cover letter: the
// same patches in any form are the same kernel build.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/process.h"
#include "util/result.h"

namespace foliolab {

enum class SeriesForm { kQuilt, kFormatPatch, kMbox };
std::string_view series_form_name(SeriesForm form);  // "quilt", "format-patch", "mbox"

struct PatchFile {
  std::string name;  // as listed in `series`, the format-patch file name, or "<mbox>#<message>"
  std::filesystem::path path;  // what GNU patch reads (an mbox's messages: split off in scratch)
  std::string text;
  std::string subject;  // a mail's subject without its "[PATCH ...]"; "" for a quilt patch
};

struct CoverLetter {
  std::string subject;  // as sent: "[PATCH v2 0/5] mm: ..."
  std::string file;     // its file, or "<mbox>#<message>"
  std::string sha256;   // of the message
};

struct Series {
  std::string name;  // folder or file name
  SeriesForm form = SeriesForm::kQuilt;
  std::vector<PatchFile> patches;
  std::optional<CoverLetter> cover;
};

// A quilt folder: its `series` file lists the patches.
Result<Series> load_series(const std::filesystem::path& dir);

// Keeps the patches at `indices` (0-based, in series order, each at most once) and names the
// pick in the series' name ("my-series (patches 1-3 of 5)"); an index past the end is an error.
// `bisect --series` builds a series' prefixes and the series without its culprit this way.
Result<void> pick_patches(Series& series, const std::vector<size_t>& indices);

// The unified diff GNU patch applies from `patch_text`: its file headers and hunks (taken by
// their line counts), without the mail headers, message, diffstat and signature around them. A
// text holding no unified diff is returned whole.
std::string applied_diff(std::string_view patch_text);

// Whether `text` holds a unified diff (a "diff " line, or "--- " followed by "+++ ").
bool holds_unified_diff(std::string_view text);

// Hash of the applied diffs, in order: what the kernel build id takes from a series (no series
// and an empty one hash as they always did).
std::string series_digest(const std::optional<Series>& series);

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
Result<void> apply_series(ProcessRunner& runner, const std::filesystem::path& tree,
                          const Series& series, const std::string& source_label);

}  // namespace foliolab
