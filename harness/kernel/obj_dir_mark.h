// An O= directory a build was interrupted in. make writes an object, then fixdep writes its
// .cmd file through stdout; a build killed between or during those writes (Ctrl-C, a job's
// timeout, a machine that restarts) leaves a truncated .cmd or object with a fresh mtime, and
// the next make in that directory stops on it ("kernel/time/.tick-sched.o.cmd:5: *** unterminated
// call to function 'wildcard'") or, worse, links the half-written object. So a build marks the
// directory before it runs make and removes the mark when make exits by itself (success or a
// compile error: make waits for its jobs, what it leaves is whole). The next build that finds a
// mark removes every file newer than it, which make then writes again; the rest is kept, so an
// interrupted build costs only what it was rebuilding.
#pragma once

#include <cstddef>
#include <filesystem>

#include "util/result.h"

namespace foliolab {

inline constexpr const char* kBuildingMark = ".foliolab-building";

// Writes the mark in `obj` (durably: a restart must not lose it).
Result<void> mark_obj_dir_building(const std::filesystem::path& obj);

// Removes the mark, if any.
Result<void> unmark_obj_dir(const std::filesystem::path& obj);

// When `obj` holds a mark: removes every file modified after it, then the mark, and returns how
// many files went. Without a mark (or without `obj`), removes nothing and returns 0.
Result<size_t> clean_interrupted_obj_dir(const std::filesystem::path& obj);

}  // namespace foliolab
