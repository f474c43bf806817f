// Test helper: the one fake kernel tree of the kernel, kselftest and catalog tests (tuxmake keeps
// one for its whole pipeline). A fresh folder per test, removed when the test ends; `put` writes
// a file into it, `linux_source` and `base_config` write the parts most kernel tests start from.
#pragma once

#include <filesystem>
#include <string>

#include "testing/temp_dir.h"

namespace foliolab {

class FakeKernelTree : public ScopedTestDir {
 public:
  explicit FakeKernelTree(const std::string& prefix) : ScopedTestDir(prefix) {}

  // Writes `text` to <folder>/`rel`, creating its folders (a test assertion fails otherwise).
  void put(const std::string& rel, const std::string& text) const;
  // A Linux source tree at `rel`: the top Makefile of 6.12.`sublevel` and mm/memory.c.
  void linux_source(const std::string& rel, int sublevel, const std::string& memory_c) const;
  // The project's base fragments: kernel-config/guest-base.config (CONFIG_64BIT=y) and
  // kernel-config/x86_64.config (CONFIG_NUMA=y) under `project`.
  void base_config(const std::string& project = "project") const;
};

}  // namespace foliolab
