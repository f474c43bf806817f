#include "kernel/tree_sync.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "util/fs.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

int64_t ns_of(const timespec& t) { return int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec; }

bool stat_matches(const TreeEntry& prev, const struct stat& st) {
  return prev.size == static_cast<uint64_t>(st.st_size) && prev.ino == st.st_ino &&
         prev.mtime_ns == ns_of(st.st_mtim) && prev.ctime_ns == ns_of(st.st_ctim) &&
         prev.symlink == S_ISLNK(st.st_mode) && !prev.digest.empty();
}

Result<std::string> link_target(const fs::path& p) {
  std::error_code ec;
  fs::path t = fs::read_symlink(p, ec);
  if (ec)
    return make_env_error(fmt::format("cannot read symlink {}: {}", p.string(), ec.message()));
  return t.string();
}

// Removes now-empty parent folders of `rel` up to (not including) `root`.
void prune_empty_parents(const fs::path& root, fs::path rel) {
  std::error_code ec;
  for (rel = rel.parent_path(); !rel.empty(); rel = rel.parent_path()) {
    if (!fs::is_empty(root / rel, ec) || ec) return;
    fs::remove(root / rel, ec);
  }
}

}  // namespace

bool is_build_output(const std::string& rel) {
  static const char* const kTopLevel[] = {".config",       "vmlinux",    "Module.symvers",
                                          "modules.order", "System.map", ".version"};
  for (const char* name : kTopLevel) {
    if (rel == name) return true;
  }
  if (rel.starts_with("include/generated/") || rel.starts_with("include/config/")) return true;
  if (rel.starts_with("arch/") && rel.find("/include/generated/") != std::string::npos) return true;
  const std::string name = fs::path(rel).filename().string();
  for (const char* ext : {".o", ".ko", ".mod.c"}) {
    if (name.ends_with(ext)) return true;
  }
  return name.starts_with(".") && name.ends_with(".cmd");
}

std::string describe_build_outputs(const fs::path& root, const std::vector<std::string>& outputs) {
  std::string shown;
  for (size_t i = 0; i < outputs.size() && i < 4; ++i) shown += (i ? ", " : "") + outputs[i];
  if (outputs.size() > 4) shown += fmt::format(" and {} more", outputs.size() - 4);
  return fmt::format(
      "kernel source {} holds in-tree build outputs ({}); foliolab builds out of tree and does not "
      "copy them. Clean the tree with `make -C {} mrproper` (in a git checkout `git clean -fdX` "
      "also "
      "works) and retry",
      root.string(), shown, root.string());
}

Result<TreeScan> scan_tree(const fs::path& root, const TreeIndex& previous) {
  TreeScan scan;
  std::error_code ec;
  auto it = fs::recursive_directory_iterator(root, ec);
  if (ec) return make_env_error(fmt::format("cannot read {}: {}", root.string(), ec.message()));
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return make_env_error(fmt::format("cannot read {}: {}", root.string(), ec.message()));
    const fs::path& p = it->path();
    const std::string name = p.filename().string();
    if (name == ".git" || (it.depth() == 0 && name.starts_with(kBuildDirPrefix))) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) it.disable_recursion_pending();
      continue;
    }
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return make_error(fmt_errno("cannot stat " + p.string()));
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) continue;
    std::string rel = p.lexically_relative(root).string();
    if (is_build_output(rel)) scan.build_outputs.push_back(rel);
    TreeEntry e;
    e.symlink = S_ISLNK(st.st_mode);
    e.exec = !e.symlink && (st.st_mode & S_IXUSR);
    e.size = static_cast<uint64_t>(st.st_size);
    e.ino = st.st_ino;
    e.mtime_ns = ns_of(st.st_mtim);
    e.ctime_ns = ns_of(st.st_ctim);
    if (auto prev = previous.find(rel); prev != previous.end() && stat_matches(prev->second, st)) {
      e.digest = prev->second.digest;
    } else if (e.symlink) {
      auto target = link_target(p);
      if (!target.ok()) return target.error();
      e.digest = sha256_hex(*target);
      ++scan.hashed;
    } else {
      auto digest = sha256_file(p);
      if (!digest.ok()) return digest.error();
      e.digest = *digest;
      ++scan.hashed;
    }
    scan.index.emplace(std::move(rel), std::move(e));
  }
  std::sort(scan.build_outputs.begin(), scan.build_outputs.end());
  return scan;
}

