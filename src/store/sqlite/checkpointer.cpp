#include "store/sqlite/checkpointer.hpp"
#include "hookd/threads.hpp"

#include <sqlite3.h>

namespace hookd::store::sqlite {

Checkpointer::Checkpointer(std::unique_ptr<Connection> connection,
                           std::chrono::milliseconds interval, int restart_frames)
    : connection_(std::move(connection)), interval_(interval), restart_frames_(restart_frames) {
  thread_ = std::thread([this] { run(); });
}

Checkpointer::~Checkpointer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_one();
  thread_.join();
}

int Checkpointer::checkpoint_once() {
  int wal_frames = 0;
  int copied = 0;
  sqlite3* db = connection_->handle();
  // Failures (busy, I/O) are harmless here: the WAL keeps the data and the next try copies it.
  sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &wal_frames, &copied);
  if (wal_frames > restart_frames_) {
    sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_RESTART, &wal_frames, &copied);
  }
  return wal_frames;
}

void Checkpointer::run() {
  name_this_thread("hookd-ckpt");
  std::unique_lock lock(mutex_);
  while (!stop_cv_.wait_for(lock, interval_, [this] { return stopping_; })) {
    lock.unlock();
    checkpoint_once();
    lock.lock();
  }
}

}  // namespace hookd::store::sqlite
