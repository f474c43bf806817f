#include "catalog/knob_catalog.h"

#include "catalog/page_size.h"

#include <algorithm>
#include <climits>
#include <set>
#include <tuple>
#include <utility>

#include "model/matrix.h"
#include "util/text.h"

namespace foliolab {
namespace {

constexpr const char* kDescribedVersion = "6.12";

int page_shift(int page_size_kb) {
  int shift = 10;
  while ((1 << (shift - 10)) < page_size_kb) ++shift;
  return shift;
}

// A page-table page holds PAGE_SIZE / 8 entries: PMD_ORDER = PAGE_SHIFT - 3 (9 with 4K pages,
// 11 with 16K, 13 with 64K).
int pmd_order(const KernelFacts& f) { return page_shift(f.page_size_kb) - 3; }

// include/linux/pagemap.h: MAX_PAGECACHE_ORDER = min(MAX_XAS_ORDER = 2 * 6 - 1, PMD_ORDER).
int max_pagecache_order(const KernelFacts& f) { return std::min(11, pmd_order(f)); }

uint64_t size_kb(const KernelFacts& f, int order) {
  return static_cast<uint64_t>(f.page_size_kb) << order;
}

std::string dir_name(uint64_t kb) { return "hugepages-" + std::to_string(kb) + "kB"; }

std::string page_text(const KernelFacts& f) { return std::to_string(f.page_size_kb) + "K pages"; }

std::string kernel_text(const KernelFacts& f) { return "Linux " + f.version; }

std::string range_text(const std::vector<uint64_t>& sizes) {
  if (sizes.empty()) return "none";
  return std::to_string(sizes.front()) + "kB.." + std::to_string(sizes.back()) + "kB";
}

// kstrtoul/kstrtouint with base 10: an optional '+', then decimal digits; overflow fails.
std::optional<uint64_t> parse_kernel_unsigned(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  uint64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (n > (UINT64_MAX - digit) / 10) return std::nullopt;
    n = n * 10 + digit;
  }
  return n;
}

// lib/kstrtox.c kstrtobool: only the first one or two characters count.
bool kernel_bool_ok(std::string_view s) {
  if (s.empty()) return false;
  switch (s[0]) {
    case 'y':
    case 'Y':
    case 't':
    case 'T':
    case '1':
    case 'n':
    case 'N':
    case 'f':
    case 'F':
    case '0':
      return true;
    case 'o':
    case 'O':
      return s.size() > 1 && (s[1] == 'n' || s[1] == 'N' || s[1] == 'f' || s[1] == 'F');
    default:
      return false;
  }
}

KnobFile choice(std::string path, std::vector<std::string> choices) {
  return KnobFile{std::move(path), KnobKind::kChoice, std::move(choices)};
}
KnobFile number(std::string path, uint64_t min, uint64_t max) {
  return KnobFile{std::move(path), KnobKind::kUnsigned, {}, min, max};
}
KnobFile read_only(std::string path) { return KnobFile{std::move(path), KnobKind::kReadOnly}; }

Result<void> check_value(const KnobFile& file, const std::string& value, const KernelFacts& facts) {
  switch (file.kind) {
    case KnobKind::kReadOnly:
      return make_error("read-only in " + kernel_text(facts) + "; it cannot be set");
    case KnobKind::kChoice: {
      if (std::find(file.choices.begin(), file.choices.end(), value) != file.choices.end()) {
        return {};
      }
      return make_error("'" + value + "' is not offered by " + kernel_text(facts) + " (" +
                        join(file.choices, " ") + ")" + did_you_mean(value, file.choices));
    }
    case KnobKind::kBool:
      if (kernel_bool_ok(value)) return {};
      return make_error("'" + value + "' is not a boolean for " + kernel_text(facts) + " (0 or 1)");
    case KnobKind::kUnsigned: {
      const auto n = parse_kernel_unsigned(value);
      if (n && *n >= file.min && *n <= file.max) return {};
      if (file.min == 0 && file.max == 1) {
        return make_error("'" + value + "' is not accepted by " + kernel_text(facts) + " (0 or 1)");
      }
      std::string message = "'" + value + "' is not accepted by " + kernel_text(facts);
      if (file.path.starts_with("khugepaged/max_ptes_")) message += " with " + page_text(facts);
      return make_error(message + " (an integer in " + std::to_string(file.min) + ".." +
                        std::to_string(file.max) + ")");
    }
  }
  return {};
}

// Explains a path the catalog does not have.
Error unknown_path(const std::string& rel_path, const KernelFacts& facts,
                   const std::vector<KnobFile>& files) {
  const std::string prefix = "hugepages-";
  const size_t slash = rel_path.find('/');
  if (rel_path.starts_with(prefix) && slash != std::string::npos) {
    const std::string dir = rel_path.substr(0, slash);
    const std::string rest = rel_path.substr(slash + 1);
    std::vector<std::string> in_dir;
    for (const auto& f : files) {
      if (f.path.starts_with(dir + "/") && f.kind != KnobKind::kReadOnly) {
        in_dir.push_back(f.path.substr(dir.size() + 1));
      }
    }
    if (in_dir.empty()) {
      return make_error(kernel_text(facts) + " with " + page_text(facts) + " has no " + dir +
                        "/ (anonymous mTHP sizes: " + range_text(anon_mthp_sizes_kb(facts)) +
                        ", shmem: " + range_text(shmem_mthp_sizes_kb(facts)) + ")");
    }
    std::string message = kernel_text(facts) + " has no " + rel_path + " (" + dir +
                          "/ offers: " + join(in_dir, " ") + ")";
    if (rest == "enabled") {
      message += "; order-1 folios are used for shmem only";
    } else if (auto near = closest_match(rest, in_dir)) {
      message += did_you_mean_text(dir + "/" + *near);
    }
    return make_error(message);
  }
  std::vector<std::string> writable;
  for (const auto& f : files) {
    if (f.kind != KnobKind::kReadOnly && !f.path.starts_with(prefix)) writable.push_back(f.path);
  }
  std::string message = kernel_text(facts) + " has no transparent_hugepage/" + rel_path;
  const std::string near = did_you_mean(rel_path, writable);
  message += near.empty() ? " (files: " + join(writable, " ") + " and hugepages-<size>kB/)" : near;
  return make_error(message);
}

}  // namespace

