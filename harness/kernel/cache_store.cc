#include "kernel/cache_store.h"

#include <sys/stat.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "kernel/builder.h"
#include "kernel/kernel_meta.h"
#include "kernel/tree_sync.h"
#include "util/file_lock.h"
#include "util/fs_ops.h"
#include "util/yaml_reader.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

using InodeSet = std::set<std::pair<dev_t, ino_t>>;

// Disk usage of `p` (allocated blocks), counting an inode with several links once overall.
uint64_t disk_usage(const fs::path& p, InodeSet& seen) {
  auto one = [&](const fs::path& f) -> uint64_t {
    struct stat st {};
    if (::lstat(f.c_str(), &st) != 0) return 0;
    if (st.st_nlink > 1 && !S_ISDIR(st.st_mode) && !seen.insert({st.st_dev, st.st_ino}).second)
      return 0;
    return static_cast<uint64_t>(st.st_blocks) * 512;
  };
  uint64_t total = one(p);
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(p, ec))) return total;
  for (auto it =
           fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    total += one(it->path());
  }
  return total;
}

std::time_t mtime_of(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return 0;
  return st.st_mtim.tv_sec;
}

// The item's last use: its `last-used` stamp, else the folder's mtime.
std::time_t last_use(const fs::path& dir) {
  if (std::time_t t = mtime_of(dir / "last-used")) return t;
  return mtime_of(dir);
}

std::vector<fs::path> subdirs(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    // In-progress builds (.tmp) belong to whoever builds them.
    if (e.is_directory(ec) && !name.ends_with(".tmp") && name != "digests") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A tarball source's O= folder "<source id>-<arch>-<config12>": its working tree's lock guards it.
std::string source_of_build_dir(const std::string& name) {
  std::string s = name;
  for (int i = 0; i < 2; ++i) {
    auto dash = s.rfind('-');
    if (dash == std::string::npos) return name;
    s.resize(dash);
  }
  return s;
}

// The `cache_max_size:` of a parsed config.yaml (nullopt when absent or the file is empty).
Result<std::optional<uint64_t>> cache_max_size_in(const YAML::Node& doc,
                                                  const std::string& file_name) {
  static const YamlReader::Keys kConfigKeys = {"cache_max_size"};
  if (doc.IsNull()) return std::optional<uint64_t>();
  const YamlReader r(file_name);
  auto fields = r.read_map(YamlReader::root(doc), &kConfigKeys);
  FL_TRY(fields);
  const YamlField* max = fields->find("cache_max_size");
  if (!max) return std::optional<uint64_t>();
  auto text = r.read_scalar(*max);
  FL_TRY(text);
  auto size = parse_size(*text);
  if (!size.ok()) return r.error(*max, size.error().message);
  return std::optional<uint64_t>(*size);
}

}  // namespace

std::string_view cache_kind_name(CacheKind k) {
  switch (k) {
    case CacheKind::kKernel:
      return "kernel";
    case CacheKind::kImage:
      return "image";
    case CacheKind::kUnfinished:
      return "unfinished build";
    case CacheKind::kWorkTree:
      return "working tree";
    case CacheKind::kSource:
      return "source";
    case CacheKind::kBuildDir:
      return "build dir";
    case CacheKind::kCcache:
      return "ccache";
  }
  return "?";
}

std::vector<CacheItem> list_cache(const fs::path& cache) {
  std::vector<CacheItem> items;
  InodeSet seen;
  auto add = [&](CacheKind kind, const fs::path& dir, std::vector<fs::path> locks) -> CacheItem& {
    CacheItem it;
    it.kind = kind;
    it.id = dir.filename().string();
    it.path = dir;
    it.locks = std::move(locks);
    it.bytes = disk_usage(dir, seen);
    it.last_used = last_use(dir);
    items.push_back(std::move(it));
    return items.back();
  };
  for (const auto& dir : subdirs(cache / "kernels")) {
    CacheItem& k = add(CacheKind::kKernel, dir, {dir.string() + ".lock"});
    auto meta = load_kernel_meta(dir / "kernel.json");
    if (!meta.ok()) continue;
    k.kernel = meta->kernel;
    k.arch = meta->arch;
    k.version = meta->version;
    k.source = meta->describe_source();
  }
  for (const auto& dir : subdirs(cache / "images")) {
    add(CacheKind::kImage, dir, {dir.string() + ".lock", dir.string() + ".use.lock"});
  }
  // A build in <cache>/tmp/<item> holds <cache>/images/<item>.lock while it runs.
  for (const auto& dir : subdirs(cache / "tmp")) {
    add(CacheKind::kUnfinished, dir, {cache / "images" / (dir.filename().string() + ".lock")});
  }
  // Extracted tarballs before their working trees: hard links into them count for the source.
  std::vector<fs::path> sources = subdirs(cache / "src");
  for (const auto& dir : sources) {
    // Its working tree's builds read it too (restoring files a series touched).
    CacheItem& s =
        add(CacheKind::kSource, dir,
            {dir.string() + ".lock", cache / "work" / (dir.filename().string() + ".lock")});
    // Used whenever its working tree is.
    s.last_used = std::max(s.last_used, last_use(cache / "work" / s.id));
  }
  for (const auto& dir : subdirs(cache / "work")) {
    CacheItem& w = add(CacheKind::kWorkTree, dir, {dir.string() + ".lock"});
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / "tree", ec)) {
      const std::string name = e.path().filename().string();
      if (!name.starts_with(kBuildDirPrefix)) continue;
      InodeSet none;
      w.parts.push_back(fmt::format("{}: {}", name.substr(std::string_view(kBuildDirPrefix).size()),
                                    human_bytes(disk_usage(e.path(), none))));
    }
  }
  for (const auto& dir : subdirs(cache / "build")) {
    add(CacheKind::kBuildDir, dir,
        {cache / "work" / (source_of_build_dir(dir.filename().string()) + ".lock")});
  }
  if (path_exists(cache / "ccache"))
    add(CacheKind::kCcache, cache / "ccache", std::vector<fs::path>{});
  return items;
}

