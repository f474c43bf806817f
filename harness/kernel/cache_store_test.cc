// cache list / gc against a fake cache folder: LRU order, sizes, dry runs, held locks.
#include "kernel/cache_store.h"

#include <gtest/gtest.h>

#include <chrono>

#include "kernel/tree_sync.h"
#include "testing/fake_kernel_tree.h"
#include "util/file_lock.h"

namespace foliolab {
namespace {
namespace fs = std::filesystem;

class CacheStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    kernel("1111111111111111", "old", 3 * kDay);
    kernel("2222222222222222", "new", 1 * kDay);
    tree_.put("images/x86_64-abcd/initramfs.cpio", std::string(100000, 'i'));
    age("images/x86_64-abcd", 2 * kDay);
    tree_.put("work/dir-mylinux-123/tree/Makefile", std::string(50000, 'm'));
    tree_.put(std::string("work/dir-mylinux-123/tree/") + kBuildDirPrefix + "x86_64-cfg/vmlinux",
              std::string(300000, 'o'));
    tree_.put("work/dir-mylinux-123/last-used", "");
    age("work/dir-mylinux-123/last-used", 4 * kDay);
    tree_.put("build/linux-source-6.12-585a4a074597-x86_64-232990a77536/vmlinux",
              std::string(200000, 'b'));
    age("build/linux-source-6.12-585a4a074597-x86_64-232990a77536", 5 * kDay);
    tree_.put("ccache/0/stats", std::string(10000, 'c'));
    tree_.put("kernels/3333333333333333.tmp/build.log", "in progress");
  }
  static constexpr int64_t kDay = 86400;
  void age(const std::string& rel, int64_t secs) {
    fs::last_write_time(tree_.path() / rel,
                        fs::file_time_type::clock::now() - std::chrono::seconds(secs));
  }
  void kernel(const std::string& id, const std::string& name, int64_t age_secs) {
    tree_.put("kernels/" + id + "/bzImage", std::string(400000, 'k'));
    tree_.put(
        "kernels/" + id + "/kernel.json",
        R"J({"kernel": ")J" + name + R"J(", "arch": "x86_64", "version": "6.12.117", "series": "",
            "source": {"describe": "git /src/linux @ 0123456789ab (ref v6.12)"}})J");
    tree_.put("kernels/" + id + "/last-used", "");
    age("kernels/" + id + "/last-used", age_secs);
  }
  std::vector<std::string> ids(const std::vector<CacheItem>& items) {
    std::vector<std::string> out;
    for (const auto& it : items) out.push_back(it.id);
    return out;
  }
  FakeKernelTree tree_{"foliolab-cachestore"};
};

TEST_F(CacheStoreTest, ListShowsKernelsImagesTreesBuildDirsAndCcacheWithSizesAndLastUse) {
  auto items = list_cache(tree_.path());
  EXPECT_EQ(ids(items),
            (std::vector<std::string>{
                "1111111111111111", "2222222222222222", "x86_64-abcd", "dir-mylinux-123",
                "linux-source-6.12-585a4a074597-x86_64-232990a77536", "ccache"}));
  const CacheItem& k = items[0];
  EXPECT_EQ(k.kind, CacheKind::kKernel);
  EXPECT_EQ(k.kernel, "old");
  EXPECT_EQ(k.arch, "x86_64");
  EXPECT_EQ(k.source, "git /src/linux @ 0123456789ab (ref v6.12)");
  EXPECT_GE(k.bytes, 400000u);
  EXPECT_LT(k.last_used, items[1].last_used);
  const CacheItem& tree = items[3];
  EXPECT_EQ(tree.kind, CacheKind::kWorkTree);
  EXPECT_GE(tree.bytes, 350000u);
  ASSERT_EQ(tree.parts.size(), 1u);
  EXPECT_EQ(tree.parts[0].rfind("x86_64-cfg: ", 0), 0u) << tree.parts[0];
  EXPECT_FALSE(items.back().evictable());
}

