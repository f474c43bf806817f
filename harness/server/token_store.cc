#include "server/token_store.h"

#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "util/hash.h"
#include "util/time_stamp.h"

namespace foliolab {

Result<TokenScope> parse_token_scope(const std::string& text) {
  if (text == "push") return TokenScope::kPush;
  if (text == "read") return TokenScope::kRead;
  return make_error(fmt::format("--scope {}: use push or read", text));
}

Result<std::string> add_token(ResultIndex& index, const std::string& name, TokenScope scope) {
  if (name.empty()) return make_error("a token needs a name");
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return make_env_error("RAND_bytes failed");
  std::string token = "flt_";
  for (unsigned char b : bytes) token += fmt::format("{:02x}", b);
  auto ins = index.db().prepare(
      "INSERT INTO tokens(name, scope, hash, created) VALUES(?,?,?,?) "
      "ON CONFLICT(name) DO NOTHING RETURNING name");
  if (!ins.ok()) return ins.error();
  ins->bind(1, name).bind(2, std::string_view(scope == TokenScope::kPush ? "push" : "read"));
  ins->bind(3, sha256_hex(token)).bind(4, utc_stamp());
  auto row = ins->step();
  if (!row.ok()) return row.error();
  if (!*row) return make_error(fmt::format("a token named '{}' exists already", name));
  return token;
}

Result<std::optional<TokenHolder>> find_token(ResultIndex& index, const std::string& presented) {
  const std::string hash = sha256_hex(presented);
  auto q = index.db().prepare("SELECT name, scope, hash FROM tokens");
  if (!q.ok()) return q.error();
  std::optional<TokenHolder> found;
  for (;;) {
    auto row = q->step();
    if (!row.ok()) return row.error();
    if (!*row) break;
    const std::string stored = q->column_text(2);
    if (stored.size() == hash.size() &&
        CRYPTO_memcmp(stored.data(), hash.data(), hash.size()) == 0) {
      found = TokenHolder{q->column_text(0),
                          q->column_text(1) == "push" ? TokenScope::kPush : TokenScope::kRead};
    }
  }
  return found;
}

}  // namespace foliolab
