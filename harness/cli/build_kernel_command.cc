#include "cli/build_kernel_command.h"

#include <unistd.h>
#include <algorithm>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <set>

#include "cli/cli_util.h"
#include "cli/run_setup.h"
#include "image/image_builder.h"
#include "image/rootfs_builder.h"
#include "kernel/builder.h"
#include "model/matrix.h"
#include "results/index.h"
#include "results/store.h"
#include "runner/building_artifact_provider.h"

namespace foliolab::cli {
namespace fs = std::filesystem;

std::function<int()> setup_build_kernel(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto common = std::make_shared<Common>();
  auto archs = std::make_shared<std::vector<std::string>>();
  auto jobs = std::make_shared<int>(0);
  app.add_option("experiment", *file, "experiment YAML file whose kernels to build")->required();
  app.add_option("--arch", *archs, "only these architectures");
  app.add_option("--make-jobs", *jobs, "parallel make jobs (default: all CPUs)");
  auto hosts = std::make_shared<std::string>();
  app.add_option("--hosts", *hosts,
                 "as for run: lab machines' kernel fragments join every kernel (backend kexec)");
  common->add(app);
  return [=] {
    auto exp = load(*file, *common, *archs);
    if (!exp) return kExitBadInput;
    if (auto st = settle_pool_kernels(*common, *hosts, *exp); !st.ok()) return fail(st.error());
    RealProcessRunner proc;
    // make's progress: one line redrawn in place on a terminal, a line a minute otherwise.
    const bool tty = ::isatty(STDERR_FILENO);
    auto clear = [tty] {
      if (tty) fmt::print(stderr, "\r\033[K");
    };
    auto progress = [tty](const std::string& what, double s, const std::string& last) {
      if (tty) {
        fmt::print(stderr, "\r\033[K  {}: {} {}", what, build_time_text(s), last);
      } else if (static_cast<int>(s) % 60 == 0 && s >= 60) {
        fmt::print(stderr, "  {}: still running after {}\n", what, build_time_text(s));
      }
    };
    KernelBuilder builder(proc, {.data_root = common->root,
                                 .project = exp->project,
                                 .spec_dir = exp->dir,
                                 .cache = common->cache,
                                 .jobs = *jobs,
                                 .log =
                                     [clear](const std::string& line) {
                                       clear();
                                       log_line(line);
                                     },
                                 .progress = progress});
    int rc = kExitOk;
    std::set<std::pair<size_t, Arch>> pairs;  // (kernel, arch) as the matrix uses them
    for (const auto& run : expand(*exp)) pairs.insert({run.kernel, run.arch});
    for (const auto& [ki, a] : pairs) {
      const KernelSpec& k = exp->kernels[ki];
      auto art = builder.build(k, a);
      clear();
      if (!art.ok()) {
        rc = std::max(rc, fail(art.error(), kExitFailed));
        continue;
      }
      fmt::print("{} {} {} {} {}\n", k.name, arch_info(a).name, art->build_id,
                 art->cache_hit ? "cached" : "built", art->image.string());
    }
    return rc;
  };
}

}  // namespace foliolab::cli
