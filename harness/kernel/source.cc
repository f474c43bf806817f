#include "kernel/source.h"

#include <sys/stat.h>

#include <fmt/format.h>
#include <cstdlib>
#include <regex>
#include <vector>

#include "kernel/git.h"
#include "util/file_lock.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;

fs::path debian_source_tarball() {
  if (const char* p = std::getenv("FOLIOLAB_DEBIAN_SOURCE"); p && *p) return p;
  return "/usr/src/linux-source-6.12.tar.xz";
}

namespace {

// Hashing a 150 MB tarball costs about a second: remember it per (path, size, mtime).
Result<std::string> tarball_digest(const fs::path& tarball, const fs::path& cache) {
  struct stat st {};
  if (::stat(tarball.c_str(), &st) != 0) return make_error(fmt_errno(tarball.string()));
  std::error_code ec;
  const std::string memo_key =
      sha256_hex(fmt::format("{}|{}|{}.{}", fs::absolute(tarball, ec).string(), st.st_size,
                             st.st_mtim.tv_sec, st.st_mtim.tv_nsec));
  const fs::path memo = cache / "src" / "digests" / memo_key;
  if (auto cached = read_file(memo); cached.ok() && cached->size() == 64) return *cached;
  auto digest = sha256_file(tarball);
  if (!digest.ok()) return digest;
  (void)write_file_atomic(memo, *digest);
  return digest;
}

std::string slug_of(const fs::path& p) {
  std::string s = p.filename().string();
  for (auto ext : {".tar.xz", ".tar.gz", ".tar.bz2", ".tgz", ".tar"}) {
    if (s.size() > strlen(ext) && s.ends_with(ext)) s.resize(s.size() - strlen(ext));
  }
  for (char& c : s) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '-';
  }
  return s.empty() ? "src" : s;
}

// Directory identity: content fingerprint of the tree, hashing only files whose stat changed
// since the last scan (remembered next to the working tree, never in the user's tree).
Result<void> fingerprint_directory(SourceInfo& info, const fs::path& cache) {
  const fs::path state = cache / "work" / info.work_id / "source.index";
  auto scan = scan_tree(info.location, load_tree_index(state));
  if (!scan.ok()) return in_context("kernel source " + info.location.string(), scan.error());
  if (!scan->build_outputs.empty())
    return make_error(describe_build_outputs(info.location, scan->build_outputs));
  if (scan->hashed > 0) (void)save_tree_index(state, scan->index);
  info.id = info.work_id + "-" + tree_fingerprint(scan->index).substr(0, 12);
  info.index = std::make_shared<const TreeIndex>(std::move(scan->index));
  return {};
}

std::string path_key(const fs::path& p) {
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(p, ec);
  return sha256_hex((ec ? p : canon).string()).substr(0, 12);
}

}  // namespace

std::string SourceInfo::describe() const {
  switch (kind) {
    case SourceKind::kTarball:
      return label;
    case SourceKind::kDirectory:
      if (!git_commit.empty()) {
        return fmt::format("git {} @ {} (worktree{})", location.string(), git_commit.substr(0, 12),
                           git_dirty ? ", dirty: uncommitted changes" : ", clean");
      }
      return fmt::format("directory {} (content {})", location.string(), id.substr(id.size() - 12));
    case SourceKind::kGit:
      return fmt::format("git {} @ {} (ref {})", location.string(), git_commit.substr(0, 12),
                         git_ref);
  }
  return label;
}

namespace {

// Where `spec`'s source is, and its kind as far as its location tells.
Result<SourceInfo> locate_source(const KernelSpec& spec, const fs::path& base_dir) {
  const std::string& spec_source = spec.source;
  SourceInfo info;
  if (spec_source == "debian" && !spec.source_git) {
    info.location = debian_source_tarball();
    if (!path_exists(info.location)) {
      return make_error(
          fmt::format("kernel source 'debian': {} is missing; install it with `apt-get install "
                      "linux-source-6.12` "
                      "(scripts/setup.sh does)",
                      info.location.string()));
    }
    info.label = fmt::format("Debian linux-source-6.12 ({})", info.location.string());
  } else {
    info.location =
        fs::path(spec_source).is_absolute() ? fs::path(spec_source) : base_dir / spec_source;
    if (!path_exists(info.location)) {
      return make_error(
          fmt::format("kernel source {}: no such file or directory", info.location.string()));
    }
    info.kind = is_dir(info.location) ? SourceKind::kDirectory : SourceKind::kTarball;
    info.label = info.location.string();
  }
  return info;
}

// A git source: its commit and dirtiness; with a ref, the whole identity (true returned).
Result<bool> identify_git(ProcessRunner& runner, const KernelSpec& spec, SourceInfo& info) {
  GitRepo repo(runner, info.location);
  auto head = repo.commit_of(spec.source_ref.empty() ? "HEAD" : spec.source_ref);
  if (!head.ok()) return head.error();
  auto dirty = repo.dirty();
  if (!dirty.ok()) return dirty.error();
  info.git_commit = *head;
  info.git_dirty = *dirty;
  if (!spec.source_ref.empty()) {
    if (*dirty) {
      return make_error(
          fmt::format("git repository {} has uncommitted changes, but ref '{}' was asked for: "
                      "commit or stash them, "
                      "or leave out `ref` to build the checkout as it is",
                      info.location.string(), spec.source_ref));
    }
    // Content-addressed: git's tree id of the commit. All refs share one working tree.
    auto tree = repo.tree_of(*head);
    if (!tree.ok()) return tree.error();
    info.kind = SourceKind::kGit;
    info.git_ref = spec.source_ref;
    info.work_id = "git-" + slug_of(info.location) + "-" + path_key(info.location);
    info.id = info.work_id + "-tree-" + tree->substr(0, 12);
    info.label =
        fmt::format("{} at {} ({})", info.location.string(), spec.source_ref, head->substr(0, 12));
    return true;
  }
  return false;
}

}  // namespace

