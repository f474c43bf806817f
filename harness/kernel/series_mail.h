// The mail forms of a patch series (kernel/series.h) and the loading of any of the three forms:
// a folder of `git format-patch` files and an mbox, read by git (series_mail.cc).
#pragma once

#include <filesystem>
#include <string>

#include "kernel/series.h"
#include "util/process.h"
#include "util/result.h"

namespace foliolab {

// Any of the three forms: a folder with a `series` file (quilt), a folder of NNNN-*.patch files
// or an mbox file. An mbox is split under `scratch` (a folder per mbox content, reused; "" = the
// system's temporary folder). Errors name the file (and the message of an mbox).
Result<Series> load_patch_series(ProcessRunner& runner, const std::filesystem::path& where,
                                 const std::filesystem::path& scratch);

// "[PATCH v2 3/5] [RFC] mm: foo" -> "mm: foo".
std::string strip_subject_tags(const std::string& subject);

// What makes `where` no series, from its file names alone ("" = nothing): a folder with neither
// a `series` file nor NNNN-*.patch files, a file that is no .mbx/.mbox. `where` exists.
std::string series_location_problem(const std::filesystem::path& where);

}  // namespace foliolab
