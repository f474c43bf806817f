#include "image/custom_workload.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "image/custom_workload_build.h"
#include "model/loader.h"
#include "testing/fake_process_runner.h"
#include "testing/temp_dir.h"
#include "util/fs.h"

namespace foliolab {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string elf(unsigned machine) {
  std::string b(64, '\0');
  b.replace(0, 4,
            "\x7f"
            "ELF");
  b[18] = static_cast<char>(machine & 0xff);
  b[19] = static_cast<char>(machine >> 8);
  return b;
}

TEST(CustomWorkload, SplitsArgumentsOnBlanksWithoutAShell) {
  EXPECT_EQ(split_args("  -n 5\t--x='a b' ;rm"),
            (std::vector<std::string>{"-n", "5", "--x='a", "b'", ";rm"}));
}

TEST(CustomWorkload, RejectsABinaryForTheOtherArch) {
  EXPECT_TRUE(check_elf_arch(elf(62), Arch::kX86_64, "p").ok());
  EXPECT_TRUE(check_elf_arch(elf(183), Arch::kArm64, "p").ok());
  auto st = check_elf_arch(elf(62), Arch::kArm64, "probe-x86");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("guest is arm64"), std::string::npos) << st.error().message;
  EXPECT_FALSE(check_elf_arch("#!/bin/sh\n", Arch::kX86_64, "script").ok());
}

TEST(CustomWorkload, RejectsADynamicallyLinkedProgram) {
  auto bytes = read_file("/bin/true");  // Debian's: dynamically linked
  ASSERT_TRUE(bytes.ok());
  auto st = check_elf_arch(*bytes, Arch::kX86_64, "/bin/true");
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.error().message, HasSubstr("/bin/true: dynamically linked"));
  std::string fake = elf(62);
  fake[4] = 2;
  fake[5] = 1;
  fake[32] = 64;  // one program header right after the ELF header: PT_INTERP
  fake[54] = 56;
  fake[56] = 1;
  fake += std::string(56, '\0');
  fake[64] = 3;
  EXPECT_FALSE(check_elf_static(fake, "fake").ok());
  fake[64] = 1;  // PT_LOAD
  EXPECT_TRUE(check_elf_static(fake, "fake").ok());
}

TEST(CustomWorkload, NeedsExactlyOneOfSourceAndProgram) {
  RealProcessRunner runner;
  WorkloadSpec w;
  w.name = "custom";
  w.label = "probe";
  auto r = custom_workload_files(runner, w, Arch::kX86_64, "/tmp", "/tmp");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("exactly one of params.source"), std::string::npos);
  w.params = {{"source", "p.c"}};
  w.build.command = {"make"};
  EXPECT_FALSE(custom_workload_files(runner, w, Arch::kX86_64, "/tmp", "/tmp").ok());
  WorkloadSpec builtin;
  builtin.name = "fault";
  auto none = custom_workload_files(runner, builtin, Arch::kX86_64, "/tmp", "/tmp");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

void write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// Ships the workload for x86_64 and runs the shipped binary here; its stdout.
std::string ship_and_run(ProcessRunner& runner, const WorkloadSpec& w,
                         const std::filesystem::path& dir) {
  auto files = custom_workload_files(runner, w, Arch::kX86_64, dir / "spec", dir / "cache");
  if (!files.ok()) return "error: " + files.error().message;
  if (files->size() != 2) return "error: no binary";
  const std::filesystem::path bin = dir / "shipped";
  std::filesystem::remove(bin);
  std::ofstream(bin, std::ios::binary) << files->at(1).data;
  ::chmod(bin.c_str(), 0755);
  RealProcessRunner real;
  ProcessResult r = real.run({.argv = {bin.string()}, .capture = true});
  return r.ok() ? r.output : "error: " + r.describe();
}

WorkloadSpec custom(std::vector<std::string> sources) {
  WorkloadSpec w;
  w.name = "custom";
  w.label = "probe";
  w.sources = std::move(sources);
  return w;
}

constexpr const char* kMain =
    "#include <stdio.h>\n#include \"value.h\"\nint main(void) { printf(\"%d\\n\", VALUE); "
    "return 0; }\n";

// The issue's done-when: edit only a header the program includes; the new binary runs.
TEST(CustomWorkload, AnEditedHeaderRebuildsTheProgram) {
  const auto dir = fresh_test_dir("custom-header");
  write(dir / "spec/prog/main.c", kMain);
  write(dir / "spec/prog/value.h", "#define VALUE 1\n");
  FakeProcessRunner runner;  // no scripts: runs the real programs and counts them
  const WorkloadSpec w = custom({"prog/main.c"});
  EXPECT_EQ(ship_and_run(runner, w, dir), "1\n");
  EXPECT_EQ(runner.count("gcc"), 3u);  // --version, compile, link
  EXPECT_EQ(ship_and_run(runner, w, dir), "1\n");
  EXPECT_EQ(runner.count("gcc"), 4u);  // a hit: only --version
  write(dir / "spec/prog/value.h", "#define VALUE 2\n");
  EXPECT_EQ(ship_and_run(runner, w, dir), "2\n");
  EXPECT_EQ(runner.count("gcc"), 7u);
  write(dir / "spec/prog/value.h", "#define VALUE 1\n");  // back: rebuilt again, still right
  EXPECT_EQ(ship_and_run(runner, w, dir), "1\n");
}

