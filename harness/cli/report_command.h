// `foliolab report SESSION`: the comparison table and expectations of a results session.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_report(CLI::App& app);

}  // namespace foliolab::cli
