// HttpClient: a thread driving one libcurl multi handle (see http_client.hpp).
// send() builds the easy handle on the caller's thread, queues it and wakes the loop
// (curl_multi_wakeup); the loop adds queued transfers, runs curl_multi_perform, completes
// finished ones and sleeps in curl_multi_poll (which also honours libcurl's timers).
#include "net/http_client.hpp"
#include "hookd/threads.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "net/http_client_transfer.hpp"

namespace hookd::net {
namespace {

void init_libcurl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

class HttpClient::Impl {
 public:
  explicit Impl(HttpClientOptions options) : options_(std::move(options)) {
    init_libcurl_once();
    multi_ = curl_multi_init();
    assert(multi_ != nullptr);
    curl_multi_setopt(multi_, CURLMOPT_MAX_HOST_CONNECTIONS, options_.max_host_connections);
    curl_multi_setopt(multi_, CURLMOPT_MAX_TOTAL_CONNECTIONS, options_.max_total_connections);
    curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, options_.max_idle_connections);
    curl_multi_setopt(multi_, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_NOTHING));
  }

  ~Impl() {
    stop();
    curl_multi_cleanup(multi_);
  }

  void start() {
    std::lock_guard lock(mutex_);
    if (started_) return;  // once only; a stopped client stays stopped
    started_ = true;
    running_ = true;
    thread_ = std::thread([this] { run(); });
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      if (!running_) return;
      running_ = false;
    }
    curl_multi_wakeup(multi_);
    if (thread_.joinable()) thread_.join();
  }

  void send(OutboundRequest request, Done done) {
    in_flight_.fetch_add(1);
    auto counted = [this, done = std::move(done)](AttemptResult result) {
      in_flight_.fetch_sub(1);
      done(std::move(result));
    };
    auto transfer = std::make_unique<Transfer>(std::move(request), std::move(counted), options_);
    {
      std::lock_guard lock(mutex_);
      if (running_) {
        queue_.push_back(std::move(transfer));
        transfer = nullptr;
      }
    }
    if (transfer) {
      transfer->cancel();
      return;
    }
    // From a `done` on the client's thread the loop picks it up before it sleeps again.
    if (std::this_thread::get_id() != loop_thread_id_) curl_multi_wakeup(multi_);
  }

  std::size_t in_flight() const { return in_flight_.load(); }

 private:
  bool queue_has_work() {
    std::lock_guard lock(mutex_);
    return !queue_.empty() || !running_;
  }

  void run() {
    name_this_thread(options_.thread_name);
    lower_this_thread_priority(options_.nice);
    loop_thread_id_ = std::this_thread::get_id();
    while (true) {
      std::deque<std::unique_ptr<Transfer>> incoming;
      bool running;
      {
        std::lock_guard lock(mutex_);
        incoming.swap(queue_);
        running = running_;
      }
      if (!running) {
        for (auto& transfer : incoming) transfer->cancel();
        break;
      }
      for (auto& transfer : incoming) waiting_.push_back(std::move(transfer));
      admit_waiting();
      int still_running = 0;
      curl_multi_perform(multi_, &still_running);
      complete_finished();
      admit_waiting();
      expire_overdue();
      // libcurl shortens the wait to its own timers; ours is the expiry scan.
      int wait_ms =
          active_.empty() && waiting_.empty() ? 1000 : static_cast<int>(kExpiryScan.count());
      if (queue_has_work()) wait_ms = 0;
      curl_multi_poll(multi_, nullptr, 0, wait_ms, nullptr);
    }
    cancel_active();
  }

  // Hands waiting transfers to libcurl, at most max_active_transfers at once: libcurl's
  // work per loop grows with the number of transfers it holds, also idle pending ones.
  void admit_waiting() {
    auto cap = static_cast<std::size_t>(std::max<long>(1, options_.max_active_transfers));
    while (!waiting_.empty() && active_.size() < cap) {
      auto transfer = std::move(waiting_.front());
      waiting_.pop_front();
      add(std::move(transfer));
    }
  }

  void add(std::unique_ptr<Transfer> transfer) {
    if (!transfer->ready()) {
      transfer->finish(CURLE_OK);  // reports the invalid request
      return;
    }
    if (curl_multi_add_handle(multi_, transfer->easy()) != CURLM_OK) {
      transfer->finish(CURLE_FAILED_INIT);
      return;
    }
    CURL* easy = transfer->easy();
    active_.emplace(easy, std::move(transfer));
  }

  void complete_finished() {
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi_, &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      CURL* easy = message->easy_handle;
      CURLcode code = message->data.result;
      auto node = active_.extract(easy);
      assert(!node.empty());
      curl_multi_remove_handle(multi_, easy);
      node.mapped()->finish(code);
    }
  }

  // libcurl (7.88) never times out a transfer waiting for a free pool connection, so the
  // total timeout of those is enforced here. Transfers on the wire are libcurl's to time
  // out; a small grace keeps us from racing it.
  void expire_overdue() {
    auto now = std::chrono::steady_clock::now();
    if (now < next_expiry_scan_) return;
    next_expiry_scan_ = now + kExpiryScan;
    for (auto it = active_.begin(); it != active_.end();) {
      Transfer& transfer = *it->second;
      if (transfer.waiting_for_connection() && now >= transfer.deadline() + kExpiryGrace) {
        curl_multi_remove_handle(multi_, it->first);
        transfer.expire();
        it = active_.erase(it);
      } else {
        ++it;
      }
    }
    std::erase_if(waiting_, [&](std::unique_ptr<Transfer>& transfer) {
      if (now < transfer->deadline()) return false;
      transfer->expire();
      return true;
    });
  }

  void cancel_active() {
    for (auto& [easy, transfer] : active_) {
      curl_multi_remove_handle(multi_, easy);
      transfer->cancel();
    }
    active_.clear();
    for (auto& transfer : waiting_) transfer->cancel();
    waiting_.clear();
  }

  static constexpr std::chrono::milliseconds kExpiryScan{50};
  static constexpr std::chrono::milliseconds kExpiryGrace{20};

  HttpClientOptions options_;
  std::chrono::steady_clock::time_point next_expiry_scan_{};
  CURLM* multi_ = nullptr;
  std::thread thread_;
  std::atomic<std::thread::id> loop_thread_id_{};
  std::mutex mutex_;
  bool started_ = false;
  bool running_ = false;
  std::deque<std::unique_ptr<Transfer>> queue_;                  // guarded by mutex_
  std::deque<std::unique_ptr<Transfer>> waiting_;                // client thread only; FIFO
  std::unordered_map<CURL*, std::unique_ptr<Transfer>> active_;  // client thread only
  std::atomic<std::size_t> in_flight_{0};
};

HttpClient::HttpClient(HttpClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}
HttpClient::~HttpClient() = default;
void HttpClient::start() { impl_->start(); }
void HttpClient::stop() { impl_->stop(); }
void HttpClient::send(OutboundRequest request, Done done) {
  impl_->send(std::move(request), std::move(done));
}
std::size_t HttpClient::in_flight() const { return impl_->in_flight(); }

}  // namespace hookd::net
