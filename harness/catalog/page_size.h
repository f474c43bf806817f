// The guest's base page size, known at plan time from the arch and the kernel's config
// fragments, and the check of every size parameter that must be a multiple of it.
#pragma once

#include <cstdint>
#include <string>

#include "model/experiment.h"
#include "util/result.h"

namespace foliolab {

// 4 on x86_64; on arm64 16 or 64 when a fragment (kernel-config/arm64-16k, arm64-64k) or an
// inline option (CONFIG_ARM64_16K_PAGES, CONFIG_ARM64_64K_PAGES = y) selects them, else 4.
int guest_page_size_kb(const KernelSpec& kernel, Arch arch);

// "6K", "64M", "1G", or plain bytes ("1000") when no binary unit divides it.
std::string size_text(uint64_t bytes);

// Every parameter the workload catalog marks FL_PAGE_MULTIPLE, as given in the experiment, is
// a multiple of the page size of every run's kernel that uses it. One problem per (parameter,
// page size), naming the kernels and archs and the nearest valid sizes:
// "file:line:col: workloads[0].params.size: 6K is not a multiple of the 4K page size of kernel
// 6.12 (x86_64); nearest valid sizes: 4K, 8K".
Result<void> check_page_multiples(const Experiment& exp);

}  // namespace foliolab
