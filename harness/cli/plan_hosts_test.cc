// `foliolab plan` of an experiment for lab machines (backend kexec), from the real binary: a
// malformed machine.connect or hosts file exits 2 naming file:line:col before anything is
// built; a well-formed one plans.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "testing/cli_binary.h"
#include "testing/temp_dir.h"
#include "util/fs.h"
#include "util/process.h"

namespace foliolab {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

ProcessResult plan(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {cli_binary(), "plan"};
  argv.insert(argv.end(), args.begin(), args.end());
  RealProcessRunner proc;
  return proc.run({.argv = argv, .capture = true, .timeout = std::chrono::seconds(120)});
}

// A one-run kexec experiment; `machine` goes inside machine: {backend: kexec...}.
fs::path kexec_experiment(const ScopedTestDir& dir, const std::string& machine) {
  const fs::path file = dir / "lab.yaml";
  EXPECT_TRUE(write_file_atomic(file,
                                "name: lab\n"
                                "kernels: [{name: k}]\n"
                                "archs: [x86_64]\n"
                                "machine: {backend: kexec" +
                                    machine +
                                    "}\n"
                                    "knobs: {none: {}}\n"
                                    "workloads: [{name: fault}]\n")
                  .ok());
  return file;
}

TEST(PlanHosts, AMalformedConnectExitsTwoWithItsPlace) {
  ScopedTestDir dir("foliolab-plan-connect");
  const fs::path good = kexec_experiment(dir, ", connect: 'ssh://root@lab1:22/'");
  ProcessResult ok = plan({good.string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  for (const auto& [uri, why] : std::vector<std::pair<std::string, std::string>>{
           {"ssh://-Fpwn.conf", "would be read by ssh as an option"},
           {"ssh://root@lab1:99999", "the port must be from 1 to 65535"},
           {"ssh://[fd00::5]", "needs listen and report_address"}}) {
    const fs::path file = kexec_experiment(dir, ", connect: '" + uri + "'");
    ProcessResult r = plan({file.string()});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_THAT(r.output, HasSubstr(file.string() + ":4:36: machine.connect: "));
    EXPECT_THAT(r.output, HasSubstr(why));
  }
}

TEST(PlanHosts, AHostsFileWithOneMachineTwiceOrAMissingKeyExitsTwoWithItsPlace) {
  ScopedTestDir dir("foliolab-plan-hosts");
  const fs::path exp = kexec_experiment(dir, "");
  const fs::path hosts = dir / "hosts.yaml";
  ASSERT_TRUE(write_file_atomic(hosts, "hosts:\n  - ssh://lab1\n  - ssh://root@lab1:22/\n").ok());
  ProcessResult twice = plan({exp.string(), "--hosts", hosts.string()});
  EXPECT_EQ(twice.exit_code, 2) << twice.output;
  EXPECT_THAT(twice.output, HasSubstr(hosts.string() +
                                      ":3:5: hosts[1]: ssh://root@lab1:22/ is root@lab1:22 again "
                                      "(first at 2:5)"));
  ASSERT_TRUE(
      write_file_atomic(hosts, "hosts:\n  - {uri: ssh://lab1, identity: no-such-key}\n").ok());
  ProcessResult key = plan({exp.string(), "--hosts", hosts.string()});
  EXPECT_EQ(key.exit_code, 2) << key.output;
  EXPECT_THAT(key.output, HasSubstr(hosts.string() + ":2:33: hosts[0].identity: identity file " +
                                    (dir / "no-such-key").string() + ": does not exist"));
  ASSERT_TRUE(write_file_atomic(dir / "lab-key", "key\n").ok());
  ASSERT_TRUE(
      write_file_atomic(hosts, "hosts:\n  - {uri: ssh://lab1, identity: lab-key}\n  - ssh://lab2\n")
          .ok());
  ProcessResult ok = plan({exp.string(), "--hosts", hosts.string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

}  // namespace
}  // namespace foliolab
