#include "backend/libvirt_xml.h"
#include "util/build_info.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

const fs::path kGolden = fs::path(foliolab::source_dir()) / "harness/backend/testdata/libvirt";

DomainSpec spec(Arch arch) {
  DomainSpec s;
  s.name = domain_name("quickstart-abc123", "1");
  s.arch = arch;
  s.machine.cpus = 2;
  s.machine.memory_mb = 1024;
  s.kernel = "/k/" + std::string(arch == Arch::kX86_64 ? "bzImage" : "Image");
  s.initrd = "/r/initrd.cpio";
  s.cmdline = kernel_cmdline(arch, "transparent_hugepage=always");
  s.console_log = "/r/console.log";
  s.records_file = "/r/records.bin";
  return s;
}

DomainSpec arm64_numa() {
  DomainSpec s = spec(Arch::kArm64);
  s.machine.numa = {{{0}, 512}, {{1}, 512}};
  s.machine.numa_distance = {{10, 20}, {20, 10}};
  return s;
}

DomainSpec x86_kvm_streams() {
  DomainSpec s = spec(Arch::kX86_64);
  s.accel = Accel::kKvm;
  s.console_log.clear();
  s.records_file.clear();
  return s;
}

// FOLIOLAB_UPDATE_GOLDEN=1 rewrites the file instead (review the diff before committing).
void expect_golden(const std::string& name, const std::string& xml) {
  const fs::path file = kGolden / name;
  if (std::getenv("FOLIOLAB_UPDATE_GOLDEN")) {
    ASSERT_TRUE(write_file_atomic(file, xml).ok());
  }
  auto want = read_file(file);
  ASSERT_TRUE(want.ok()) << want.error().message;
  EXPECT_EQ(xml, *want) << "golden file " << file
                        << " differs; FOLIOLAB_UPDATE_GOLDEN=1 rewrites it";
}

TEST(LibvirtXml, X86Q35TcgWithFileConsoleAndRecords) {
  expect_golden("x86_64-q35.xml", domain_xml(spec(Arch::kX86_64)));
}

TEST(LibvirtXml, Arm64VirtNumaCellsDistancesAndPreallocatedRam) {
  expect_golden("arm64-virt-numa.xml", domain_xml(arm64_numa()));
}

TEST(LibvirtXml, KvmUsesTheHostCpuAndPtysForTheStreamApi) {
  expect_golden("x86_64-kvm-streams.xml", domain_xml(x86_kvm_streams()));
}

TEST(LibvirtXml, NoPreallocationWhenNotAsked) {
  DomainSpec s = spec(Arch::kArm64);
  s.prealloc = false;
  EXPECT_EQ(domain_xml(s).find("allocation"), std::string::npos);
  EXPECT_NE(domain_xml(spec(Arch::kArm64)).find("<allocation mode='immediate'/>"),
            std::string::npos);
}

TEST(LibvirtXml, TextAndAttributesAreEscaped) {
  DomainSpec s = spec(Arch::kX86_64);
  s.cmdline = "a=<b> c='d' & e";
  s.console_log = "/r/it's/console.log";
  const std::string x = domain_xml(s);
  EXPECT_NE(x.find("<cmdline>a=&lt;b&gt; c=&apos;d&apos; &amp; e</cmdline>"), std::string::npos)
      << x;
  EXPECT_NE(x.find("<source path='/r/it&apos;s/console.log'/>"), std::string::npos) << x;
}

TEST(LibvirtXml, DomainNamesKeepOnlyPortableCharacters) {
  EXPECT_EQ(domain_name("exp-1.2_x", "7f"), "foliolab-exp-1.2_x-7f");
  EXPECT_EQ(domain_name("a b/c", "1"), "foliolab-a_b_c-1");
}

// The golden files are valid domain XML by libvirt's own schema (virt-xml-validate, from
// libvirt-clients, which scripts/setup.sh installs).
TEST(LibvirtXml, GoldenFilesPassLibvirtsSchema) {
  const std::string tool = find_program("virt-xml-validate");
  ASSERT_FALSE(tool.empty())
      << "virt-xml-validate not found; scripts/setup.sh installs libvirt-clients";
  RealProcessRunner runner;
  for (const char* name : {"x86_64-q35.xml", "arm64-virt-numa.xml", "x86_64-kvm-streams.xml"}) {
    ProcessResult r =
        runner.run({.argv = {tool, (kGolden / name).string(), "domain"}, .capture = true});
    EXPECT_TRUE(r.ok()) << name << ": " << r.describe() << "\n" << r.output;
  }
}

}  // namespace
}  // namespace foliolab
