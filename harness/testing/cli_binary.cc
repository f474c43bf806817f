#include "testing/cli_binary.h"

namespace foliolab {

const char* cli_binary() { return FOLIOLAB_CLI; }

}  // namespace foliolab
