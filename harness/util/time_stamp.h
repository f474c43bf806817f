// The current UTC time as text, for paths and stored files.
#pragma once

#include <string>

namespace foliolab {

// UTC timestamp usable in a path: 20261130T051430Z.
std::string utc_stamp();
// UTC time in ISO 8601: 2026-11-30T05:14:30Z.
std::string utc_iso_now();

}  // namespace foliolab
