// Result<T>: how hookd returns expected failures (bad input, not found, conflict, storage
// unavailable) as values instead of exceptions. Bugs are assertions, not Results.
// Thread-safety: plain value types.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>

namespace hookd {

enum class ErrorCode {
  kInvalidArgument,  // the caller's input is wrong; message says which field and why
  kNotFound,
  kConflict,      // unique key already taken, or state does not allow the change
  kUnavailable,   // storage or peer temporarily unavailable; the caller may retry
  kInternal,      // should not happen; carries details for the log
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
