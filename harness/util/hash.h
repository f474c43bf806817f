// Content hashing for cache keys (SHA-256 through OpenSSL's EVP interface).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "util/result.h"

namespace foliolab {

class Hasher {
 public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;

  // Each field is length-prefixed so that ("ab","c") and ("a","bc") differ.
  Hasher& add(std::string_view field);
  Hasher& add_raw(std::string_view bytes);              // no length prefix
  Hasher& add_file(const std::filesystem::path& file);  // contents; a missing file hashes a marker
  std::string hex();                                    // finishes; 64 lowercase hex digits

 private:
  void* ctx_;
};

std::string sha256_hex(std::string_view data);
Result<std::string> sha256_file(const std::filesystem::path& file);

}  // namespace foliolab
