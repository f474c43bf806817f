#include "backend/libvirt_streams.h"

#include <libvirt/virterror.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "util/hash.h"

namespace foliolab {
namespace fs = std::filesystem;

std::string libvirt_last_error() {
  const char* m = virGetLastErrorMessage();
  return m ? m : "unknown libvirt error";
}

void StreamCopy::finish(std::chrono::seconds bound) {
  if (!thread_.joinable()) return;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, bound, [&] { return done_; })) virStreamAbort(st_);
  }
  thread_.join();
  virStreamFree(st_);
}

void StreamCopy::run(const fs::path& file) {
  FILE* out = std::fopen(file.c_str(), "wb");
  char buf[65536];
  while (true) {
    const int n = virStreamRecv(st_, buf, sizeof buf);
    if (n > 0 && out) {
      std::fwrite(buf, 1, static_cast<size_t>(n), out);
      std::fflush(out);  // what arrived is on disk even if foliolab dies next
      continue;
    }
    if (n == 0)
      virStreamFinish(st_);
    else
      virStreamAbort(st_);
    break;
  }
  if (out) std::fclose(out);
  std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  cv_.notify_all();
}

namespace {

// The volume's path on the host, nullopt when libvirt has none.
std::optional<fs::path> volume_path(virStorageVolPtr vol) {
  char* p = virStorageVolGetPath(vol);
  if (!p) return std::nullopt;
  fs::path out(p);
  free(p);
  return out;
}

// Sends the whole open file `in` (`bytes` long) into the volume through a new stream of `conn`;
// nullopt when it arrived, else libvirt's reason.
std::optional<std::string> upload(virConnectPtr conn, virStorageVolPtr vol, FILE* in,
                                  uint64_t bytes) {
  virStreamPtr st = virStreamNew(conn, 0);
  int rc = st ? virStorageVolUpload(vol, st, 0, bytes, 0) : -1;
  if (rc == 0) {
    rc = virStreamSendAll(
        st,
        [](virStreamPtr, char* data, size_t n, void* f) -> int {
          const size_t got = std::fread(data, 1, n, static_cast<FILE*>(f));
          return got == 0 && std::ferror(static_cast<FILE*>(f)) ? -1 : static_cast<int>(got);
        },
        in);
  }
  if (rc == 0) rc = virStreamFinish(st);
  std::optional<std::string> why;
  if (rc != 0) why = libvirt_last_error();
  if (rc != 0 && st) virStreamAbort(st);
  if (st) virStreamFree(st);
  return why;
}

}  // namespace

RemoteFiles::~RemoteFiles() {
  if (pool_) virStoragePoolFree(pool_);
}

Result<fs::path> RemoteFiles::kernel(const fs::path& local) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = kernels_.find(local); it != kernels_.end()) return it->second;
  auto digest = sha256_file(local);
  if (!digest.ok()) return digest.error();
  auto path = put(fmt::format("kernel-{}-{}", digest->substr(0, 16), local.filename().string()),
                  local, true);
  if (path.ok()) kernels_[local] = *path;
  return path;
}

Result<fs::path> RemoteFiles::per_run(const std::string& name, const fs::path& local) {
  std::lock_guard<std::mutex> lock(mu_);
  return put(name, local, false);
}

void RemoteFiles::drop(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!pool_) return;
  if (virStorageVolPtr v = virStorageVolLookupByName(pool_, name.c_str())) {
    (void)virStorageVolDelete(v, 0);
    virStorageVolFree(v);
  }
}

Result<void> RemoteFiles::open_pool() {
  if (pool_) return {};
  pool_ = virStoragePoolLookupByName(conn_, kPool);
  if (!pool_) {
    const std::string xml = fmt::format(
        "<pool type='dir'><name>{}</name><target><path>{}</path></target></pool>", kPool, kPoolDir);
    pool_ = virStoragePoolCreateXML(conn_, xml.c_str(), VIR_STORAGE_POOL_CREATE_WITH_BUILD);
    if (!pool_) {
      return make_error(
          fmt::format("libvirt at {}: cannot create storage pool {} ({}) for "
                      "kernels and initrds: {}",
                      uri_, kPool, kPoolDir, libvirt_last_error()));
    }
  } else if (virStoragePoolIsActive(pool_) != 1 && virStoragePoolCreate(pool_, 0) < 0) {
    return make_error(fmt::format("libvirt at {}: cannot start storage pool {}: {}", uri_, kPool,
                                  libvirt_last_error()));
  }
  (void)virStoragePoolRefresh(pool_, 0);  // volumes another session left there
  return {};
}

virStorageVolPtr RemoteFiles::lookup(const std::string& name) {
  return virStorageVolLookupByName(pool_, name.c_str());
}

Result<virStorageVolPtr> RemoteFiles::create(const std::string& name, uint64_t bytes) {
  if (virStorageVolPtr old = lookup(name)) {  // a leftover (an upload cut short)
    (void)virStorageVolDelete(old, 0);
    virStorageVolFree(old);
  }
  const std::string xml = fmt::format(
      "<volume><name>{}</name><capacity unit='bytes'>{}</capacity>"
      "<target><format type='raw'/></target></volume>",
      name, bytes);
  virStorageVolPtr v = virStorageVolCreateXML(pool_, xml.c_str(), 0);
  if (!v) {
    return make_error(fmt::format("libvirt at {}: cannot create volume {}: {}", uri_, name,
                                  libvirt_last_error()));
  }
  return v;
}

Result<fs::path> RemoteFiles::put(const std::string& name, const fs::path& local, bool keep) {
  if (auto st = open_pool(); !st.ok()) return st.error();
  const std::string marker = name + ".ok";
  if (keep) {
    virStorageVolPtr done = lookup(marker);
    virStorageVolPtr vol = done ? lookup(name) : nullptr;
    if (done) virStorageVolFree(done);
    if (vol) {
      std::optional<fs::path> out = volume_path(vol);
      virStorageVolFree(vol);
      if (out) return *out;
    }
  }
  std::error_code ec;
  const uint64_t bytes = fs::file_size(local, ec);
  if (ec) return make_error(fmt::format("cannot upload {}: {}", local.string(), ec.message()));
  auto vol = create(name, bytes);
  if (!vol.ok()) return vol.error();
  struct Closer {
    virStorageVolPtr v;
    ~Closer() { virStorageVolFree(v); }
  } closer{*vol};
  FILE* in = std::fopen(local.c_str(), "rb");
  if (!in) {
    return make_error(fmt::format("cannot read {}: {}", local.string(), std::strerror(errno)));
  }
  const std::optional<std::string> why = upload(conn_, *vol, in, bytes);
  std::fclose(in);
  if (why) {
    return make_error(
        fmt::format("libvirt at {}: cannot upload {}: {}", uri_, local.string(), *why));
  }
  if (keep) {
    auto m = create(marker, 1);
    if (!m.ok()) return m.error();
    virStorageVolFree(*m);
  }
  std::optional<fs::path> out = volume_path(*vol);
  if (!out) {
    return make_error(
        fmt::format("libvirt at {}: no path for volume {}: {}", uri_, name, libvirt_last_error()));
  }
  return *out;
}

}  // namespace foliolab
