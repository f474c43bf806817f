// What the cache holds and how it is pruned. Items are kernels (<cache>/kernels/<build id>),
// guest images, working trees (<cache>/work/<id>, with their O= build folders), extracted
// tarballs (<cache>/src/<id>), tarball sources' O= folders (<cache>/build/*) and what an
// interrupted image build left (<cache>/tmp/<item>: the next build of that item starts afresh,
// so it is only ever removed). ccache is listed but pruned by ccache itself (CCACHE_MAXSIZE).
//
// gc evicts least recently used first. An item whose lock a running foliolab holds (a kernel a
// session uses, a working tree a build uses) is skipped; nothing outside the cache is touched.
#pragma once

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace foliolab {

enum class CacheKind { kKernel, kImage, kUnfinished, kWorkTree, kSource, kBuildDir, kCcache };
std::string_view cache_kind_name(CacheKind k);

struct CacheItem {
  CacheKind kind = CacheKind::kKernel;
  std::string id;  // folder name
  std::filesystem::path path;
  std::vector<std::filesystem::path> locks;  // lock files guarding it: all must be free to evict
  uint64_t bytes = 0;  // disk usage; a hard-linked file counts once, for the first holder
  std::time_t last_used = 0;
  // Kernels: from kernel.json.
  std::string kernel, arch, source, version;
  std::vector<std::string>
      parts;  // working trees: their O= folders with sizes ("x86_64-1a2b: 310 MB")
  bool evictable() const { return kind != CacheKind::kCcache; }
};

// Items in listing order: kernels, images, unfinished image builds, working trees, sources, old
// build folders, ccache.
std::vector<CacheItem> list_cache(const std::filesystem::path& cache);

struct GcOptions {
  std::optional<uint64_t> max_bytes;       // evict LRU until the total is at most this
  std::optional<int64_t> older_than_secs;  // evict everything unused for this long
  bool dry_run = false;
  std::time_t now = 0;  // 0: the current time
};

struct GcResult {
  std::vector<CacheItem> evicted;  // removed (or, in a dry run, would be)
  std::vector<CacheItem> held;     // wanted but in use by a running foliolab
  uint64_t before = 0, after = 0;  // total bytes
  std::string note;                // why the target could not be met, if so
};

// Chooses and (unless dry_run) removes items. Locks are taken without waiting: a held one skips
// its item.
GcResult collect_garbage(const std::filesystem::path& cache, const GcOptions& options);

// "10G", "512M", "1.5GiB", "800000" (bytes).
Result<uint64_t> parse_size(const std::string& text);
// "7d", "12h", "30m", "90s", "2w".
Result<int64_t> parse_age(const std::string& text);
// "1.7 GB".
std::string human_bytes(uint64_t bytes);

// max-size for `run`'s own collection: $FOLIOLAB_CACHE_MAX_SIZE, else `cache_max_size:` in
// $XDG_CONFIG_HOME/foliolab/config.yaml (~/.config/...). nullopt when neither is set.
Result<std::optional<uint64_t>> configured_cache_max_size();
// The `cache_max_size:` of a config.yaml's text (nullopt when absent or the file is empty);
// errors read "file:line:col: key: message", unknown keys with "did you mean".
Result<std::optional<uint64_t>> parse_cache_config(const std::string& yaml_text,
                                                   const std::string& file_name);

}  // namespace foliolab
