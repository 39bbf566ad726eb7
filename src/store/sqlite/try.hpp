// Early-return helpers for Result/Status chains inside the SQLite backend (one statement
// after another, each of which may fail). Thread-safety: n/a (macros).
#pragma once

#include <expected>

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
