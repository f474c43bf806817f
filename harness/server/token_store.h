// Who may use a lab server: named tokens with a scope (push, which may also read; or read),
// kept in the index's tokens table as SHA-256 hashes. A token is shown once, when made.
#pragma once

#include <optional>
#include <string>

#include "results/index.h"
#include "util/result.h"

namespace foliolab {

enum class TokenScope { kRead, kPush };

struct TokenHolder {
  std::string name;
  TokenScope scope = TokenScope::kRead;
};

Result<TokenScope> parse_token_scope(const std::string& text);
// A new token (flt_ and 64 hex digits from OpenSSL's RAND_bytes) under a new name.
Result<std::string> add_token(ResultIndex& index, const std::string& name, TokenScope scope);
// The holder of a presented token, if any. Every stored hash is compared, in constant time.
Result<std::optional<TokenHolder>> find_token(ResultIndex& index, const std::string& presented);

}  // namespace foliolab
