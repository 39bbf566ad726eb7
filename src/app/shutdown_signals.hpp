// ShutdownSignals: how `hookd serve` learns it should stop. The constructor blocks SIGINT
// and SIGTERM in the calling thread, so every thread started afterwards inherits the mask
// and the signals stay pending until wait() takes them with sigwait() — no async handler,
// no flag polled with sleeps. It also ignores SIGPIPE (a peer closing a socket must not kill
// the daemon; the HTTP server and client see EPIPE as an error value) and SIGXFSZ (a write
// beyond a file size limit fails with EFBIG, as a full disk fails with ENOSPC).
// Thread-safety: construct in main() before any other thread exists; wait() from one thread.
#pragma once

#include <csignal>

namespace hookd::app {

class ShutdownSignals {
 public:
  ShutdownSignals();
  ~ShutdownSignals();  // restores the previous signal mask of the calling thread
  ShutdownSignals(const ShutdownSignals&) = delete;
  ShutdownSignals& operator=(const ShutdownSignals&) = delete;

  // Blocks until SIGINT or SIGTERM arrives; returns the signal number.
  int wait();

 private:
  sigset_t set_{};
  sigset_t previous_{};
};

}  // namespace hookd::app