TEST_F(CacheStoreTest, GcMaxSizeEvictsLeastRecentlyUsedFirstAndDryRunRemovesNothing) {
  auto items = list_cache(tree_.path());
  uint64_t total = 0, build_dir = 0, tree = 0;
  for (const auto& it : items) {
    total += it.bytes;
    if (it.kind == CacheKind::kBuildDir) build_dir = it.bytes;
    if (it.kind == CacheKind::kWorkTree) tree = it.bytes;
  }
  // Room for everything but the two least recently used items (build dir: 5 days, tree: 4).
  const uint64_t max = total - build_dir - tree;
  GcResult dry = collect_garbage(tree_.path(), {.max_bytes = max, .dry_run = true});
  EXPECT_EQ(ids(dry.evicted),
            (std::vector<std::string>{"linux-source-6.12-585a4a074597-x86_64-232990a77536",
                                      "dir-mylinux-123"}));
  EXPECT_TRUE(fs::exists(tree_ / "work/dir-mylinux-123/tree/Makefile"));
  GcResult real = collect_garbage(tree_.path(), {.max_bytes = max});
  EXPECT_EQ(ids(real.evicted), ids(dry.evicted));
  EXPECT_LE(real.after, max);
  EXPECT_FALSE(fs::exists(tree_ / "work/dir-mylinux-123"));
  EXPECT_FALSE(fs::exists(tree_ / "build/linux-source-6.12-585a4a074597-x86_64-232990a77536"));
  EXPECT_TRUE(fs::exists(tree_ / "kernels/1111111111111111/bzImage"));
  EXPECT_TRUE(fs::exists(tree_ / "kernels/3333333333333333.tmp"));  // someone's build in progress
  EXPECT_TRUE(real.note.empty()) << real.note;
}

TEST_F(CacheStoreTest, GcSkipsWhatARunningFoliolabHoldsAndSaysSo) {
  FileLock session(tree_ / "kernels/1111111111111111.lock", LockMode::kShared);
  FileLock build(tree_ / "work/dir-mylinux-123.lock");
  ASSERT_TRUE(session.locked());
  GcResult r = collect_garbage(tree_.path(), {.max_bytes = 0});
  EXPECT_EQ(ids(r.held), (std::vector<std::string>{"dir-mylinux-123", "1111111111111111"}));
  EXPECT_TRUE(fs::exists(tree_ / "kernels/1111111111111111/bzImage"));
  EXPECT_TRUE(fs::exists(tree_ / "work/dir-mylinux-123/tree/Makefile"));
  EXPECT_FALSE(fs::exists(tree_ / "kernels/2222222222222222"));
  EXPECT_NE(r.note.find("2 item(s) are in use"), std::string::npos) << r.note;
  EXPECT_NE(r.note.find("ccache holds"), std::string::npos) << r.note;
  EXPECT_TRUE(fs::exists(tree_ / "ccache/0/stats"));
}

// What a killed image build left in <cache>/tmp/: listed, collected, never while a build runs.
TEST_F(CacheStoreTest, AnUnfinishedImageBuildIsListedAndCollectedUnlessItIsRunning) {
  tree_.put("tmp/rootfs-arm64-r-0123/root/etc/debian_version", std::string(20000, 'd'));
  age("tmp/rootfs-arm64-r-0123", 6 * kDay);
  auto items = list_cache(tree_.path());
  auto it = std::find_if(items.begin(), items.end(),
                         [](const CacheItem& i) { return i.id == "rootfs-arm64-r-0123"; });
  ASSERT_NE(it, items.end());
  EXPECT_EQ(it->kind, CacheKind::kUnfinished);
  EXPECT_EQ(cache_kind_name(it->kind), "unfinished build");
  {
    FileLock building(tree_ / "images/rootfs-arm64-r-0123.lock");
    GcResult r = collect_garbage(tree_.path(), {.older_than_secs = 5 * kDay});
    EXPECT_EQ(ids(r.held), (std::vector<std::string>{"rootfs-arm64-r-0123"}));
    EXPECT_TRUE(fs::exists(tree_ / "tmp/rootfs-arm64-r-0123/root"));
  }
  GcResult r = collect_garbage(tree_.path(), {.older_than_secs = 5 * kDay});
  EXPECT_EQ(ids(r.evicted), (std::vector<std::string>{"rootfs-arm64-r-0123"}));
  EXPECT_FALSE(fs::exists(tree_ / "tmp/rootfs-arm64-r-0123"));
}

