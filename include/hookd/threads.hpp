// Per-thread setup for hookd's long-lived threads. name_this_thread: so `top -H`, `ps -L`
// and perf show which part of hookd a thread is (Linux: 15 characters at most).
// lower_this_thread_priority: a nice level for this thread only (Linux schedules threads
// individually), used to let accepting requests win the CPU over background forwarding.
// Thread-safety: each call affects only the calling thread.
#pragma once

#include <errno.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

namespace hookd {

inline void name_this_thread(const char* name) { pthread_setname_np(pthread_self(), name); }

// Raises the calling thread's nice value BY `nice` above the level it inherited (0 =
// unchanged; capped at 19), so it is lower than the rest of hookd however hookd was started
// (`nice make test`, a unit's Nice=): never a priority raise, no privilege needed. False if
// the kernel refused.
inline bool lower_this_thread_priority(int nice) {
  if (nice <= 0) return true;
  const auto tid = static_cast<id_t>(gettid());
  errno = 0;
  const int inherited = getpriority(PRIO_PROCESS, tid);
  if (inherited == -1 && errno != 0) return false;
  const int target = inherited + nice > 19 ? 19 : inherited + nice;
  return setpriority(PRIO_PROCESS, tid, target) == 0;
}

}  // namespace hookd
