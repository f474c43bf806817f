#include "image/custom_workload_build.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>
#include <utility>

#include "kernel/kbuild.h"
#include "util/file_lock.h"
#include "util/fs.h"
#include "util/fs_ops.h"
#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kFlags = {"-O2", "-Wall", "-pthread"};
constexpr size_t kTailLines = 20;
constexpr std::chrono::minutes kBuildTimeout{30};

using Inputs = std::vector<std::pair<std::string, std::string>>;  // path, SHA-256

std::string tail_text(const std::string& output, size_t n) {
  size_t at = output.size();
  if (at && output[at - 1] == '\n') --at;
  for (size_t lines = 0; at > 0; --at) {
    if (output[at - 1] == '\n' && ++lines == n) break;
  }
  return output.substr(at);
}

// The manifest beside a compiled binary: "key <entry>" then "<sha256> <path>" per input.
std::string manifest_text(const std::string& key, const Inputs& inputs) {
  std::string out = "key " + key + "\n";
  for (const auto& [path, sha] : inputs) out += sha + " " + path + "\n";
  return out;
}

// The entry the manifest in `dir` names, if every input it lists still has its recorded bytes.
std::optional<std::string> valid_entry(const fs::path& dir, std::string_view arch) {
  auto text = read_file(dir / "inputs");
  if (!text.ok()) return std::nullopt;
  std::istringstream in(*text);
  std::string line, key;
  if (!std::getline(in, line) || line.rfind("key ", 0) != 0) return std::nullopt;
  key = line.substr(4);
  while (std::getline(in, line)) {
    if (line.size() < 66 || line[64] != ' ') return std::nullopt;
    auto sha = sha256_file(line.substr(65));
    if (!sha.ok() || *sha != line.substr(0, 64)) return std::nullopt;
  }
  if (key.empty() || !path_exists(dir / key / arch)) return std::nullopt;
  return key;
}

Result<Inputs> hash_inputs(const std::vector<std::string>& paths) {
  Inputs out;
  for (const std::string& p : paths) {
    if (p.find('\n') != std::string::npos) return make_error("input path with a newline: " + p);
    auto sha = sha256_file(p);
    if (!sha.ok()) return sha.error();
    out.emplace_back(p, *sha);
  }
  return out;
}

Error build_failed(const CustomBuildContext& c, const std::string& what, const ProcessResult& r) {
  return make_error(fmt::format("custom workload {}: {} for {} failed ({}); its last lines:\n{}",
                                c.label, what, arch_info(c.arch).name, r.describe(),
                                tail_text(r.output, kTailLines)));
}

// Compiles each source with -MD into `tmp`, links tmp/bin; returns the files the compiler read.
Result<std::vector<std::string>> compile_into(const CustomBuildContext& c, const std::string& cc,
                                              const std::vector<fs::path>& sources,
                                              const fs::path& tmp) {
  FL_TRY(remove_tree(tmp));
  FL_TRY(make_dirs(tmp));
  std::vector<std::string> inputs;
  std::vector<std::string> link = {cc, "-static", "-pthread", "-o", (tmp / "bin").string()};
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string stem = (tmp / std::to_string(i)).string();
    std::vector<std::string> argv = {cc};
    argv.insert(argv.end(), kFlags.begin(), kFlags.end());
    argv.insert(argv.end(), {"-MD", "-MF", stem + ".d", "-c", "-o", stem + ".o"});
    argv.push_back(sources[i].string());
    ProcessResult r = c.runner.run({.argv = argv, .cwd = tmp, .capture = true});
    if (!r.ok()) return build_failed(c, "compiling " + sources[i].string(), r);
    auto dep = read_file(stem + ".d");
    if (!dep.ok()) return dep.error();
    for (const std::string& in : depfile_inputs(*dep)) {
      inputs.push_back(fs::path(in).is_absolute() ? in : (tmp / in).lexically_normal().string());
    }
    link.push_back(stem + ".o");
  }
  ProcessResult r = c.runner.run({.argv = link, .cwd = tmp, .capture = true});
  if (!r.ok()) return build_failed(c, "linking " + format_argv(link), r);
  std::sort(inputs.begin(), inputs.end());
  inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  return inputs;
}

// Moves tmp/bin into its entry under `dir` and records its inputs.
Result<fs::path> store_entry(const fs::path& dir, const std::vector<std::string>& paths,
                             std::string_view arch) {
  auto inputs = hash_inputs(paths);
  FL_TRY(inputs);
  Hasher h;
  h.add(dir.filename().string());
  for (const auto& [path, sha] : *inputs) h.add(path).add(sha);
  const std::string key = h.hex().substr(0, 16);
  FL_TRY(make_dirs(dir / key));
  FL_TRY(rename_path(dir / "tmp" / "bin", dir / key / arch));
  FL_TRY(write_file_atomic(dir / "inputs", manifest_text(key, *inputs)));
  FL_TRY(remove_tree(dir / "tmp"));
  return dir / key / arch;
}

std::map<std::string, std::string> build_env(Arch arch) {
  const ArchInfo& a = arch_info(arch);
  return {{"CC", std::string(a.guest_cc)},
          {"CROSS_COMPILE", std::string(a.cross_prefix)},
          {"ARCH", std::string(a.kernel_arch)},
          {"LDFLAGS", "-static"}};
}

