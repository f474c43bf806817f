#include "results/index_rebuild.h"

#include <fmt/format.h>

#include <algorithm>
#include <system_error>

#include "results/bisect_index.h"
#include "results/finding_index.h"
#include "results/index.h"

namespace foliolab {
namespace fs = std::filesystem;

Result<int> rebuild_index(const fs::path& results_root,
                          const std::function<void(const std::string&)>& warn) {
  auto index = ResultIndex::open(results_root);
  if (!index.ok()) {
    // A damaged index is only a cache: start over.
    warn(fmt::format("{}; recreating it", index.error().message));
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) {
      fs::remove(results_root / (std::string(kIndexFile) + suffix), ec);
    }
    index = ResultIndex::open(results_root);
    if (!index.ok()) return index.error();
  }
  SqlTransaction tx(index->db_);
  if (!tx.begun().ok()) return tx.begun().error();
  if (auto st = index->db_.exec("DELETE FROM sessions; DELETE FROM bisections"); !st.ok()) {
    return st.error();
  }
  auto runs = index->index_run_files(warn);
  if (!runs.ok()) return runs.error();
  if (auto n = write_bisections_under(index->db_, index->root_, warn); !n.ok()) return n.error();
  if (auto n = write_gate_files_under(index->db_, index->root_, warn); !n.ok()) return n.error();
  if (auto st = tx.commit(); !st.ok()) return st.error();
  return runs;
}

}  // namespace foliolab
