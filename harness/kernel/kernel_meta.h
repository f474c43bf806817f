// kernel.json: what a cached kernel is and how it was built, typed and versioned. Schema 1 is
// what every foliolab so far has written (files without a "schema" key are read as 1; keys added
// since, such as series_form and cover_letter, read as empty when absent); a file
// of a newer schema, or one that is not JSON, is a cache miss with a reason, never a crash.
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace foliolab {

struct KernelMeta {
  static constexpr int kSchema = 1;

  struct Source {
    std::string id;
    std::string location;
    std::string describe;  // "git /src/linux @ 1a2b3c4d5e6f (ref my-branch)"
    std::string git_ref;
    std::string git_commit;
    bool git_dirty = false;
    std::string work_id;
  };
  struct Patch {
    std::string name;
    std::string sha256;
    std::string subject;  // a mail's subject without "[PATCH ...]"; "" for quilt patches
  };
  // An mbox's 0/N message, b4's .cover or a format-patch folder's 0000-cover-letter.patch.
  struct CoverLetter {
    std::string subject;  // as sent: "[PATCH v2 0/5] mm: ..."
    std::string file;     // its file, or "<mbox>#<message>"
    std::string sha256;
  };

  int schema = kSchema;
  std::string build_id;
  std::string cache_key;
  std::string kernel;   // KernelSpec::name
  std::string arch;     // ArchInfo::name
  std::string version;  // "6.12.117"
  Source source;
  std::string series;       // "" for the pristine tree
  std::string series_form;  // "quilt", "format-patch", "mbox"; "" when none (or written before)
  std::vector<Patch> patches;
  CoverLetter cover_letter;                  // all "" when the series has none
  std::vector<std::string> config_requests;  // "CONFIG_X=y (origin)"
  std::string compiler;                      // first line of `<cc> --version`
  bool ccache = false;
  double build_seconds = 0;
  std::string reproduce;  // "cd <tree> && make ..."

  nlohmann::json to_json() const;
  // Errors name what is wrong ("schema 2 is newer than this foliolab reads (1)").
  static Result<KernelMeta> from_json(const nlohmann::json& j);
  static Result<KernelMeta> parse(std::string_view text);

  // "git /src/linux @ 1a2b3c4d5e6f (ref my-branch) + patches v1", with the cover letter's
  // subject when the series has one ("+ patches v2.mbx (cover: [PATCH v2 0/3] mm: foo)"): for
  // run records and reports.
  std::string describe_source() const;
};

// Reads <file>; an error (missing, damaged, newer schema) says why the kernel is not usable.
Result<KernelMeta> load_kernel_meta(const std::filesystem::path& file);

}  // namespace foliolab
