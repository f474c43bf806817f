// `foliolab bisect EXP --variants a,b,… --metric M --where …` and `foliolab bisect resume DIR`
// (runner/bisect_driver.h; each step a results session). Exit 0: a culprit, confirmed; 1: none
// found, unconfirmed or does not reproduce; 2: bad input.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace foliolab::cli {

std::function<int()> setup_bisect(CLI::App& app);

}  // namespace foliolab::cli
