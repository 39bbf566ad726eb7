// Checkpointer: moves SQLite's WAL checkpoints off the commit path. With automatic
// checkpoints, the commit that crosses wal_autocheckpoint pages copies the WAL into the
// database and fsyncs it inside that caller's transaction (a latency spike for whichever
// publish or dispatcher round it hits). Instead the writer runs with wal_autocheckpoint=0
// and this thread, on its own connection, runs a PASSIVE checkpoint every interval (it
// never blocks the writer or readers), and a RESTART one (which waits for the writer
// briefly) only if the WAL has grown past `restart_frames` anyway.
// Thread-safety: construct and destroy from one thread; the work runs on its own thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "store/sqlite/connection.hpp"

namespace hookd::store::sqlite {

class Checkpointer {
 public:
  Checkpointer(std::unique_ptr<Connection> connection, std::chrono::milliseconds interval,
               int restart_frames = 65'536);
  ~Checkpointer();  // stops and joins
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // Runs one checkpoint now (also used by tests); returns the WAL size in frames after it.
  int checkpoint_once();

 private:
  void run();

  std::unique_ptr<Connection> connection_;
  const std::chrono::milliseconds interval_;
  const int restart_frames_;
  std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace hookd::store::sqlite