GcResult collect_garbage(const fs::path& cache, const GcOptions& opt) {
  GcResult out;
  const std::time_t now = opt.now ? opt.now : std::time(nullptr);
  std::vector<CacheItem> items = list_cache(cache);
  for (const auto& it : items) out.before += it.bytes;
  out.after = out.before;
  std::stable_sort(items.begin(), items.end(), [](const CacheItem& a, const CacheItem& b) {
    return a.last_used < b.last_used;
  });
  for (const auto& it : items) {
    if (!it.evictable()) continue;
    const bool too_old = opt.older_than_secs && now - it.last_used > *opt.older_than_secs;
    const bool too_big = opt.max_bytes && out.after > *opt.max_bytes;
    if (!too_old && !too_big) continue;
    std::vector<std::unique_ptr<FileLock>> locks;
    bool held = false;
    for (const fs::path& lock : it.locks) {
      locks.push_back(std::make_unique<FileLock>(lock, LockMode::kExclusive, /*wait=*/false));
      if (!locks.back()->locked()) held = true;
    }
    if (held) {
      out.held.push_back(it);
      continue;
    }
    if (!opt.dry_run) {
      std::error_code ec;
      fs::remove_all(it.path, ec);
      if (ec) {
        out.note += fmt::format("cannot remove {}: {}\n", it.path.string(), ec.message());
        continue;
      }
    }
    out.after -= std::min(out.after, it.bytes);
    out.evicted.push_back(it);
  }
  if (opt.max_bytes && out.after > *opt.max_bytes) {
    uint64_t ccache = 0;
    for (const auto& it : items) {
      if (it.kind == CacheKind::kCcache) ccache = it.bytes;
    }
    out.note += fmt::format("the cache stays at {} (over {}): ", human_bytes(out.after),
                            human_bytes(*opt.max_bytes));
    out.note += out.held.empty()
                    ? ""
                    : fmt::format("{} item(s) are in use by a running foliolab; ", out.held.size());
    out.note += fmt::format(
        "ccache holds {} and is bounded by ccache itself (CCACHE_MAXSIZE 8G; `CCACHE_DIR={} ccache "
        "-M SIZE` lowers it)",
        human_bytes(ccache), (cache / "ccache").string());
  }
  return out;
}

Result<uint64_t> parse_size(const std::string& text) {
  size_t pos = 0;
  double n = 0;
  try {
    n = std::stod(text, &pos);
  } catch (const std::exception&) {
    return make_error(fmt::format(
        "invalid size '{}': expected a number with an optional unit (K, M, G, T)", text));
  }
  std::string unit = text.substr(pos);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* suffix : {"IB", "B"}) {
    if (unit.size() > 1 && unit.ends_with(suffix)) {
      unit.resize(unit.size() - strlen(suffix));
      break;
    }
  }
  static const std::pair<const char*, int> kUnits[] = {
      {"", 0}, {"K", 1}, {"M", 2}, {"G", 3}, {"T", 4}};
  for (const auto& [name, power] : kUnits) {
    if (unit == name && n >= 0 && std::isfinite(n))
      return static_cast<uint64_t>(n * std::pow(1024.0, power));
  }
  return make_error(
      fmt::format("invalid size '{}': expected a number with an optional unit (K, M, G, T)", text));
}

Result<int64_t> parse_age(const std::string& text) {
  size_t pos = 0;
  double n = 0;
  try {
    n = std::stod(text, &pos);
  } catch (const std::exception&) {
    pos = 0;
  }
  const std::string unit = text.substr(pos);
  static const std::pair<const char*, int64_t> kUnits[] = {
      {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}, {"w", 604800}};
  for (const auto& [name, secs] : kUnits) {
    if (pos > 0 && unit == name && n >= 0)
      return static_cast<int64_t>(n * static_cast<double>(secs));
  }
  return make_error(fmt::format(
      "invalid age '{}': expected a number and a unit s, m, h, d or w (e.g. 7d)", text));
}

std::string human_bytes(uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes);
  size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(kUnits)) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, kUnits[u]);
}

Result<std::optional<uint64_t>> configured_cache_max_size() {
  if (const char* env = std::getenv("FOLIOLAB_CACHE_MAX_SIZE"); env && *env) {
    auto size = parse_size(env);
    if (!size.ok()) return make_error("FOLIOLAB_CACHE_MAX_SIZE: " + size.error().message);
    return std::optional<uint64_t>(*size);
  }
  fs::path config;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    config = fs::path(xdg) / "foliolab" / "config.yaml";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    config = fs::path(home) / ".config" / "foliolab" / "config.yaml";
  }
  if (config.empty() || !path_exists(config)) return std::optional<uint64_t>();
  auto doc = load_yaml_file(config.string(), "config file");
  FL_TRY(doc);
  return cache_max_size_in(*doc, config.string());
}

Result<std::optional<uint64_t>> parse_cache_config(const std::string& yaml_text,
                                                   const std::string& file_name) {
  auto doc = parse_yaml(yaml_text, file_name, "config file");
  FL_TRY(doc);
  return cache_max_size_in(*doc, file_name);
}

}  // namespace foliolab
