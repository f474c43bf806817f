// Text from a guest is untrusted: helpers to keep it bounded and printable.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace foliolab {

inline constexpr size_t kMaxGuestField = 4096;

// At most `max` bytes (then "..."), invalid UTF-8 bytes spelled as "\xNN" so the result can
// always be dumped as JSON.
std::string bounded(std::string_view s, size_t max = kMaxGuestField);

// Upper bound on JSON nesting depth (brackets inside strings are skipped). nlohmann's parser is
// recursive, so untrusted deep nesting must be refused before parsing.
size_t json_depth(std::string_view s);

}  // namespace foliolab
