// Expected failures as values: Result<T> holds a T or an Error with a message that already
// carries its location ("file:line:col: ..."). Exceptions from libraries are caught at module
// boundaries and turned into Errors.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace foliolab {

// Whose fault a failure is, which decides the exit status: the user's input (2), or the
// environment foliolab runs in (3: a directory that cannot be created, a missing tool, an I/O
// error on a file the user did not name) and foliolab itself (3, a bug).
enum class ErrorKind { kInput, kEnvironment, kInternal };

struct Error {
  std::string message;
  ErrorKind kind = ErrorKind::kInput;
};

inline Error make_error(std::string message) { return Error{std::move(message)}; }
// An environment failure: the message names what was being done and the path.
inline Error make_env_error(std::string message) {
  return Error{std::move(message), ErrorKind::kEnvironment};
}
// `e` with "<what>: " before its message ("kernel k (arm64): ..."), its kind kept.
inline Error in_context(std::string_view what, const Error& e) {
  return Error{std::string(what) + ": " + e.message, e.kind};
}
inline Error make_internal_error(std::string message) {
  return Error{std::move(message), ErrorKind::kInternal};
}

// Returns the error of `expr` (a Result<void> or Result) from the enclosing function.
#define FL_TRY(expr)                                                                       \
  do {                                                                                     \
    if (auto fl_try_status_ = (expr); !fl_try_status_.ok()) return fl_try_status_.error(); \
  } while (0)

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// A step that gives nothing back but may fail: ok, or the Error (what was called `Status`, a
// name that read like progress beside RunStatus).
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace foliolab
