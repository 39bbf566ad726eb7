#include "app/shutdown_signals.hpp"

#include <pthread.h>

#include <cerrno>

namespace hookd::app {

ShutdownSignals::ShutdownSignals() {
  sigemptyset(&set_);
  sigaddset(&set_, SIGINT);
  sigaddset(&set_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  std::signal(SIGPIPE, SIG_IGN);
  // A file size limit (ulimit -f, LimitFSIZE=) must fail writes like a full disk does (the
  // store answers unavailable: 503 and not ready) rather than kill the daemon.
  std::signal(SIGXFSZ, SIG_IGN);
}

ShutdownSignals::~ShutdownSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

int ShutdownSignals::wait() {
  for (;;) {
    int signal_number = 0;
    if (sigwait(&set_, &signal_number) == 0) return signal_number;
    // sigwait only fails with EINVAL for a bad set, which cannot happen here; loop anyway.
  }
}

}  // namespace hookd::app
