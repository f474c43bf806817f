// A fixed set of worker threads with a bounded queue: work that is refused when the queue is
// full rather than kept waiting without end (the lab server's handlers, server/http_front.h).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace foliolab {

class WorkerPool {
 public:
  WorkerPool(int workers, size_t queue);
  ~WorkerPool();  // finishes the work queued, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // False (and `work` dropped) when `queue` jobs already wait.
  bool try_submit(std::function<void()> work);

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  size_t limit_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace foliolab
