// The libvirt stream plumbing of the libvirt backend (libvirt_backend.h): a stream copied into a
// local file on a thread of its own (the console and the records of a domain), and the files a
// remote libvirt host needs to boot a run uploaded into a storage pool there.
#pragma once

#include <libvirt/libvirt.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "util/result.h"

namespace foliolab {

// libvirt's message for the last error of this thread ("unknown libvirt error" when none).
std::string libvirt_last_error();

// Copies one libvirt stream into a local file until the stream ends (QEMU closed its side as
// the domain stopped) or fails (the connection is gone).
class StreamCopy {
 public:
  StreamCopy(virStreamPtr st, std::filesystem::path file)
      : st_(st), thread_([this, f = std::move(file)] { run(f); }) {}
  ~StreamCopy() { finish(std::chrono::seconds(30)); }
  StreamCopy(const StreamCopy&) = delete;
  StreamCopy& operator=(const StreamCopy&) = delete;

  // Waits for the stream's end, at most `bound` (an end that never comes is aborted).
  void finish(std::chrono::seconds bound);

 private:
  void run(const std::filesystem::path& file);

  virStreamPtr st_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: started once the rest is ready
};

// The files a libvirt host that is not this machine needs to boot a run (the kernel and the
// run's initrd), as volumes of a directory storage pool on that host, uploaded through
// virStorageVolUpload streams: the libvirt connection is the only channel to the host that
// foliolab can count on (no ssh keys or shared file systems assumed), and it works the same for
// qemu+tcp, qemu+tls and qemu+ssh. Kernels are named by content and stay in the pool, so a host
// gets each kernel once, across sessions too; a volume counts only once its ".ok" marker exists
// (an upload cut short is uploaded again). A run's initrd carries its job: uploaded per run and
// deleted after it.
class RemoteFiles {
 public:
  RemoteFiles(virConnectPtr conn, std::string uri) : conn_(conn), uri_(std::move(uri)) {}
  ~RemoteFiles();
  RemoteFiles(const RemoteFiles&) = delete;
  RemoteFiles& operator=(const RemoteFiles&) = delete;

  // The kernel's path on the host, uploading it the first time.
  Result<std::filesystem::path> kernel(const std::filesystem::path& local);

  // A run's own file (its initrd), uploaded now; drop() deletes it.
  Result<std::filesystem::path> per_run(const std::string& name,
                                        const std::filesystem::path& local);

  void drop(const std::string& name);

  static constexpr const char* kPool = "foliolab";
  static constexpr const char* kPoolDir = "/var/lib/libvirt/images/foliolab";

 private:
  Result<void> open_pool();
  virStorageVolPtr lookup(const std::string& name);
  Result<virStorageVolPtr> create(const std::string& name, uint64_t bytes);
  Result<std::filesystem::path> put(const std::string& name, const std::filesystem::path& local,
                                    bool keep);

  virConnectPtr conn_;
  std::string uri_;
  std::mutex mu_;
  virStoragePoolPtr pool_ = nullptr;
  std::map<std::filesystem::path, std::filesystem::path> kernels_;  // local -> path on the host
};

}  // namespace foliolab