// Every entry under `root` but `skip` (relative), in path order: its path, kind and bytes (a
// symlink's target).
Result<void> hash_tree(const fs::path& root, const fs::path& skip, Hasher& h) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    entries.push_back(it->path().lexically_relative(root));
  }
  if (ec) return make_env_error(fmt::format("cannot read {}: {}", root.string(), ec.message()));
  std::sort(entries.begin(), entries.end());
  for (const fs::path& rel : entries) {
    if (rel == skip) continue;
    const fs::path p = root / rel;
    const fs::file_status st = fs::symlink_status(p, ec);
    h.add(rel.string());
    if (fs::is_symlink(st)) {
      h.add("link").add(fs::read_symlink(p, ec).string());
    } else if (fs::is_regular_file(st)) {
      const bool exec = (st.permissions() & fs::perms::owner_exec) != fs::perms::none;
      h.add(exec ? "exec" : "file").add_file(p);
    } else {
      h.add("dir");
    }
  }
  return {};
}

// A fresh copy of `from` at `to`, without `skip` (relative).
Result<void> copy_tree(const fs::path& from, const fs::path& to, const fs::path& skip) {
  FL_TRY(remove_tree(to));
  std::error_code ec;
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec) {
    return make_env_error(
        fmt::format("cannot copy {} to {}: {}", from.string(), to.string(), ec.message()));
  }
  fs::remove(to / skip, ec);
  return {};
}

}  // namespace

fs::path resolve_spec_path(const fs::path& spec_dir, const std::string& p) {
  return (fs::path(p).is_absolute() ? fs::path(p) : spec_dir / p).lexically_normal();
}

std::vector<std::string> depfile_inputs(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  bool in_targets = true;
  auto flush = [&] {
    if (!word.empty() && !in_targets) out.push_back(word);
    word.clear();
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const char next = i + 1 < text.size() ? text[i + 1] : '\0';
    if (ch == '\\' && (next == '\n' || (next == '\r' && i + 2 < text.size()))) {
      flush();
      i += next == '\r' ? 2 : 1;
    } else if (ch == '\\' && (next == ' ' || next == '#' || next == '\\')) {
      word += next;
      ++i;
    } else if (ch == '$' && next == '$') {
      word += '$';
      ++i;
    } else if (ch == ':' && in_targets && (next == ' ' || next == '\n' || next == '\0')) {
      word.clear();
      in_targets = false;
    } else if (ch == '\n') {
      flush();
      in_targets = true;  // the next rule (e.g. -MP's phony targets)
    } else if (ch == ' ' || ch == '\t' || ch == '\r') {
      flush();
    } else {
      word += ch;
    }
  }
  flush();
  return out;
}

Result<fs::path> compile_custom_sources(const CustomBuildContext& c,
                                        const std::vector<std::string>& sources) {
  const ArchInfo& a = arch_info(c.arch);
  const std::string cc(a.guest_cc);
  auto version = compiler_version(c.runner, cc);
  FL_TRY(version);
  Hasher h;
  h.add("custom-2").add(*version).add(a.name);
  for (const std::string& flag : kFlags) h.add(flag);
  std::vector<fs::path> paths;
  for (const std::string& s : sources) {
    paths.push_back(resolve_spec_path(c.spec_dir, s));
    if (!path_exists(paths.back())) {
      return make_error(fmt::format("custom workload {}: source {}: no such file", c.label,
                                    paths.back().string()));
    }
    h.add(paths.back().string()).add_file(paths.back());
  }
  const fs::path dir = c.cache / "custom" / h.hex().substr(0, 16);
  FL_TRY(make_dirs(dir));
  FileLock lock(dir / "lock");
  if (auto key = valid_entry(dir, a.name)) return dir / *key / a.name;
  auto inputs = compile_into(c, cc, paths, dir / "tmp");
  FL_TRY(inputs);
  return store_entry(dir, *inputs, a.name);
}

Result<fs::path> run_custom_build(const CustomBuildContext& c, const WorkloadSpec::Build& b) {
  const ArchInfo& a = arch_info(c.arch);
  const fs::path src = resolve_spec_path(c.spec_dir, b.dir);
  const fs::path output = fs::path(b.output).lexically_normal();
  if (!is_dir(src)) {
    return make_error(
        fmt::format("custom workload {}: build.dir {}: not a directory", c.label, src.string()));
  }
  if (output.is_absolute() || output.empty() || *output.begin() == "..") {
    return make_error(
        fmt::format("custom workload {}: build.output '{}' must be a path inside build.dir",
                    c.label, b.output));
  }
  auto version = compiler_version(c.runner, std::string(a.guest_cc));
  FL_TRY(version);
  const std::map<std::string, std::string> env = build_env(c.arch);
  Hasher h;
  h.add("custom-build-1").add(*version).add(a.name).add(output.string());
  for (const std::string& arg : b.command) h.add(arg);
  for (const auto& [k, v] : env) h.add(k).add(v);
  FL_TRY(hash_tree(src, output, h));
  const fs::path dir = c.cache / "custom" / ("build-" + h.hex().substr(0, 16));
  const fs::path bin = dir / a.name;
  FL_TRY(make_dirs(dir));
  FileLock lock(dir / "lock");
  if (path_exists(bin)) return bin;
  const fs::path work = dir / "tmp";
  FL_TRY(copy_tree(src, work, output));
  ProcessResult r = c.runner.run(
      {.argv = b.command, .cwd = work, .env = env, .capture = true, .timeout = kBuildTimeout});
  const std::string what =
      fmt::format("build command `{}` (in a copy of {})", format_argv(b.command), src.string());
  if (!r.ok()) return build_failed(c, what, r);
  if (!fs::is_regular_file(work / output)) {
    return make_error(fmt::format("custom workload {}: {} for {} finished but made no {}", c.label,
                                  what, a.name, output.string()));
  }
  FL_TRY(rename_path(work / output, bin));
  FL_TRY(remove_tree(work));
  return bin;
}

}  // namespace foliolab
