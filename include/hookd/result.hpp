// Result<T>: how hookd returns expected failures (bad input, not found, conflict, storage
// unavailable) as values instead of exceptions, and HOOKD_TRY / HOOKD_CHECK for chains of
// steps each of which may fail. Bugs are assertions, not Results.
// Thread-safety: plain value types (and macros).
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>

namespace hookd {

enum class ErrorCode {
  kInvalidArgument,  // the caller's input is wrong; message says which field and why
  kNotFound,
  kConflict,     // unique key already taken, or state does not allow the change
  kUnavailable,  // storage or peer temporarily unavailable; the caller may retry
  kInternal,     // should not happen; carries details for the log
};

std::string_view to_string(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
};

template <class T>
using Result = std::expected<T, Error>;

// Status: a Result with no value.
using Status = std::expected<void, Error>;

inline std::unexpected<Error> fail(ErrorCode code, std::string message) {
  return std::unexpected<Error>(Error{code, std::move(message)});
}

}  // namespace hookd

// HOOKD_TRY(name, expr): evaluates a Result; returns its error, else binds `name` to the value.
#define HOOKD_TRY(name, expr)                                        \
  auto name##_result = (expr);                                       \
  if (!name##_result) return std::unexpected(name##_result.error()); \
  auto& name = *name##_result

// HOOKD_CHECK(expr): evaluates a Status/Result; returns its error if it failed.
#define HOOKD_CHECK(expr)                            \
  do {                                               \
    if (auto check_result_ = (expr); !check_result_) \
      return std::unexpected(check_result_.error()); \
  } while (false)
