// Runs a plan's tasks with at most `jobs` at once (guests in parallel), in index order, so that
// which task runs first never depends on `jobs`. An exclusive task runs alone (timings that must
// not be disturbed). A task that returns false stops the launch of further tasks; those already
// running finish. Each task learns how many other tasks ran beside it: the most at any moment of
// its life, recorded with its result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace foliolab {

class TaskSlot {
 public:
  int max_beside() const;

 private:
  friend class Scheduler;
  struct State;
  std::shared_ptr<State> state_;
};

class Scheduler {
 public:
  explicit Scheduler(int jobs) : jobs_(jobs < 1 ? 1 : jobs) {}
  // Returns the number of tasks started. `should_stop` (e.g. Ctrl-C) is polled between launches.
  size_t run(size_t n, const std::function<bool(size_t)>& exclusive,
             const std::function<bool(size_t, const TaskSlot&)>& task,
             const std::function<bool()>& should_stop = {});

 private:
  int jobs_;
};

// Guests to run at once by default: the host's cores, bounded by the memory available (from
// /proc/meminfo) over each guest's RAM plus QEMU's own (about 256 MiB). At least 1.
int default_guest_jobs(uint64_t guest_memory_mb);
int guest_jobs_for(unsigned cores, uint64_t available_mb, uint64_t guest_memory_mb);

}  // namespace foliolab
