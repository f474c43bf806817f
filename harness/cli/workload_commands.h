// `foliolab workloads [name]`: the workload catalog (model/workload_catalog.h) for people.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_workloads(CLI::App& app);

}  // namespace foliolab::cli
