#include "app/malloc_tuning.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace hookd::app {

void keep_freed_memory() {
#if defined(__GLIBC__)
  // Setting the trim threshold also freezes glibc's dynamic mmap threshold, so raise that
  // too: blocks up to 4 MiB come from the heap (reused) rather than fresh mmaps.
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}

}  // namespace hookd::app
