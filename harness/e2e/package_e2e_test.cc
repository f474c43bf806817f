// The Debian package on a fresh machine (issue 28): `cpack -G DEB` of this build, a clean
// bookworm minbase made by the real mmdebstrap with the .deb given to it, so apt installs it
// and pulls its Depends from Debian's archive; then inside that chroot, as a new user would:
// `foliolab doctor`, `foliolab init myproj && cd myproj && foliolab plan
// experiments/quickstart.yaml`, `foliolab image --arch x86_64` (the guest agent and the
// workloads compiled by what the package pulled in), the man page and the bash completion.
// Proof that the package's dependencies are complete, whatever this host happens to have.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "testing/cli_binary.h"
#include "testing/temp_dir.h"
#include "util/cache_root.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;
using ::testing::HasSubstr;

// Runs inside the chroot: each step's output and exit status under /root/out, for the test to
// judge; the script itself always exits 0 so that mmdebstrap hands the results back.
constexpr const char* kChecks = R"(mkdir -p /root/out
run() { name=$1; shift; "$@" > "/root/out/$name.txt" 2>&1; echo $? > "/root/out/$name.rc"; }
cd /root && run doctor foliolab doctor
cd /root && run init foliolab init myproj
cd /root/myproj && run plan foliolab plan experiments/quickstart.yaml
cd /root && run image foliolab image --arch x86_64
run completion bash -c '. /usr/share/bash-completion/completions/foliolab; COMP_WORDS=(foliolab pl); COMP_CWORD=1; _foliolab; echo "${COMPREPLY[*]}"'
run man test -s /usr/share/man/man1/foliolab.1
run version foliolab --version
exit 0
)";

// Runs `argv`, its output kept in `log` (one file per step) for a failure to be read later.
ProcessResult run(std::vector<std::string> argv, const fs::path& log) {
  RealProcessRunner proc;
  auto r =
      proc.run({.argv = std::move(argv), .capture = true, .timeout = std::chrono::minutes(30)});
  EXPECT_TRUE(write_file_atomic(log, r.output).ok());
  return r;
}

struct Step {
  int rc = -1;
  std::string output;
};

Step step(const fs::path& out, const std::string& name) {
  Step s;
  if (auto rc = read_file(out / (name + ".rc")); rc.ok()) s.rc = std::stoi(*rc);
  if (auto text = read_file(out / (name + ".txt")); text.ok()) s.output = *text;
  return s;
}

TEST(E2EPackage, TheDebInstallsIntoAFreshBookwormAndRunsThere) {
  ScopedTestDir dir("package-e2e");
  const fs::path build_dir = fs::path(cli_binary()).parent_path();
  auto cpack = run({"cpack", "-G", "DEB", "--config", (build_dir / "CPackConfig.cmake").string(),
                    "-B", (dir / "deb").string()},
                   dir / "cpack.log");
  ASSERT_EQ(cpack.exit_code, 0) << cpack.output;
  fs::path deb;
  for (const auto& e : fs::directory_iterator(dir / "deb")) {
    if (e.path().extension() == ".deb") deb = e.path();
  }
  ASSERT_FALSE(deb.empty()) << cpack.output;
  ASSERT_TRUE(write_file_atomic(dir / "checks.sh", kChecks).ok());
  // The archives apt downloaded last time, offered to apt again (it checks each against the
  // archive's index and fetches what is missing or stale): a download cache, nothing more.
  const fs::path archives = cache_root() / "apt-archives";
  fs::create_directories(archives);
  auto made =
      run({"mmdebstrap", "--mode=root", "--variant=minbase", "--include=" + deb.string(),
           "--hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount",
           "--setup-hook=mkdir -p \"$1\"/var/cache/apt/archives && find " + archives.string() +
               " -name '*.deb' -exec cp -t \"$1\"/var/cache/apt/archives {} +",
           "--customize-hook=copy-in " + (dir / "checks.sh").string() + " /root",
           "--customize-hook=chroot \"$1\" sh /root/checks.sh",
           "--customize-hook=copy-out /root/out " + dir.path().string(),
           "--customize-hook=find \"$1\"/var/cache/apt/archives -name '*.deb' -exec cp -t " +
               archives.string() + " {} +",
           "--skip=download/empty", "bookworm", (dir / "chroot").string()},
          dir / "mmdebstrap.log");
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const fs::path out = dir / "out";

  const Step doctor = step(out, "doctor");
  EXPECT_EQ(doctor.rc, 0) << doctor.output;
  EXPECT_THAT(doctor.output, HasSubstr("the main job can run"));
  EXPECT_THAT(doctor.output, HasSubstr("/usr/bin/qemu-system-aarch64"));
  EXPECT_THAT(doctor.output, HasSubstr("/usr/bin/arch-test"));

  const Step init = step(out, "init");
  EXPECT_EQ(init.rc, 0) << init.output;
  const Step plan = step(out, "plan");
  EXPECT_EQ(plan.rc, 0) << plan.output;
  EXPECT_THAT(plan.output, HasSubstr("x86_64.6.12-mthp-vmstat.64k-mthp.fault."));
  EXPECT_THAT(plan.output, HasSubstr("/usr/share/foliolab/patches/mthp-vmstat"));

  const Step image = step(out, "image");
  EXPECT_EQ(image.rc, 0) << image.output;
  EXPECT_THAT(image.output, HasSubstr("x86_64 "));
  EXPECT_THAT(image.output, HasSubstr("initramfs.cpio"));

  const Step completion = step(out, "completion");
  EXPECT_EQ(completion.rc, 0) << completion.output;
  EXPECT_EQ(completion.output, "plan\n");
  EXPECT_EQ(step(out, "man").rc, 0);
  const Step version = step(out, "version");
  EXPECT_THAT(version.output, HasSubstr("foliolab 0.1.0"));
}

}  // namespace
}  // namespace foliolab
