// `foliolab export --kcidb SESSION`: a results session in another system's format (KernelCI's
// KCIDB I/O JSON, docs/kcidb.md), to stdout or --output.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_export(CLI::App& app);

}  // namespace foliolab::cli
