#include "loadgen_client.hpp"

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <thread>

#include "bench_common.hpp"

namespace hookd::bench {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

BodyTemplate::BodyTemplate(const std::string& text) {
  std::size_t from = 0;
  while (from < text.size()) {
    const auto open = text.find("{{", from);
    if (open == std::string::npos) {
      parts_.emplace_back(Part::kText, text.substr(from));
      break;
    }
    if (open > from) parts_.emplace_back(Part::kText, text.substr(from, open - from));
    if (text.compare(open, 10, "{{now_ns}}") == 0) {
      parts_.emplace_back(Part::kNowNs, std::string());
      from = open + 10;
    } else if (text.compare(open, 7, "{{seq}}") == 0) {
      parts_.emplace_back(Part::kSeq, std::string());
      from = open + 7;
    } else {
      parts_.emplace_back(Part::kText, "{{");
      from = open + 2;
    }
  }
}

std::string BodyTemplate::render(std::int64_t now_ns, std::uint64_t seq) const {
  std::string out;
  out.reserve(1280);
  for (const auto& [part, text] : parts_) {
    if (part == Part::kText) out += text;
    if (part == Part::kNowNs) out += std::to_string(now_ns);
    if (part == Part::kSeq) out += std::to_string(seq);
  }
  return out;
}

namespace {

// What every connection shares: the plan (read-only) and the next request index.
struct Plan {
  const LoadOptions& options;
  BodyTemplate body;
  tcp::endpoint endpoint;
  Clock::time_point start;
  std::int64_t start_unix_ns;
  Clock::time_point deadline;
  std::chrono::nanoseconds period{0};
  std::atomic<std::uint64_t> next_index{0};

  std::int64_t unix_ns_at(Clock::time_point t) const {
    return start_unix_ns + std::chrono::duration_cast<std::chrono::nanoseconds>(t - start).count();
  }
};

// One io_context and the connections it runs; its result needs no locking.
struct Worker {
  asio::io_context io{1};
  asio::steady_timer hard_stop{io};
  LoadResult result;
  Clock::time_point last_response{};
  int active = 0;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Plan& plan, Worker& worker)
      : plan_(plan), worker_(worker), socket_(worker.io), timer_(worker.io) {
    const auto& o = plan.options;
    request_.method(http::string_to_verb(o.method));
    request_.target(o.target);
    request_.version(11);
    request_.set(http::field::host, o.host + ":" + std::to_string(o.port));
    for (const auto& [name, value] : o.headers) request_.set(name, value);
    request_.keep_alive(true);
  }

  void start() {
    ++worker_.active;
    connect();
  }
  bool in_flight() const { return in_flight_; }

 private:
  void connect() {
    beast::error_code ignored;
    socket_.close(ignored);
    socket_.async_connect(plan_.endpoint, [self = shared_from_this()](beast::error_code ec) {
      if (!ec) return self->next();
      ++self->worker_.result.errors;
      self->retry_later();
    });
  }

  void retry_later() {
    if (Clock::now() >= plan_.deadline) return finish();
    timer_.expires_after(std::chrono::milliseconds(20));
    timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (!ec) self->connect();
    });
  }

  void next() {
    const auto now = Clock::now();
    if (now >= plan_.deadline) return finish();
    const std::uint64_t index = plan_.next_index.fetch_add(1, std::memory_order_relaxed);
    if (index >= plan_.options.max_requests) return finish();
    const Clock::time_point scheduled =
        plan_.options.rate > 0 ? plan_.start + plan_.period * static_cast<std::int64_t>(index)
                               : now;
    if (scheduled >= plan_.deadline) return finish();
    if (scheduled <= now) return send(index, scheduled);
    timer_.expires_at(scheduled);
    timer_.async_wait([self = shared_from_this(), index, scheduled](beast::error_code ec) {
      if (!ec) self->send(index, scheduled);
    });
  }

  void send(std::uint64_t index, Clock::time_point scheduled) {
    request_.body() = plan_.body.render(plan_.unix_ns_at(scheduled), index);
    if (plan_.options.idempotency_key) {
      // Unique per run and request: the start time keeps runs against one database apart.
      request_.set("Idempotency-Key",
                   "lg-" + std::to_string(plan_.start_unix_ns) + "-" + std::to_string(index));
    }
    request_.prepare_payload();
    scheduled_ = scheduled;
    in_flight_ = true;
    ++worker_.result.sent;
    http::async_write(socket_, request_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return self->on_error();
                        self->read();
                      });
  }

  void read() {
    response_ = {};
    http::async_read(socket_, buffer_, response_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (ec) return self->on_error();
                       self->on_response();
                     });
  }

  void on_response() {
    const auto now = Clock::now();
    in_flight_ = false;
    auto& r = worker_.result;
    ++r.completed;
    const int status = response_.result_int();
    ++r.statuses[status];
    if (status >= 200 && status < 300) ++r.ok;
    r.latency.record(static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - scheduled_).count()));
    worker_.last_response = std::max(worker_.last_response, now);
    if (!response_.keep_alive()) return connect();
    next();
  }

  void on_error() {
    in_flight_ = false;
    ++worker_.result.errors;
    buffer_.clear();
    retry_later();
  }

  void finish() {
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    if (--worker_.active == 0) worker_.hard_stop.cancel();
  }

  Plan& plan_;
  Worker& worker_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
  Clock::time_point scheduled_{};
  bool in_flight_ = false;
};

tcp::endpoint resolve(const LoadOptions& options) {
  asio::io_context io;
  tcp::resolver resolver(io);
  return *resolver.resolve(options.host, std::to_string(options.port)).begin();
}

}  // namespace

LoadResult run_load(const LoadOptions& options) {
  Plan plan{.options = options,
            .body = BodyTemplate(options.body_template),
            .endpoint = resolve(options),
            .start = Clock::now(),
            .start_unix_ns = unix_now_ns(),
            .deadline = {}};
  plan.deadline = plan.start + options.duration;
  if (options.rate > 0) plan.period = std::chrono::nanoseconds(std::llround(1e9 / options.rate));

  const int thread_count = std::max(1, std::min(options.threads, options.connections));
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::vector<std::shared_ptr<Connection>>> connections(thread_count);
  for (int t = 0; t < thread_count; ++t) workers.push_back(std::make_unique<Worker>());
  for (int c = 0; c < options.connections; ++c) {
    auto& worker = *workers[c % thread_count];
    connections[c % thread_count].push_back(std::make_shared<Connection>(plan, worker));
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t) {
    threads.emplace_back([&, t] {
      auto& worker = *workers[t];
      worker.hard_stop.expires_at(plan.deadline + options.drain_grace);
      worker.hard_stop.async_wait([&worker](boost::system::error_code ec) {
        if (!ec) worker.io.stop();  // responses that never came: counted as unfinished
      });
      for (auto& connection : connections[t]) connection->start();
      worker.io.run();
    });
  }
  for (auto& thread : threads) thread.join();

  LoadResult total;
  Clock::time_point last = plan.start;
  for (int t = 0; t < thread_count; ++t) {
    const auto& r = workers[t]->result;
    total.sent += r.sent;
    total.completed += r.completed;
    total.ok += r.ok;
    total.errors += r.errors;
    for (const auto& [status, count] : r.statuses) total.statuses[status] += count;
    total.latency.merge(r.latency);
    last = std::max(last, workers[t]->last_response);
    for (const auto& connection : connections[t]) total.unfinished += connection->in_flight();
  }
  total.elapsed_s = std::chrono::duration<double>(last - plan.start).count();
  return total;
}

}  // namespace hookd::bench
