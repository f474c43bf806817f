#include "runner/scheduler.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "util/fs.h"

namespace foliolab {

struct TaskSlot::State {
  std::atomic<int> max_beside{0};
};

int TaskSlot::max_beside() const { return state_ ? state_->max_beside.load() : 0; }

size_t Scheduler::run(size_t n, const std::function<bool(size_t)>& exclusive,
                      const std::function<bool(size_t, const TaskSlot&)>& task,
                      const std::function<bool()>& should_stop) {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::shared_ptr<TaskSlot::State>> active;
  bool exclusive_running = false;
  bool stop = false;
  // Finished threads are joined as the loop goes, so a long matrix does not keep their stacks.
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Worker> workers;
  auto join_finished = [&] {
    for (auto it = workers.begin(); it != workers.end();) {
      if (it->done->load()) {
        it->thread.join();
        it = workers.erase(it);
      } else {
        ++it;
      }
    }
  };
  size_t started = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool alone = exclusive && exclusive(i);
    join_finished();
    std::unique_lock<std::mutex> lock(mu);
    auto can_start = [&] {
      if (stop || exclusive_running) return false;
      return alone ? active.empty() : active.size() < static_cast<size_t>(jobs_);
    };
    while (!can_start() && !stop) {
      if (should_stop && should_stop()) break;
      cv.wait_for(lock, std::chrono::milliseconds(200));
    }
    if (stop || (should_stop && should_stop())) break;
    TaskSlot slot;
    slot.state_ = std::make_shared<TaskSlot::State>();
    active.push_back(slot.state_);
    const int beside = static_cast<int>(active.size()) - 1;
    for (auto& s : active) s->max_beside.store(std::max(s->max_beside.load(), beside));
    exclusive_running = alone;
    ++started;
    auto done = std::make_shared<std::atomic<bool>>(false);
    workers.push_back({std::thread([&, i, slot, alone, done] {
                         const bool go_on = task(i, slot);
                         std::lock_guard<std::mutex> guard(mu);
                         active.erase(std::find(active.begin(), active.end(), slot.state_));
                         if (alone) exclusive_running = false;
                         if (!go_on) stop = true;
                         done->store(true);
                         cv.notify_all();
                       }),
                       done});
  }
  for (auto& w : workers) w.thread.join();
  return started;
}

int guest_jobs_for(unsigned cores, uint64_t available_mb, uint64_t guest_memory_mb) {
  const uint64_t per_guest = guest_memory_mb + 256;
  const uint64_t by_memory = available_mb / per_guest;
  return static_cast<int>(
      std::max<uint64_t>(1, std::min<uint64_t>(std::max(cores, 1u), by_memory)));
}

int default_guest_jobs(uint64_t guest_memory_mb) {
  uint64_t available_mb = 0;
  if (auto info = read_file("/proc/meminfo"); info.ok()) {
    std::smatch m;
    if (std::regex_search(*info, m, std::regex(R"(MemAvailable:\s*(\d+) kB)"))) {
      available_mb = std::stoull(m[1]) / 1024;
    }
  }
  return guest_jobs_for(std::thread::hardware_concurrency(), available_mb, guest_memory_mb);
}

}  // namespace foliolab
