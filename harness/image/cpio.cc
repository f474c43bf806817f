#include "image/cpio.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <memory>

namespace foliolab {
namespace {

struct WriteCtx {
  std::string out;
};

la_ssize_t write_cb(struct archive*, void* ctx, const void* buf, size_t n) {
  static_cast<WriteCtx*>(ctx)->out.append(static_cast<const char*>(buf), n);
  return static_cast<la_ssize_t>(n);
}

}  // namespace

Result<std::string> write_cpio(const std::vector<CpioEntry>& entries) {
  std::unique_ptr<archive, decltype(&archive_write_free)> a(archive_write_new(),
                                                            archive_write_free);
  WriteCtx ctx;
  archive_write_set_format_cpio_newc(a.get());
  archive_write_set_bytes_per_block(a.get(), 0);  // no block padding: archives get concatenated
  if (archive_write_open(a.get(), &ctx, nullptr, write_cb, nullptr) != ARCHIVE_OK) {
    return make_error(std::string("libarchive: ") + archive_error_string(a.get()));
  }
  unsigned ino = 1;
  for (const auto& e : entries) {
    std::unique_ptr<archive_entry, decltype(&archive_entry_free)> ae(archive_entry_new(),
                                                                     archive_entry_free);
    archive_entry_set_pathname(ae.get(), e.path.c_str());
    archive_entry_set_uid(ae.get(), 0);
    archive_entry_set_gid(ae.get(), 0);
    archive_entry_set_mtime(ae.get(), 0, 0);
    archive_entry_set_ino(ae.get(), ino++);
    archive_entry_set_nlink(ae.get(), e.kind == CpioEntry::Kind::kDir ? 2 : 1);
    archive_entry_set_size(ae.get(), 0);  // newc wants a size on every entry
    switch (e.kind) {
      case CpioEntry::Kind::kFile:
        archive_entry_set_filetype(ae.get(), AE_IFREG);
        archive_entry_set_size(ae.get(), static_cast<la_int64_t>(e.data.size()));
        break;
      case CpioEntry::Kind::kDir:
        archive_entry_set_filetype(ae.get(), AE_IFDIR);
        break;
      case CpioEntry::Kind::kCharDev:
        archive_entry_set_filetype(ae.get(), AE_IFCHR);
        archive_entry_set_rdevmajor(ae.get(), e.dev_major);
        archive_entry_set_rdevminor(ae.get(), e.dev_minor);
        break;
    }
    archive_entry_set_perm(ae.get(), e.mode);
    if (archive_write_header(a.get(), ae.get()) != ARCHIVE_OK) {
      return make_error("libarchive: " + e.path + ": " + archive_error_string(a.get()));
    }
    if (e.kind == CpioEntry::Kind::kFile && !e.data.empty() &&
        archive_write_data(a.get(), e.data.data(), e.data.size()) < 0) {
      return make_error("libarchive: " + e.path + ": " + archive_error_string(a.get()));
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) {
    return make_error(std::string("libarchive: ") + archive_error_string(a.get()));
  }
  return std::move(ctx.out);
}

Result<std::vector<CpioEntry>> read_cpio(const std::string& bytes) {
  std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
  archive_read_support_format_cpio(a.get());
  if (archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
    return make_error(std::string("libarchive: ") + archive_error_string(a.get()));
  }
  std::vector<CpioEntry> out;
  archive_entry* ae = nullptr;
  int rc;
  while ((rc = archive_read_next_header(a.get(), &ae)) == ARCHIVE_OK) {
    CpioEntry e;
    e.path = archive_entry_pathname(ae);
    e.mode = archive_entry_perm(ae);
    auto type = archive_entry_filetype(ae);
    e.kind = type == AE_IFDIR   ? CpioEntry::Kind::kDir
             : type == AE_IFCHR ? CpioEntry::Kind::kCharDev
                                : CpioEntry::Kind::kFile;
    e.dev_major = archive_entry_rdevmajor(ae);
    e.dev_minor = archive_entry_rdevminor(ae);
    char buf[65536];
    for (la_ssize_t n; (n = archive_read_data(a.get(), buf, sizeof buf)) > 0;)
      e.data.append(buf, static_cast<size_t>(n));
    out.push_back(std::move(e));
  }
  if (rc != ARCHIVE_EOF)
    return make_error(std::string("libarchive: ") + archive_error_string(a.get()));
  return out;
}

}  // namespace foliolab
