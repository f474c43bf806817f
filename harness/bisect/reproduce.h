// The folder beside a regression report that reproduces it from a fresh clone or an installed
// foliolab (issue 57): a project (foliolab.yaml) holding experiment.yaml, which is the bisected
// experiment narrowed to the report's one cell (arch, knob set, workload) and pinned to its
// kernels, each a copy of the bisected kernel with its own patches (a quilt folder of the
// patches it applies, under patches/) or its own commit. `foliolab run experiment.yaml` there
// builds the same kernels (the same build ids: a kernel's id hashes what its patches change)
// and measures the cell.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

inline constexpr const char* kReproduceDir = "reproduce";
inline constexpr const char* kReproduceFile = "experiment.yaml";

struct PinnedKernel {
  std::string label;  // its name in experiment.yaml and its patch folder's: "parent", "culprit"
  std::vector<std::filesystem::path> patches;  // the patches it applies, in order (a series)
  std::string commit;                          // or the commit of its git source (a range)
};

struct ReproduceSpec {
  const Experiment* exp = nullptr;  // the bisected experiment (its file is read again)
  std::string kernel;               // the name of the kernel the pinned ones copy
  Run cell;                         // the report's run of exp (arch, knob set, workload)
  int repeat = 0;                   // reps per run (0: the experiment's own)
  std::vector<PinnedKernel> kernels;
  std::vector<PinnedKernel> extra;  // patch folders written but not run (the tip, for `try`)
};

// Writes <dir>/reproduce/ and returns the folder.
Result<std::filesystem::path> write_reproduce(const ReproduceSpec& spec,
                                              const std::filesystem::path& dir);

// Writes patches/<label>/ (a quilt folder: the patch files and a `series` listing them) in a
// reproduce folder.
Result<void> write_patch_folder(const std::filesystem::path& reproduce, const PinnedKernel& k);

// `foliolab try FIX`: the reproduce folder's experiment with the fix applied: patches/culprit-fix
// (the culprit's patches, then FIX) and, when the folder holds the tip's patches (the culprit
// was not the series' last patch), patches/tip-fix, in <reproduce>/try-<FIX's stem>.yaml with
// the kernels parent, culprit, culprit-fix[, tip-fix]. The columns: (label, kernel name).
struct TryExperiment {
  std::filesystem::path file;
  std::vector<std::pair<std::string, std::string>> columns;
};
Result<TryExperiment> write_try_experiment(const std::filesystem::path& reproduce,
                                           const std::filesystem::path& fix);

// "cd reproduce && foliolab run experiment.yaml", and from a clone: relative to the report's
// folder, so that the report reads the same wherever it is sent (and fits a mail's lines).
std::string reproduce_command();

}  // namespace foliolab
