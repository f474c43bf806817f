// newc cpio archives written with libarchive: the base initramfs and per-run job archives.
// Linux unpacks concatenated archives in order, so a run's job travels as a second archive
// appended to the cached base image and nothing is rebuilt per run.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/result.h"

namespace foliolab {

struct CpioEntry {
  enum class Kind { kFile, kDir, kCharDev };
  std::string path;  // relative, no leading '/': "init", "workloads/fault", "dev/console"
  Kind kind = Kind::kFile;
  unsigned mode = 0644;
  std::string data;                       // kFile contents
  unsigned dev_major = 0, dev_minor = 0;  // kCharDev
};

// Serialized newc archive (all entries owned by root, mtime 0 for reproducibility).
Result<std::string> write_cpio(const std::vector<CpioEntry>& entries);

// Lists the entries of one cpio archive: path -> data, for tests. libarchive stops at the first
// TRAILER!!!, so of concatenated archives only the first is read.
Result<std::vector<CpioEntry>> read_cpio(const std::string& bytes);

}  // namespace foliolab