std::string tree_fingerprint(const TreeIndex& index) {
  Hasher h;
  for (const auto& [rel, e] : index) {
    h.add(rel).add(e.symlink ? "l" : e.exec ? "x" : "f").add(e.digest);
  }
  return h.hex();
}

TreeIndex load_tree_index(const fs::path& file) {
  TreeIndex index;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    // kind \t digest \t size \t ino \t mtime \t ctime \t path (last: paths may hold anything but
    // \n)
    std::istringstream f(line);
    std::string kind, digest;
    TreeEntry e;
    if (!std::getline(f, kind, '\t') || !std::getline(f, digest, '\t')) continue;
    if (!(f >> e.size >> e.ino >> e.mtime_ns >> e.ctime_ns) || f.get() != '\t') continue;
    std::string rel;
    std::getline(f, rel);
    if (rel.empty() || digest.size() != 64) continue;
    e.symlink = kind == "l";
    e.exec = kind == "x";
    e.digest = digest;
    index.emplace(std::move(rel), std::move(e));
  }
  return index;
}

Result<void> save_tree_index(const fs::path& file, const TreeIndex& index) {
  std::string out;
  out.reserve(index.size() * 120);
  for (const auto& [rel, e] : index) {
    if (rel.find('\n') != std::string::npos) continue;  // never reused: hashed again next time
    out += fmt::format("{}\t{}\t{} {} {} {}\t{}\n",
                       e.symlink ? "l"
                       : e.exec  ? "x"
                                 : "f",
                       e.digest, e.size, e.ino, e.mtime_ns, e.ctime_ns, rel);
  }
  return write_file_atomic(file, out);
}

Result<SyncStats> sync_tree(const fs::path& from, const TreeIndex& from_index, const fs::path& to,
                            const TreeIndex& to_index) {
  SyncStats stats;
  std::error_code ec;
  // Removals first: a file may become a folder of the same name.
  for (const auto& [rel, e] : to_index) {
    auto src = from_index.find(rel);
    if (src != from_index.end() && src->second.same_content(e)) continue;
    fs::remove(to / rel, ec);
    if (ec)
      return make_env_error(fmt::format("cannot remove {}: {}", (to / rel).string(), ec.message()));
    if (src == from_index.end()) {
      ++stats.removed;
      stats.changed.push_back(rel);
      prune_empty_parents(to, rel);
    }
  }
  for (const auto& [rel, e] : from_index) {
    auto dst = to_index.find(rel);
    const fs::path target = to / rel;
    if (dst != to_index.end() && dst->second.same_content(e)) {
      if (dst->second.exec != e.exec) {
        fs::permissions(target,
                        fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                        e.exec ? fs::perm_options::add : fs::perm_options::remove, ec);
        if (ec)
          return make_env_error(fmt::format("cannot chmod {}: {}", target.string(), ec.message()));
        ++stats.mode_changed;
        stats.changed.push_back(rel);
      }
      continue;
    }
    fs::create_directories(target.parent_path(), ec);
    // Something unexpected in the way (a folder where a file goes): clear it.
    if (fs::exists(fs::symlink_status(target, ec))) fs::remove_all(target, ec);
    if (e.symlink) {
      auto link = link_target(from / rel);
      if (!link.ok()) return link.error();
      fs::create_symlink(*link, target, ec);
    } else {
      // A real copy (never a link into the user's tree): fresh mtime, the source stays untouched.
      fs::copy_file(from / rel, target, ec);
    }
    if (ec)
      return make_env_error(fmt::format("cannot copy {} to {}: {}", (from / rel).string(),
                                        target.string(), ec.message()));
    ++stats.copied;
    stats.changed.push_back(rel);
  }
  return stats;
}

}  // namespace foliolab
