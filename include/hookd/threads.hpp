// Per-thread setup for hookd's long-lived threads. name_this_thread: so `top -H`, `ps -L`
// and perf show which part of hookd a thread is (Linux: 15 characters at most).
// lower_this_thread_priority: a nice level for this thread only (Linux schedules threads
// individually), used to let accepting requests win the CPU over background forwarding.
// Thread-safety: each call affects only the calling thread.
#pragma once

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

namespace hookd {

inline void name_this_thread(const char* name) { pthread_setname_np(pthread_self(), name); }

// Raises the calling thread's nice value to `nice` (0 = unchanged; 1..19 = lower priority;
// no privilege needed). False if the kernel refused.
inline bool lower_this_thread_priority(int nice) {
  if (nice <= 0) return true;
  return setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), nice) == 0;
}

}  // namespace hookd
