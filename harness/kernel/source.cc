#include "kernel/source.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fmt/format.h>
#include <regex>
#include <vector>

#include "util/fs.h"
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
  const std::string memo_key = sha256_hex(fmt::format("{}|{}|{}.{}", fs::absolute(tarball).string(),
                                                      st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec));
  const fs::path memo = cache / "src" / "digests" / memo_key;
  if (auto cached = read_file(memo); cached.ok() && cached->size() == 64) return *cached;
  auto digest = sha256_file(tarball);
  if (!digest.ok()) return digest;
  (void)write_file_atomic(memo, *digest);
  return digest;
}

// A directory's identity: relative path, size and mtime of every file (.git excluded).
std::string directory_digest(const fs::path& dir) {
  std::vector<std::string> entries;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied);
       it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    struct stat st {};
    if (!it->is_regular_file() || ::lstat(it->path().c_str(), &st) != 0) continue;
    entries.push_back(fmt::format("{}|{}|{}.{}", fs::relative(it->path(), dir).string(), st.st_size,
                                  st.st_mtim.tv_sec, st.st_mtim.tv_nsec));
  }
  std::sort(entries.begin(), entries.end());
  Hasher h;
  for (const auto& e : entries) h.add(e);
  return h.hex();
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

}  // namespace

Result<SourceInfo> identify_source(const std::string& spec_source, const fs::path& base_dir,
                                   const fs::path& cache) {
  SourceInfo info;
  if (spec_source == "debian") {
    info.location = debian_source_tarball();
    if (!fs::exists(info.location)) {
      return make_error(fmt::format(
          "kernel source 'debian': {} is missing; install it with `apt-get install linux-source-6.12` "
          "(scripts/setup.sh does)", info.location.string()));
    }
    info.label = fmt::format("Debian linux-source-6.12 ({})", info.location.string());
  } else {
    info.location = fs::path(spec_source).is_absolute() ? fs::path(spec_source) : base_dir / spec_source;
    if (!fs::exists(info.location)) {
      return make_error(fmt::format("kernel source {}: no such file or directory", info.location.string()));
    }
    info.is_directory = fs::is_directory(info.location);
    info.label = info.location.string();
  }
  if (info.is_directory) {
    if (!fs::exists(info.location / "Makefile") || !fs::exists(info.location / "mm")) {
      return make_error(fmt::format("kernel source {}: not a Linux source tree (no Makefile and mm/)",
                                    info.location.string()));
    }
    info.id = "dir-" + slug_of(info.location) + "-" + directory_digest(info.location).substr(0, 12);
    return info;
  }
  auto digest = tarball_digest(info.location, cache);
  if (!digest.ok()) return digest.error();
  info.id = slug_of(info.location) + "-" + digest->substr(0, 12);
  return info;
}

Result<fs::path> prepare_pristine(ProcessRunner& runner, const SourceInfo& src, const fs::path& cache) {
  if (src.is_directory) return src.location;
  const fs::path dir = cache / "src" / src.id;
  const fs::path pristine = dir / "pristine";
  FileLock lock(dir.string() + ".lock");
  if (fs::exists(pristine / "Makefile")) return pristine;
  const fs::path tmp = dir / "extract.tmp";
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp);
  ProcessResult r = runner.run({.argv = {"tar", "-xf", src.location.string(), "-C", tmp.string()},
                                .capture = true});
  if (!r.ok()) {
    return make_error(fmt::format("extracting {} failed ({}):\n{}", src.location.string(), r.describe(), r.output));
  }
  // A kernel tarball holds one top-level folder (linux-source-6.12/, linux-6.12.1/, ...).
  std::vector<fs::path> tops;
  for (const auto& e : fs::directory_iterator(tmp)) tops.push_back(e.path());
  fs::path top = tops.size() == 1 && fs::is_directory(tops[0]) ? tops[0] : tmp;
  if (!fs::exists(top / "Makefile")) {
    return make_error(fmt::format("{} does not unpack to a Linux source tree", src.location.string()));
  }
  fs::rename(top, pristine, ec);
  if (ec) return make_error(fmt::format("cannot move extracted tree to {}: {}", pristine.string(), ec.message()));
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
  const std::string version = field("VERSION"), patch = field("PATCHLEVEL"), sub = field("SUBLEVEL");
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
