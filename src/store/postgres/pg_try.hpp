// Early-return helpers for Result/Status chains inside the PostgreSQL backend (the SQLite
// backend's HOOKD_TRY / HOOKD_CHECK). Thread-safety: n/a (macros).
#pragma once

#include "store/sqlite/try.hpp"
