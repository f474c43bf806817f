#include "backend/qemu_args.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace foliolab {
namespace {

bool has_pair(const std::vector<std::string>& a, const std::string& flag,
              const std::string& value) {
  for (size_t i = 0; i + 1 < a.size(); ++i) {
    if (a[i] == flag && a[i + 1] == value) return true;
  }
  return false;
}

QemuLaunch launch(Arch arch) {
  QemuLaunch l;
  l.arch = arch;
  l.machine.cpus = 2;
  l.machine.memory_mb = 1024;
  l.kernel = "/k/bzImage";
  l.initrd = "/r/initrd.cpio";
  l.cmdline = kernel_cmdline(arch, "transparent_hugepage=always");
  l.console_log = "/r/console.log";
  l.results_file = "/r/records.bin";
  return l;
}

TEST(QemuArgs, X86UsesQ35SerialConsoleAndAResultsPortApartFromIt) {
  auto a = qemu_argv(launch(Arch::kX86_64));
  EXPECT_EQ(a[0], "qemu-system-x86_64");
  EXPECT_TRUE(has_pair(a, "-M", "q35"));
  EXPECT_TRUE(has_pair(a, "-accel", "tcg"));
  EXPECT_TRUE(has_pair(a, "-cpu", "max"));
  EXPECT_TRUE(has_pair(a, "-smp", "2"));
  EXPECT_TRUE(has_pair(a, "-m", "1024M"));
  EXPECT_TRUE(has_pair(a, "-kernel", "/k/bzImage"));
  EXPECT_TRUE(has_pair(a, "-initrd", "/r/initrd.cpio"));
  EXPECT_TRUE(has_pair(
      a, "-append", "console=ttyS0 panic=-1 rdinit=/init loglevel=6 transparent_hugepage=always"));
  EXPECT_TRUE(has_pair(a, "-serial", "file:/r/console.log"));
  EXPECT_TRUE(has_pair(a, "-chardev", "file,id=results,path=/r/records.bin"));
  EXPECT_TRUE(has_pair(a, "-device", "virtserialport,chardev=results,name=org.foliolab.results"));
  EXPECT_NE(std::find(a.begin(), a.end(), "-no-reboot"), a.end());     // a panic ends QEMU
  EXPECT_NE(std::find(a.begin(), a.end(), "-mem-prealloc"), a.end());  // stable TCG timings
}

TEST(QemuArgs, Arm64UsesVirtMaxAndPl011) {
  auto l = launch(Arch::kArm64);
  auto a = qemu_argv(l);
  EXPECT_EQ(a[0], "qemu-system-aarch64");
  EXPECT_TRUE(has_pair(a, "-M", "virt"));
  EXPECT_TRUE(has_pair(a, "-cpu", "max"));
  EXPECT_EQ(l.cmdline.rfind("console=ttyAMA0 ", 0), 0u);
}

TEST(QemuArgs, BootPlatformOverridesForTheBootBench) {
  auto l = launch(Arch::kX86_64);
  auto plain = qemu_argv(l);
  EXPECT_EQ(std::find(plain.begin(), plain.end(), "-bios"), plain.end());
  l.bios = "/usr/share/qemu/qboot.rom";
  l.machine_override = "q35,sata=off";
  auto a = qemu_argv(l);
  EXPECT_TRUE(has_pair(a, "-M", "q35,sata=off"));
  EXPECT_TRUE(has_pair(a, "-bios", "/usr/share/qemu/qboot.rom"));
  EXPECT_TRUE(has_pair(a, "-device", "virtio-serial-pci"));
  l.machine_override = "microvm";  // no PCI bus: the serial bus sits on virtio-mmio
  EXPECT_TRUE(has_pair(qemu_argv(l), "-device", "virtio-serial-device"));
}

TEST(QemuArgs, KvmUsesTheHostCpu) {
  auto l = launch(Arch::kX86_64);
  l.accel = Accel::kKvm;
  auto a = qemu_argv(l);
  EXPECT_TRUE(has_pair(a, "-accel", "kvm"));
  EXPECT_TRUE(has_pair(a, "-cpu", "host"));
}

TEST(QemuArgs, IcountTimingAddsIcountUnderTcgOnBothArches) {
  for (Arch arch : {Arch::kX86_64, Arch::kArm64}) {
    QemuLaunch l = launch(arch);
    auto wall = qemu_argv(l);
    EXPECT_EQ(std::count(wall.begin(), wall.end(), "-icount"), 0);
    l.machine.timing = TimingMode::kIcount;
    auto icount = qemu_argv(l);
    EXPECT_TRUE(has_pair(icount, "-icount", "shift=0,sleep=off"));
    EXPECT_EQ(icount.size(), wall.size() + 2);  // nothing else changes
    EXPECT_TRUE(has_pair(icount, "-accel", "tcg"));
  }
}

TEST(QemuArgs, IcountIsNeverPassedWithKvm) {  // QEMU refuses it; plan refuses it first
  QemuLaunch l = launch(Arch::kX86_64);
  l.accel = Accel::kKvm;
  l.machine.timing = TimingMode::kIcount;
  auto a = qemu_argv(l);
  EXPECT_EQ(std::count(a.begin(), a.end(), "-icount"), 0);
}

TEST(QemuArgs, NumaNodesGetPreallocatedBackendsAndDistances) {
  auto l = launch(Arch::kArm64);
  l.machine.numa = {{{0}, 512}, {{1}, 512}};
  l.machine.numa_distance = {{10, 20}, {20, 10}};
  auto a = qemu_argv(l);
  EXPECT_TRUE(has_pair(a, "-object", "memory-backend-ram,id=m0,size=512M,prealloc=on"));
  EXPECT_TRUE(has_pair(a, "-numa", "node,memdev=m1,nodeid=1,cpus=1"));
  EXPECT_TRUE(has_pair(a, "-numa", "dist,src=0,dst=1,val=20"));
  EXPECT_EQ(std::find(a.begin(), a.end(), "-mem-prealloc"), a.end());
}

TEST(QemuArgs, CommasInPathsAreEscapedForChardevOptions) {
  auto l = launch(Arch::kX86_64);
  l.results_file = "/r/a,b/records.bin";
  auto a = qemu_argv(l);
  EXPECT_TRUE(has_pair(a, "-chardev", "file,id=results,path=/r/a,,b/records.bin"));
}

// machine.image: the Debian root filesystem is a raw virtio-blk disk with QEMU's snapshot=on
// (every run starts from the same bytes; parallel guests share the file).
TEST(QemuArgs, RootDiskIsASnapshotVirtioBlkDriveOnBothArches) {
  for (Arch arch : {Arch::kX86_64, Arch::kArm64}) {
    QemuLaunch l = launch(arch);
    const auto plain = qemu_argv(l);
    l.root_disk = "/cache/images/rootfs-x/disk.ext4";
    const auto a = qemu_argv(l);
    EXPECT_TRUE(has_pair(a, "-drive",
                         "file=/cache/images/rootfs-x/disk.ext4,if=none,id=root,format=raw,"
                         "snapshot=on,cache=unsafe"))
        << arch_info(arch).name;
    const std::string blk = arch == Arch::kArm64 ? "virtio-blk-device" : "virtio-blk-pci";
    EXPECT_TRUE(has_pair(a, "-device", blk + ",drive=root")) << arch_info(arch).name;
    EXPECT_EQ(a.size(), plain.size() + 4);  // nothing else changes
    EXPECT_TRUE(std::equal(plain.begin(), plain.end(), a.begin()));
    EXPECT_TRUE(has_pair(a, "-initrd", "/r/initrd.cpio"));  // the agent still boots from it
  }
}

// A run's own disks (swap, the churn's scratch disk) are writable and found by their serial.
TEST(QemuArgs, SwapAndScratchDisksAreWritableAndNamedBySerial) {
  for (Arch arch : {Arch::kX86_64, Arch::kArm64}) {
    QemuLaunch l = launch(arch);
    l.swap_disk = "/r/swap.img";
    l.scratch_disk = "/r/scratch.img";
    const auto a = qemu_argv(l);
    EXPECT_TRUE(has_pair(a, "-drive",
                         "file=/r/swap.img,if=none,id=swap,format=raw,cache=unsafe,discard=unmap"));
    const std::string blk = arch == Arch::kArm64 ? "virtio-blk-device" : "virtio-blk-pci";
    EXPECT_TRUE(has_pair(a, "-device", blk + ",drive=swap,serial=foliolab-swap"));
    EXPECT_TRUE(has_pair(a, "-drive",
                         "file=/r/scratch.img,if=none,id=scratch,format=raw,cache=unsafe,"
                         "discard=unmap"));
    EXPECT_TRUE(has_pair(a, "-device", blk + ",drive=scratch,serial=foliolab-scratch"));
  }
}

TEST(QemuArgs, NoDriveWithoutARootDisk) {
  for (Arch arch : {Arch::kX86_64, Arch::kArm64}) {
    const auto a = qemu_argv(launch(arch));
    EXPECT_EQ(std::count(a.begin(), a.end(), "-drive"), 0);
    EXPECT_EQ(std::count(a.begin(), a.end(), "virtio-blk-pci,drive=root"), 0);
  }
}

// arm64 guest kernels have no PCI: every virtio device sits on virt's MMIO transports.
TEST(QemuArgs, Arm64VirtioDevicesSitOnMmioX86OnPci) {
  const auto arm = qemu_argv(launch(Arch::kArm64));
  EXPECT_NE(std::find(arm.begin(), arm.end(), "virtio-serial-device"), arm.end());
  EXPECT_EQ(std::find(arm.begin(), arm.end(), "virtio-serial-pci"), arm.end());
  const auto x86 = qemu_argv(launch(Arch::kX86_64));
  EXPECT_NE(std::find(x86.begin(), x86.end(), "virtio-serial-pci"), x86.end());
}

TEST(QemuArgs, RootDiskOnMicrovmSitsOnVirtioMmio) {
  auto l = launch(Arch::kX86_64);
  l.machine_override = "microvm";
  l.root_disk = "/d/disk.ext4";
  const auto a = qemu_argv(l);
  EXPECT_TRUE(has_pair(a, "-device", "virtio-blk-device,drive=root"));
  EXPECT_EQ(std::count(a.begin(), a.end(), "virtio-blk-pci,drive=root"), 0);
}

// An image build's second stage installs packages into the disk itself: no snapshot.
TEST(QemuArgs, AWritableRootDiskKeepsTheGuestsWrites) {
  auto l = launch(Arch::kArm64);
  l.root_disk = "/tmp/stage/disk.ext4";
  l.root_disk_writable = true;
  const auto a = qemu_argv(l);
  EXPECT_TRUE(has_pair(a, "-drive",
                       "file=/tmp/stage/disk.ext4,if=none,id=root,format=raw,cache=writeback"));
  EXPECT_TRUE(has_pair(a, "-device", "virtio-blk-device,drive=root"));  // arm64: virtio-mmio
}

TEST(QemuArgs, CommasInTheRootDiskPathAreDoubled) {
  auto l = launch(Arch::kArm64);
  l.root_disk = "/cache/a,b/rootfs,x/disk.ext4";
  EXPECT_TRUE(has_pair(qemu_argv(l), "-drive",
                       "file=/cache/a,,b/rootfs,,x/disk.ext4,if=none,id=root,format=raw,"
                       "snapshot=on,cache=unsafe"));
}

}  // namespace
}  // namespace foliolab
