// The foliolab binary the end-to-end tests and benches drive (built beside them).
#pragma once

namespace foliolab {

const char* cli_binary();

}  // namespace foliolab
