#include "testing/fake_kernel_tree.h"

#include <gtest/gtest.h>

#include "util/fs.h"

namespace foliolab {

void FakeKernelTree::put(const std::string& rel, const std::string& text) const {
  ASSERT_TRUE(write_file_atomic(path() / rel, text).ok()) << rel;
}

void FakeKernelTree::linux_source(const std::string& rel, int sublevel,
                                  const std::string& memory_c) const {
  put(rel + "/Makefile", "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = " + std::to_string(sublevel) +
                             "\nEXTRAVERSION =\n");
  put(rel + "/mm/memory.c", memory_c);
}

void FakeKernelTree::base_config(const std::string& project) const {
  put(project + "/kernel-config/guest-base.config", "CONFIG_64BIT=y\n");
  put(project + "/kernel-config/x86_64.config", "CONFIG_NUMA=y\n");
}

}  // namespace foliolab