std::vector<uint64_t> anon_mthp_sizes_kb(const KernelFacts& facts) {
  // THP_ORDERS_ALL_ANON: orders 2..PMD_ORDER (order 1 is a limitation of anonymous THP).
  std::vector<uint64_t> out;
  for (int order = 2; order <= pmd_order(facts); ++order) out.push_back(size_kb(facts, order));
  return out;
}

std::vector<uint64_t> shmem_mthp_sizes_kb(const KernelFacts& facts) {
  // THP_ORDERS_ALL_FILE_DEFAULT: orders 1..MAX_PAGECACHE_ORDER.
  std::vector<uint64_t> out;
  for (int order = 1; order <= max_pagecache_order(facts); ++order) {
    out.push_back(size_kb(facts, order));
  }
  return out;
}

std::vector<KnobFile> thp_knob_files(const KernelFacts& facts) {
  if (facts.version != kDescribedVersion) return {};
  const uint64_t pmd_nr = uint64_t{1} << pmd_order(facts);
  std::vector<KnobFile> files = {
      choice("enabled", {"always", "madvise", "never"}),
      choice("defrag", {"always", "defer", "defer+madvise", "madvise", "never"}),
      number("use_zero_page", 0, 1),
      read_only("hpage_pmd_size"),
      choice("shmem_enabled", {"always", "within_size", "advise", "never", "deny", "force"}),
      KnobFile{"shrink_underused", KnobKind::kBool},
      number("khugepaged/defrag", 0, 1),
      number("khugepaged/max_ptes_none", 0, pmd_nr - 1),
      number("khugepaged/max_ptes_swap", 0, pmd_nr - 1),
      number("khugepaged/max_ptes_shared", 0, pmd_nr - 1),
      number("khugepaged/pages_to_scan", 1, UINT_MAX),
      read_only("khugepaged/pages_collapsed"),
      read_only("khugepaged/full_scans"),
      number("khugepaged/scan_sleep_millisecs", 0, UINT_MAX),
      number("khugepaged/alloc_sleep_millisecs", 0, UINT_MAX),
  };
  const auto anon = anon_mthp_sizes_kb(facts);
  const auto shmem = shmem_mthp_sizes_kb(facts);
  std::set<uint64_t> sizes(anon.begin(), anon.end());
  sizes.insert(shmem.begin(), shmem.end());
  for (uint64_t kb : sizes) {
    const std::string dir = dir_name(kb) + "/";
    const bool is_anon = std::find(anon.begin(), anon.end(), kb) != anon.end();
    const bool is_shmem = std::find(shmem.begin(), shmem.end(), kb) != shmem.end();
    if (is_anon)
      files.push_back(choice(dir + "enabled", {"always", "inherit", "madvise", "never"}));
    if (is_shmem) {
      files.push_back(
          choice(dir + "shmem_enabled", {"always", "inherit", "within_size", "advise", "never"}));
    }
    std::vector<std::string> stats = {"swpout", "swpout_fallback", "split", "split_failed"};
    if (is_anon) {
      for (const char* s : {"anon_fault_alloc", "anon_fault_fallback", "anon_fault_fallback_charge",
                            "split_deferred", "nr_anon", "nr_anon_partially_mapped"}) {
        stats.emplace_back(s);
      }
    }
    if (is_shmem) {
      for (const char* s : {"shmem_alloc", "shmem_fallback", "shmem_fallback_charge"}) {
        stats.emplace_back(s);
      }
    }
    for (const auto& s : stats) files.push_back(read_only(dir + "stats/" + s));
  }
  return files;
}

