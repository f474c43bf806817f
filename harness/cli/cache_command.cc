#include "cli/cache_command.h"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>

#include "cli/cli_util.h"
#include "cli/progress.h"
#include "cli/run_setup.h"
#include "kernel/cache_store.h"
#include "runner/building_artifact_provider.h"
#include "runner/experiment_runner.h"
#include "util/build_info.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

namespace {

std::string fmt_time(std::time_t t) {
  if (t == 0) return "-";
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

void print_gc(const GcResult& r, bool dry_run) {
  for (const auto& it : r.evicted) {
    fmt::print("{} {} {} ({}, last used {})\n", dry_run ? "would remove" : "removed",
               cache_kind_name(it.kind), it.id, human_bytes(it.bytes), fmt_time(it.last_used));
  }
  for (const auto& it : r.held) {
    fmt::print("kept {} {}: in use by a running foliolab\n", cache_kind_name(it.kind), it.id);
  }
  fmt::print("cache: {} -> {}{}\n", human_bytes(r.before), human_bytes(r.after),
             dry_run ? " (dry run)" : "");
  if (!r.note.empty()) fmt::print(stderr, "note: {}\n", r.note);
}

}  // namespace

std::function<int()> setup_cache(CLI::App& app) {
  auto common = std::make_shared<Common>();
  auto max_size = std::make_shared<std::string>();
  auto older = std::make_shared<std::string>();
  auto dry = std::make_shared<bool>(false);
  app.require_subcommand(1);
  CLI::App* list = app.add_subcommand(
      "list", "kernels, images, working trees and build folders with sizes and last use");
  CLI::App* gc = app.add_subcommand(
      "gc", "remove least recently used items (never what a running foliolab holds)");
  common->add(*list);
  common->add(*gc);
  gc->add_option("--max-size", *max_size, "shrink the cache to at most this (10G, 500M)");
  gc->add_option("--older-than", *older, "remove what was not used for this long (7d, 12h)");
  gc->add_flag("--dry-run", *dry, "only say what would be removed");
  return [=] {
    if (list->parsed()) {
      uint64_t total = 0;
      for (const auto& it : list_cache(common->cache)) {
        total += it.bytes;
        if (it.kind == CacheKind::kKernel) {
          fmt::print("kernel  {}  {:>9}  used {}  {} {} {}  {}\n", it.id, human_bytes(it.bytes),
                     fmt_time(it.last_used), it.kernel.empty() ? "?" : it.kernel, it.arch,
                     it.version, it.source);
        } else {
          fmt::print("{:<7} {}  {:>9}  used {}\n",
                     cache_kind_name(it.kind) == "working tree"
                         ? "tree"
                         : std::string(cache_kind_name(it.kind)),
                     it.id, human_bytes(it.bytes), fmt_time(it.last_used));
          for (const auto& part : it.parts) fmt::print("          O= {}\n", part);
        }
      }
      fmt::print("total {} in {}\n", human_bytes(total), common->cache);
      return kExitOk;
    }
    GcOptions opt{.dry_run = *dry};
    if (!max_size->empty()) {
      auto n = parse_size(*max_size);
      if (!n.ok()) return fail(make_error("--max-size: " + n.error().message));
      opt.max_bytes = *n;
    }
    if (!older->empty()) {
      auto n = parse_age(*older);
      if (!n.ok()) return fail(make_error("--older-than: " + n.error().message));
      opt.older_than_secs = *n;
    }
    if (!opt.max_bytes && !opt.older_than_secs) {
      auto configured = configured_cache_max_size();
      if (!configured.ok()) return fail(configured.error());
      if (!*configured) {
        return fail(make_error(
            "cache gc: give --max-size and/or --older-than (or set FOLIOLAB_CACHE_MAX_SIZE)"));
      }
      opt.max_bytes = **configured;
    }
    print_gc(collect_garbage(common->cache, opt), *dry);
    return kExitOk;
  };
}

}  // namespace foliolab::cli