TEST_F(CacheStoreTest, GcOlderThanRemovesOnlyWhatWasNotUsedForThatLong) {
  GcResult r = collect_garbage(tree_.path(), {.older_than_secs = 3 * kDay + 3600});
  EXPECT_EQ(ids(r.evicted),
            (std::vector<std::string>{"linux-source-6.12-585a4a074597-x86_64-232990a77536",
                                      "dir-mylinux-123"}));
  EXPECT_TRUE(fs::exists(tree_ / "kernels/1111111111111111"));
}

TEST(CacheSizeTest, SizesAndAgesParseWithUnitsAndRejectGarbage) {
  EXPECT_EQ(*parse_size("10G"), 10ull << 30);
  EXPECT_EQ(*parse_size("512M"), 512ull << 20);
  EXPECT_EQ(*parse_size("1.5GiB"), 3ull << 29);
  EXPECT_EQ(*parse_size("800"), 800u);
  EXPECT_EQ(*parse_size("2kb"), 2048u);
  EXPECT_FALSE(parse_size("ten").ok());
  EXPECT_FALSE(parse_size("10X").ok());
  EXPECT_FALSE(parse_size("-1G").ok());
  EXPECT_EQ(*parse_age("7d"), 7 * 86400);
  EXPECT_EQ(*parse_age("12h"), 12 * 3600);
  EXPECT_EQ(*parse_age("90s"), 90);
  EXPECT_FALSE(parse_age("7").ok());
  EXPECT_FALSE(parse_age("d").ok());
  EXPECT_EQ(human_bytes(1536), "1.5 KB");
  EXPECT_EQ(human_bytes(12), "12 B");
}

// config.yaml reads like every YAML file foliolab reads: file:line:col, key path, did-you-mean.
TEST(CacheConfigTest, CacheMaxSizeIsReadAndErrorsNameLineKeyAndTheClosestKey) {
  auto ok = parse_cache_config("cache_max_size: 10G\n", "config.yaml");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(*ok, std::optional<uint64_t>(10ull << 30));
  auto empty = parse_cache_config("", "config.yaml");
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  EXPECT_FALSE(empty->has_value());
  auto absent = parse_cache_config("{}\n", "config.yaml");
  ASSERT_TRUE(absent.ok()) << absent.error().message;
  EXPECT_FALSE(absent->has_value());
  EXPECT_EQ(parse_cache_config("# sizes\ncache_max_size: lots\n", "config.yaml").error().message,
            "config.yaml:2:17: cache_max_size: invalid size 'lots': expected a number with an "
            "optional unit (K, M, G, T)");
  EXPECT_EQ(parse_cache_config("cache_max_sise: 10G\n", "config.yaml").error().message,
            "config.yaml:1:1: cache_max_sise: unknown key; did you mean 'cache_max_size'?");
  EXPECT_EQ(parse_cache_config("cache_max_size: [10G]\n", "config.yaml").error().message,
            "config.yaml:1:17: cache_max_size: expected a scalar, got a list");
  EXPECT_EQ(
      parse_cache_config("cache_max_size: [10G\n", "config.yaml").error().message.substr(0, 12),
      "config.yaml:");
}

}  // namespace
}  // namespace foliolab
