// XML text and attribute escaping, shared by the JUnit report and libvirt's domain XML.
#pragma once

#include <string>
#include <string_view>

namespace foliolab {

// XML text and attribute escaping (&, <, >, ", ' and control characters).
std::string xml_escape(std::string_view s);

}  // namespace foliolab
