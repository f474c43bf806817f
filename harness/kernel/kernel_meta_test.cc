// kernel.json: round trip, the schema-1 files foliolab has written all along, and the files it
// must refuse without crashing (damaged, a newer schema).
#include "kernel/kernel_meta.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace foliolab {
namespace {
using ::testing::HasSubstr;

// As KernelBuilder wrote it before KernelMeta (keys sorted by nlohmann::json).
constexpr const char* kSchema1 = R"J({
  "arch": "x86_64",
  "build_id": "995017d1ea572776",
  "build_seconds": 412.5,
  "cache_key": "995017d1ea572776aa",
  "ccache": true,
  "compiler": "gcc (Debian 12.2.0-14) 12.2.0",
  "config_requests": [
    "CONFIG_64BIT=y (guest-base)",
    "CONFIG_NUMA=y (x86_64)"
  ],
  "kernel": "mm-next",
  "patches": [
    {
      "name": "0001-a.patch",
      "sha256": "abc"
    }
  ],
  "reproduce": "cd /c/work/w/tree && make O=/c/o ARCH=x86_64 CC=gcc -j2 bzImage",
  "schema": 1,
  "series": "v1",
  "source": {
    "describe": "git /src/linux @ 1a2b3c4d5e6f (ref my-branch)",
    "git_commit": "1a2b3c4d5e6f",
    "git_dirty": false,
    "git_ref": "my-branch",
    "id": "git-1a2b",
    "location": "/src/linux",
    "work_id": "git-linux-1234"
  },
  "version": "6.12.117"
})J";

TEST(KernelMeta, ReadsTheSchema1FilesWrittenSoFar) {
  auto m = KernelMeta::parse(kSchema1);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->schema, 1);
  EXPECT_EQ(m->build_id, "995017d1ea572776");
  EXPECT_EQ(m->kernel, "mm-next");
  EXPECT_EQ(m->arch, "x86_64");
  EXPECT_EQ(m->version, "6.12.117");
  EXPECT_EQ(m->source.git_ref, "my-branch");
  EXPECT_EQ(m->source.work_id, "git-linux-1234");
  ASSERT_EQ(m->patches.size(), 1u);
  EXPECT_EQ(m->patches[0].sha256, "abc");
  EXPECT_EQ(m->config_requests.size(), 2u);
  EXPECT_TRUE(m->ccache);
  EXPECT_EQ(m->build_seconds, 412.5);
  EXPECT_EQ(m->describe_source(), "git /src/linux @ 1a2b3c4d5e6f (ref my-branch) + patches v1");
  // Written again, it is the same file.
  EXPECT_EQ(m->to_json().dump(2), nlohmann::json::parse(kSchema1).dump(2));
}

TEST(KernelMeta, RoundTrip) {
  KernelMeta m{.build_id = "b",
               .cache_key = "k",
               .kernel = "n",
               .arch = "arm64",
               .version = "6.13.0-rc1",
               .source = {.id = "i", .location = "/l", .git_dirty = true},
               .patches = {{"p", "s"}},
               .config_requests = {"CONFIG_X=y (x)"},
               .compiler = "c",
               .build_seconds = 1.25,
               .reproduce = "r"};
  auto back = KernelMeta::parse(m.to_json().dump());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->to_json(), m.to_json());
  EXPECT_EQ(back->describe_source(), "/l");  // no describe: the location
}

TEST(KernelMeta, AMailSeriesKeepsItsFormSubjectsAndCoverLetter) {
  KernelMeta m{.kernel = "n",
               .source = {.describe = "tarball linux-6.12.tar.xz"},
               .series = "v2.mbx",
               .series_form = "mbox",
               .patches = {{"v2.mbx#2", "s", "mm: foo"}},
               .cover_letter = {"[PATCH v2 0/1] mm: all of it", "v2.mbx#1", "c0"}};
  auto back = KernelMeta::parse(m.to_json().dump());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->to_json(), m.to_json());
  EXPECT_EQ(back->series_form, "mbox");
  EXPECT_EQ(back->patches[0].subject, "mm: foo");
  EXPECT_EQ(back->cover_letter.file, "v2.mbx#1");
  EXPECT_EQ(back->describe_source(),
            "tarball linux-6.12.tar.xz + patches v2.mbx (cover: [PATCH v2 0/1] mm: all of it)");
  // A quilt series (as in every file so far) has none of those keys.
  EXPECT_EQ(KernelMeta::parse(kSchema1)->series_form, "");
  EXPECT_EQ(KernelMeta::parse(kSchema1)->cover_letter.subject, "");
}

TEST(KernelMeta, OlderFilesAndAMissingSchemaRead) {
  // Kernels cached before the Makefile parser was fixed; files of the earliest listings.
  auto m = KernelMeta::parse(R"({"kernel": "k", "version": "6.12.117NAME = Baby Opossum Posse"})");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->schema, 1);
  EXPECT_EQ(m->version, "6.12.117");
}

TEST(KernelMeta, DamagedOrNewerIsAnErrorNotACrash) {
  EXPECT_THAT(KernelMeta::parse("{\"schema\": 1, \"kern").error().message,
              HasSubstr("not valid JSON"));
  EXPECT_THAT(KernelMeta::parse("[1, 2]").error().message, HasSubstr("not a JSON object"));
  EXPECT_THAT(KernelMeta::parse(R"({"schema": 2})").error().message,
              HasSubstr("schema 2 is newer than this foliolab reads (1)"));
  EXPECT_THAT(KernelMeta::parse(R"({"schema": "one"})").error().message,
              HasSubstr("is not a number"));
  EXPECT_THAT(KernelMeta::parse(R"({"schema": 1, "build_seconds": "long"})").error().message,
              HasSubstr("wrong type"));
  EXPECT_FALSE(load_kernel_meta("/nonexistent/kernel.json").ok());
}

}  // namespace
}  // namespace foliolab
