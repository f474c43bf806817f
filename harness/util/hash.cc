#include "util/hash.h"

#include <openssl/evp.h>

#include <array>
#include <fstream>

namespace foliolab {

Hasher::Hasher() : ctx_(EVP_MD_CTX_new()) {
  EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr);
}

Hasher::~Hasher() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

Hasher& Hasher::add(std::string_view field) {
  const std::string len = std::to_string(field.size()) + ":";
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), len.data(), len.size());
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), field.data(), field.size());
  return *this;
}

Hasher& Hasher::add_raw(std::string_view bytes) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), bytes.data(), bytes.size());
  return *this;
}

Hasher& Hasher::add_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return add("<missing>");
  add("<file>");
  std::array<char, 65536> buf{};
  while (in) {
    in.read(buf.data(), buf.size());
    add_raw(std::string_view(buf.data(), static_cast<size_t>(in.gcount())));
  }
  return *this;
}

std::string Hasher::hex() {
  std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
  unsigned int len = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md.data(), &len);
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kDigits[md[i] >> 4];
    out += kDigits[md[i] & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view data) {
  Hasher h;
  h.add_raw(data);
  return h.hex();
}

Result<std::string> sha256_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return make_error("cannot read " + file.string());
  Hasher h;
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), buf.size());
    h.add_raw(std::string_view(buf.data(), static_cast<size_t>(in.gcount())));
  }
  return h.hex();
}

}  // namespace foliolab
