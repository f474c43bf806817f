#include "image/cpio.h"

#include <gtest/gtest.h>

#include "image/image_builder.h"
#include "util/fs.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

TEST(Cpio, RoundTripsFilesDirsAndDeviceNodes) {
  auto bytes = write_cpio({{"dev", CpioEntry::Kind::kDir, 0755, {}, 0, 0},
                           {"dev/console", CpioEntry::Kind::kCharDev, 0600, {}, 5, 1},
                           {"init", CpioEntry::Kind::kFile, 0755,
                            std::string("\x7f"
                                        "ELF\0x",
                                        6),
                            0, 0}});
  ASSERT_TRUE(bytes.ok()) << bytes.error().message;
  EXPECT_EQ(bytes->substr(0, 6), "070701");  // newc, what the kernel unpacks
  EXPECT_EQ(bytes->size() % 4, 0u);
  auto entries = read_cpio(*bytes);
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[1].kind, CpioEntry::Kind::kCharDev);
  EXPECT_EQ((*entries)[1].dev_major, 5u);
  EXPECT_EQ((*entries)[1].dev_minor, 1u);
  EXPECT_EQ((*entries)[2].data, std::string("\x7f"
                                            "ELF\0x",
                                            6));
  EXPECT_EQ((*entries)[2].mode, 0755u);
}

TEST(Cpio, RunInitrdIsTheBaseFollowedByTheJobArchive) {
  const fs::path dir = fs::temp_directory_path() / ("foliolab-cpio-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto base = write_cpio({{"init", CpioEntry::Kind::kFile, 0755, "agent", 0, 0}});
  ASSERT_TRUE(base.ok());
  ASSERT_TRUE(write_file_atomic(dir / "base.cpio", *base).ok());
  ASSERT_TRUE(
      write_run_initrd(dir / "base.cpio", "foliolab-job 1\nrun_id x\n", dir / "run.cpio").ok());
  auto combined = read_file(dir / "run.cpio");
  ASSERT_TRUE(combined.ok());
  EXPECT_EQ(combined->substr(0, base->size()), *base);  // the cached image is reused byte for byte
  // libarchive stops at the first trailer; the kernel goes on to the next archive, which starts
  // at the next 4-byte boundary.
  const size_t job_at = (base->size() + 3) / 4 * 4;
  auto entries = read_cpio(combined->substr(job_at));
  ASSERT_TRUE(entries.ok()) << entries.error().message;
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[1].path, "job/job.txt");
  EXPECT_EQ((*entries)[1].data, "foliolab-job 1\nrun_id x\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace foliolab