Result<void> check_knob(const std::string& rel_path, const std::string& value,
                        const KernelFacts& facts) {
  const std::vector<KnobFile> files = thp_knob_files(facts);
  if (files.empty()) return {};
  for (const auto& f : files) {
    if (f.path == rel_path) return check_value(f, value, facts);
  }
  if (facts.patched && !rel_path.starts_with("hugepages-")) return {};
  return unknown_path(rel_path, facts, files);
}

std::optional<KernelFacts> kernel_facts(const KernelSpec& kernel, Arch arch) {
  if (kernel.source != "debian") return std::nullopt;
  return KernelFacts{kDescribedVersion, guest_page_size_kb(kernel, arch), !kernel.patches.empty()};
}

Result<void> validate_knobs(const Experiment& exp) {
  // One problem per (knob set, knob, kernel, message), naming every arch it affects.
  struct Problem {
    size_t set, knob, kernel;
    std::string message;
    std::vector<std::string> archs;
  };
  std::vector<Problem> problems;
  std::set<std::tuple<size_t, Arch, size_t>> seen;
  for (const Run& run : expand(exp)) {
    // Runs differ only in their workload beyond (kernel, arch, knob set).
    if (!seen.insert({run.kernel, run.arch, run.knob_set}).second) continue;
    const auto facts = kernel_facts(exp.kernels[run.kernel], run.arch);
    if (!facts) continue;
    const KnobSet& set = exp.knob_sets[run.knob_set];
    for (size_t i = 0; i < set.knobs.size(); ++i) {
      const Result<void> st = check_knob(set.knobs[i].first, set.knobs[i].second, *facts);
      if (st.ok()) continue;
      const std::string arch(arch_info(run.arch).name);
      auto same = std::find_if(problems.begin(), problems.end(), [&](const Problem& p) {
        return p.set == run.knob_set && p.knob == i && p.kernel == run.kernel &&
               p.message == st.error().message;
      });
      if (same != problems.end()) {
        same->archs.push_back(arch);
      } else {
        problems.push_back({run.knob_set, i, run.kernel, st.error().message, {arch}});
      }
    }
  }
  std::stable_sort(problems.begin(), problems.end(), [](const Problem& a, const Problem& b) {
    return std::tie(a.set, a.knob) < std::tie(b.set, b.knob);
  });
  std::string out;
  for (const Problem& p : problems) {
    const KnobSet& set = exp.knob_sets[p.set];
    const SourceLoc at = p.knob < set.knob_locs.size() ? set.knob_locs[p.knob] : set.loc;
    out += (out.empty() ? "" : "\n") + at.str() + ": knobs[\"" + set.name + "\"]." +
           set.knobs[p.knob].first + ": " + p.message + " (kernel " + exp.kernels[p.kernel].name +
           " on " + join(p.archs, ", ") + ")";
  }
  return out.empty() ? Result<void>() : make_error(out);
}

}  // namespace foliolab
