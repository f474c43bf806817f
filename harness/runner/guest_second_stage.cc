#include "runner/guest_second_stage.h"

#include <fmt/format.h>

#include "backend/qemu_args.h"
#include "image/image_builder.h"
#include "model/loader.h"
#include "protocol/job.h"
#include "protocol/run_report.h"
#include "util/fs.h"
#include "util/fs_ops.h"

namespace foliolab {
namespace fs = std::filesystem;

namespace {

// The kernel the second stage boots: the quickstart's first, built as the full guest kernel
// (kernel/guest_fragments.h): the stage writes the root filesystem's ext4 disk.
Result<KernelSpec> stage_kernel(const fs::path& data_root, Arch arch) {
  const fs::path file = data_root / "experiments" / "quickstart.yaml";
  auto exp = load_experiment(file.string());
  if (!exp.ok()) return in_context("the second stage's kernel", exp.error());
  if (exp->kernels.empty()) return make_error(file.string() + ": no kernel");
  KernelSpec k = exp->kernels.front();
  k.full_guest = {arch};
  return k;
}

}  // namespace

Result<void> GuestSecondStage::run(Arch arch, const fs::path& disk,
                                   const std::vector<std::vector<std::string>>& commands,
                                   const fs::path& dir) {
  auto spec = stage_kernel(opt_.data_root, arch);
  FL_TRY(spec);
  auto kernel = artifacts_.kernel(*spec, arch);
  FL_TRY(kernel);
  auto image = artifacts_.image(arch);
  FL_TRY(image);
  auto job = render_setup_job(fmt::format("image-second-stage-{}", arch_info(arch).name), commands);
  FL_TRY(job);
  FL_TRY(remove_tree(dir));
  FL_TRY(make_dirs(dir));
  const fs::path initrd = dir / "initrd.cpio";
  FL_TRY(write_run_initrd(image->cpio, *job, initrd));
  MachineSpec machine;
  machine.cpus = opt_.cpus;
  machine.memory_mb = opt_.memory_mb;
  auto boot =
      backend_.boot({.arch = arch,
                     .accel = Accel::kTcg,
                     .machine = machine,
                     .kernel = kernel->boot_image.empty() ? kernel->image : kernel->boot_image,
                     .initrd = initrd,
                     .base_image = image->cpio,
                     .job_text = *job,
                     .root_disk = disk,
                     .root_disk_writable = true,
                     .cmdline = kernel_cmdline(arch, ""),
                     .run_dir = dir,
                     .timeout = opt_.timeout});
  FL_TRY(boot);
  auto bytes = read_file(boot->records_file);
  const RunReport report = parse_run_report(bytes.ok() ? *bytes : std::string(), 0);
  // A job without a workload ends with `done status=ok` and no repetitions.
  const bool ended_ok = report.done_status == "ok" && report.errors.empty() &&
                        report.reps.empty() && report.damage.empty();
  if (ended_ok && !boot->timed_out) return {};
  std::string why = boot->timed_out ? fmt::format("did not end within {} s", opt_.timeout.count())
                                    : report.reason;
  if (why.empty()) why = "QEMU ended: " + boot->exit;
  return make_env_error(fmt::format("{} (console: {})", why, boot->console_log.string()));
}

}  // namespace foliolab
