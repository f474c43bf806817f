#include "backend/kvm_smoke.h"

#include <gtest/gtest.h>

#include "testing/temp_dir.h"
#include "util/build_info.h"
#include "util/fs.h"

namespace foliolab {
namespace {

namespace fs = std::filesystem;

// The bytes in kvm_smoke.cc are kvm_smoke.S assembled (binutils is on every build machine: gcc
// needs it).
TEST(KvmSmoke, FirmwareIsItsAssemblySource) {
  const fs::path src = fs::path(source_dir()) / "harness/backend/kvm_smoke.S";
  const fs::path dir = fresh_test_dir("kvm-smoke");
  RealProcessRunner proc;
  const fs::path obj = dir / "smoke.o", bin = dir / "smoke.bin";
  ASSERT_TRUE(proc.run({.argv = {"as", "--32", src.string(), "-o", obj.string()}}).ok());
  ASSERT_TRUE(proc.run({.argv = {"objcopy", "-O", "binary", obj.string(), bin.string()}}).ok());
  auto assembled = read_file(bin);
  ASSERT_TRUE(assembled.ok());
  EXPECT_EQ(assembled->size(), 65536u);
  EXPECT_TRUE(*assembled == kvm_smoke_firmware());
}

// Real QEMU: the firmware reaches its exit under TCG, and the KVM run ends one way or the other
// well inside its deadline's bound (whether KVM works depends on the host).
TEST(E2EKvmSmoke, TcgRunsTheFirmwareToItsExit) {
  const std::string qemu = find_program("qemu-system-x86_64");
  ASSERT_FALSE(qemu.empty());
  const fs::path dir = fresh_test_dir("kvm-smoke");
  RealProcessRunner proc;
  auto smoke = run_kvm_smoke(proc, {.dir = dir, .qemu = qemu});
  ASSERT_TRUE(smoke.ok()) << smoke.error().message;
  EXPECT_GT(smoke->tcg_seconds, 0);
  EXPECT_GE(smoke->deadline_seconds, 2.0);
  EXPECT_TRUE(fs::exists(dir / "kvm-smoke.bin"));
  EXPECT_TRUE(fs::exists(smoke->kvm_log));
}

}  // namespace
}  // namespace foliolab
