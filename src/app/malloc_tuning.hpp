// Process-wide allocator tuning for `hookd serve`: keep freed heap memory in the process
// instead of handing it back to the kernel after every free.
// Why: SQLite builds a temporary b-tree (with its own ~100 KiB page-cache bulk) for every
// statement with RETURNING or an IN (subquery); with glibc's default trim threshold each
// free of it shrank the thread's heap (madvise + TLB shootdown) and the next statement took
// the page faults again — a third of hookd's CPU under inbound load (docs/benchmarks.md).
// The release binary allocates with jemalloc (CMake option HOOKD_JEMALLOC), which returns
// freed pages only after a decay of seconds and ignores these glibc settings; they matter for
// builds on glibc malloc (sanitizer builds, HOOKD_JEMALLOC=OFF).
// Thread-safety: call once, early, before the server's threads start.
#pragma once

namespace hookd::app {

void keep_freed_memory();

}  // namespace hookd::app