TEST(CustomWorkload, SeveralSourcesAreLinkedTogether) {
  const auto dir = fresh_test_dir("custom-sources");
  write(dir / "spec/main.c",
        "#include <stdio.h>\nint value(void);\nint main(void) { printf(\"%d\\n\", value()); "
        "return 0; }\n");
  write(dir / "spec/lib/value.c", "#include \"value.h\"\nint value(void) { return VALUE; }\n");
  write(dir / "spec/lib/value.h", "#define VALUE 41\n");
  RealProcessRunner runner;
  const WorkloadSpec w = custom({"main.c", "lib/value.c"});
  EXPECT_EQ(ship_and_run(runner, w, dir), "41\n");
  write(dir / "spec/lib/value.h", "#define VALUE 42\n");
  EXPECT_EQ(ship_and_run(runner, w, dir), "42\n");
  write(dir / "spec/main.c", "int main(void) { syntax error }\n");
  EXPECT_THAT(ship_and_run(runner, w, dir),
              HasSubstr("custom workload probe: compiling " + (dir / "spec/main.c").string() +
                        " for x86_64 failed (exit status 1); its last lines:"));
}

// Issue 27: `foliolab run my.yaml` from the experiment's folder (or a relative path from
// elsewhere) compiles its sources; the compiler runs in a scratch folder, so a source path left
// relative to the shell's folder was not found there.
TEST(CustomWorkload, AnExperimentNamedByARelativePathCompilesItsSources) {
  const auto dir = fresh_test_dir("custom-relative");
  write(dir / "exp/main.c",
        "#include <stdio.h>\nint value(void);\nint main(void) { printf(\"%d\\n\", value()); "
        "return 0; }\n");
  write(dir / "exp/lib/value.c", "int value(void) { return 27; }\n");
  write(dir / "exp/my.yaml", R"(name: rel
kernels: [{name: k}]
archs: [x86_64]
knobs: {a: {enabled: never}}
workloads:
  - {name: custom, label: probe, params: {source: [main.c, lib/value.c]}}
)");
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  auto exp = load_experiment("exp/my.yaml");
  std::filesystem::current_path(cwd);  // the build must not depend on the folder it runs from
  ASSERT_TRUE(exp.ok()) << exp.error().message;
  EXPECT_EQ(exp->file, "exp/my.yaml");  // messages name the file as it was given
  EXPECT_EQ(exp->dir, (dir / "exp").string());
  RealProcessRunner runner;
  auto files =
      custom_workload_files(runner, exp->workloads[0], Arch::kX86_64, exp->dir, dir / "cache");
  ASSERT_TRUE(files.ok()) << files.error().message;
  ASSERT_EQ(files->size(), 2u);
}

constexpr const char* kMakefile = "prog: main.c value.h\n\t$(CC) $(LDFLAGS) -O2 -o $@ main.c\n";

TEST(CustomWorkload, ABuildCommandRunsInACopyAndIsCachedByTheTree) {
  const auto dir = fresh_test_dir("custom-build");
  write(dir / "spec/prog/main.c", kMain);
  write(dir / "spec/prog/value.h", "#define VALUE 7\n");
  write(dir / "spec/prog/Makefile", kMakefile);
  FakeProcessRunner runner;  // no scripts: runs the real programs and counts them
  WorkloadSpec w = custom({});
  w.build = {{"make", "--no-print-directory"}, "prog", "prog", {}};
  EXPECT_EQ(ship_and_run(runner, w, dir), "7\n");
  EXPECT_EQ(runner.count("make"), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir / "spec/prog/prog"));  // the user's tree is untouched
  EXPECT_EQ(ship_and_run(runner, w, dir), "7\n");
  EXPECT_EQ(runner.count("make"), 1u);  // a hit
  write(dir / "spec/prog/value.h", "#define VALUE 8\n");
  EXPECT_EQ(ship_and_run(runner, w, dir), "8\n");
  EXPECT_EQ(runner.count("make"), 2u);
  w.build.command = {"make", "nothing"};
  EXPECT_THAT(ship_and_run(runner, w, dir),
              HasSubstr("custom workload probe: build command `make nothing` (in a copy of " +
                        (dir / "spec/prog").string() +
                        ") for x86_64 failed (exit status 2); its "
                        "last lines:\nmake: *** No rule to make target 'nothing'.  Stop."));
  w.build = {{"true"}, "prog", "prog", {}};
  EXPECT_THAT(ship_and_run(runner, w, dir), HasSubstr("finished but made no prog"));
  w.build = {{"true"}, "missing", "prog", {}};
  EXPECT_THAT(ship_and_run(runner, w, dir),
              HasSubstr("build.dir " + (dir / "spec/missing").string() + ": not a directory"));
  w.build = {{"true"}, "prog", "../prog", {}};
  EXPECT_THAT(ship_and_run(runner, w, dir), HasSubstr("must be a path inside build.dir"));
}

TEST(CustomWorkload, ReadsTheInputsOfADepfile) {
  EXPECT_THAT(depfile_inputs("out.o: a.c /usr/include/stdio.h \\\n  my\\ dir/h.h $$x.h\n"
                             "a.c:\n/usr/include/stdio.h:\n"),
              ElementsAre("a.c", "/usr/include/stdio.h", "my dir/h.h", "$x.h"));
  EXPECT_TRUE(depfile_inputs("").empty());
}

}  // namespace
}  // namespace foliolab
