// Names the calling thread (Linux: 15 characters at most) so `top -H`, `ps -L` and perf show
// which part of hookd a thread is, and an operator can renice one of them.
// Thread-safety: affects only the calling thread.
#pragma once

#include <pthread.h>

namespace hookd {

inline void name_this_thread(const char* name) { pthread_setname_np(pthread_self(), name); }

}  // namespace hookd