Result<SourceInfo> identify_source(ProcessRunner& runner, const KernelSpec& spec,
                                   const fs::path& base_dir, const fs::path& cache) {
  auto located = locate_source(spec, base_dir);
  if (!located.ok()) return located.error();
  SourceInfo info = std::move(*located);
  if (spec.source_git) {
    auto done = identify_git(runner, spec, info);
    if (!done.ok()) return done.error();
    if (*done) return info;
  }
  if (info.is_directory()) {
    if (!path_exists(info.location / "Makefile") || !path_exists(info.location / "mm")) {
      return make_error(
          fmt::format("kernel source {}: not a Linux source tree (no Makefile and mm/)",
                      info.location.string()));
    }
    info.work_id = "dir-" + slug_of(info.location) + "-" + path_key(info.location);
    if (auto st = fingerprint_directory(info, cache); !st.ok()) return st.error();
    return info;
  }
  auto digest = tarball_digest(info.location, cache);
  if (!digest.ok()) return digest.error();
  info.id = slug_of(info.location) + "-" + digest->substr(0, 12);
  info.work_id = info.id;
  return info;
}

Result<fs::path> prepare_pristine(ProcessRunner& runner, const SourceInfo& src,
                                  const fs::path& cache) {
  if (src.kind != SourceKind::kTarball) return src.location;
  const fs::path dir = cache / "src" / src.id;
  const fs::path pristine = dir / "pristine";
  FileLock lock(dir.string() + ".lock");
  if (path_exists(pristine / "Makefile")) return pristine;
  const fs::path tmp = dir / "extract.tmp";
  FL_TRY(remove_tree(tmp));
  FL_TRY(make_dirs(tmp));
  ProcessResult r = runner.run(
      {.argv = {"tar", "-xf", src.location.string(), "-C", tmp.string()}, .capture = true});
  if (!r.ok()) {
    return make_error(fmt::format("extracting {} failed ({}):\n{}", src.location.string(),
                                  r.describe(), r.output));
  }
  // A kernel tarball holds one top-level folder (linux-source-6.12/, linux-6.12.1/, ...).
  auto tops = list_dir(tmp);
  if (!tops.ok()) return tops.error();
  const fs::path top = tops->size() == 1 && is_dir(tops->front()) ? tops->front() : tmp;
  if (!path_exists(top / "Makefile")) {
    return make_error(
        fmt::format("{} does not unpack to a Linux source tree", src.location.string()));
  }
  FL_TRY(rename_path(top, pristine));
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return pristine;
}

std::string makefile_kernel_version(const std::string& makefile) {
  // "NAME = value" at the start of a line; the value may be empty ("EXTRAVERSION =") and never
  // runs on into the next line.
  auto field = [&](const char* name) {
    std::smatch m;
    std::regex re(std::string("(^|\\n)") + name + R"([ \t]*=[ \t]*([^\n]*))");
    if (!std::regex_search(makefile, m, re)) return std::string();
    std::string v = m[2].str();
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r')) v.pop_back();
    return v;
  };
  // The top Makefile's KERNELVERSION: $(VERSION)$(if $(PATCHLEVEL),.$(PATCHLEVEL)$(if
  // $(SUBLEVEL),.$(SUBLEVEL)))$(EXTRAVERSION). SUBLEVEL = 0 gives "6.12.0".
  const std::string version = field("VERSION"), patch = field("PATCHLEVEL"),
                    sub = field("SUBLEVEL");
  if (version.empty()) return {};
  std::string v = version;
  if (!patch.empty()) {
    v += "." + patch;
    if (!sub.empty()) v += "." + sub;
  }
  return v + field("EXTRAVERSION");
}

Result<std::string> tree_kernel_version(const fs::path& tree) {
  auto mk = read_file(tree / "Makefile");
  if (!mk.ok()) return mk.error();
  std::string v = makefile_kernel_version(*mk);
  if (v.empty()) return make_error((tree / "Makefile").string() + " has no VERSION line");
  return v;
}

}  // namespace foliolab
