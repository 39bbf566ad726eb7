// hookd_bench_sink: the receiving end of the end-to-end benchmark (docs/benchmarks.md).
// A fast HTTP/1.1 server on loopback that answers every request with a configured status
// (503 while "down"; --response-bytes gives the answer a JSON body), counts requests,
// deduplicates deliveries by (path, `webhook-id`) and, when the body carries
// `"sentAtNs":<unix ns>`, records publish→delivered latency.
//
// Control: GET /stats → JSON summary; POST /control/down, /control/up, /control/reset;
// SIGUSR1 = down, SIGUSR2 = up; SIGTERM/SIGINT (or --timeout) print the summary and exit.
#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>
#include <unordered_set>

#include "bench_common.hpp"
#include "net/http_server.hpp"

namespace hookd::bench {
namespace {

// Finds `"sentAtNs":<digits>` in a JSON body without parsing the whole document.
std::optional<std::int64_t> find_sent_at_ns(std::string_view body) {
  constexpr std::string_view kKey = "\"sentAtNs\"";
  const auto at = body.find(kKey);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t i = at + kKey.size();
  while (i < body.size() && (body[i] == ' ' || body[i] == ':')) ++i;
  std::int64_t value = 0;
  std::size_t digits = 0;
  for (; i < body.size() && body[i] >= '0' && body[i] <= '9'; ++i, ++digits) {
    value = value * 10 + (body[i] - '0');
  }
  if (digits == 0) return std::nullopt;
  return value;
}

class SinkState {
 public:
  explicit SinkState(int ok_status) : ok_status_(ok_status) {}

  // Records one delivery request and returns the status to answer.
  int on_request(const net::HttpRequest& request) {
    const std::int64_t now = unix_now_ns();
    std::lock_guard lock(mutex_);
    ++c_.requests;
    if (down_) {
      ++c_.rejected;
      return 503;
    }
    ++c_.accepted;
    if (c_.first_accepted_ns == 0) c_.first_accepted_ns = now;
    c_.last_accepted_ns = now;
    if (c_.up_at_ns != 0) ++c_.accepted_since_up;
    // Deduplicated per endpoint: one message goes to several endpoints with the same id.
    if (auto id = request.headers.get("webhook-id")) {
      if (!c_.ids.emplace(std::string(request.path()) + ' ' + std::string(*id)).second) {
        ++c_.duplicates;
      }
    } else {
      ++c_.without_id;
    }
    if (auto sent = find_sent_at_ns(request.body); sent && *sent <= now) {
      c_.latency.record(static_cast<std::uint64_t>(now - *sent));
    }
    return ok_status_;
  }

  void set_down(bool down) {
    std::lock_guard lock(mutex_);
    if (down_ && !down) c_.up_at_ns = unix_now_ns();
    down_ = down;
  }

  // Zeroes the counters (between scenarios); the down/up state is kept.
  void reset() {
    std::lock_guard lock(mutex_);
    c_ = Counters{};
  }

  nlohmann::json stats() const {
    std::lock_guard lock(mutex_);
    auto per_s = [](std::uint64_t n, std::int64_t from, std::int64_t to) {
      return to > from ? round_to(static_cast<double>(n) * 1e9 / (to - from), 1) : 0.0;
    };
    return {{"requests", c_.requests},
            {"accepted", c_.accepted},
            {"rejected_while_down", c_.rejected},
            {"down", down_},
            {"unique_deliveries", c_.ids.size()},
            {"duplicates", c_.duplicates},
            {"without_id", c_.without_id},
            {"first_accepted_unix_ns", c_.first_accepted_ns},
            {"last_accepted_unix_ns", c_.last_accepted_ns},
            {"accepted_per_s", per_s(c_.accepted, c_.first_accepted_ns, c_.last_accepted_ns)},
            {"up_at_unix_ns", c_.up_at_ns},
            {"accepted_since_up", c_.accepted_since_up},
            {"drain_per_s", per_s(c_.accepted_since_up, c_.up_at_ns, c_.last_accepted_ns)},
            {"sent_to_received", latency_json(c_.latency)},
            {"cpu_s", round_to(process_cpu_seconds(), 3)}};
  }

 private:
  const int ok_status_;
  mutable std::mutex mutex_;
  bool down_ = false;
  struct Counters {
    std::uint64_t requests = 0, accepted = 0, rejected = 0, duplicates = 0, without_id = 0;
    std::uint64_t accepted_since_up = 0;
    std::int64_t first_accepted_ns = 0, last_accepted_ns = 0, up_at_ns = 0;
    std::unordered_set<std::string> ids;
    LatencyHistogram latency;
  } c_;
};

net::HttpResponse text_response(int status, std::string body, std::string type) {
  net::HttpResponse response;
  response.status = status;
  if (!body.empty()) response.headers.add("Content-Type", std::move(type));
  response.body = std::move(body);
  return response;
}

// A JSON answer body of about `size` bytes ({"ok":true,"pad":"xx…"}), or none for 0.
std::string answer_body(std::size_t size) {
  if (size == 0) return {};
  const std::string head = R"({"ok":true,"pad":")", tail = R"("})";
  return head +
         std::string(size > head.size() + tail.size() ? size - head.size() - tail.size() : 0, 'x') +
         tail;
}

void handle(SinkState& state, const std::string& answer, net::HttpRequest request,
            net::Responder respond) {
  const std::string_view path = request.path();
  if (path.starts_with("/control/") || path == "/stats") {
    if (path == "/control/down") state.set_down(true);
    if (path == "/control/up") state.set_down(false);
    if (path == "/control/reset") state.reset();
    respond(text_response(200, state.stats().dump() + "\n", "application/json"));
    return;
  }
  respond(text_response(state.on_request(request), answer, "application/json"));
}

struct Options {
  std::string listen = "127.0.0.1";
  std::uint16_t port = 0;
  std::string port_file;
  std::string stats_file;
  int status = 200;
  std::size_t response_bytes = 0;
  int threads = 1;
  bool start_down = false;
  int timeout_s = 900;
};

int run(const Options& options) {
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, SIGUSR1, SIGUSR2}) sigaddset(&signals, s);
  // Blocked before the io threads start, so only sigtimedwait() below sees them.
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  SinkState state(options.status);
  if (options.start_down) state.set_down(true);
  net::HttpServerOptions server_options;
  server_options.listen_address = options.listen;
  server_options.port = options.port;
  server_options.io_threads = options.threads;
  server_options.max_connections = 4096;
  const std::string answer = answer_body(options.response_bytes);
  net::HttpServer server(server_options, [&](net::HttpRequest request, net::Responder r) {
    handle(state, answer, std::move(request), std::move(r));
  });
  if (auto started = server.start(); !started) {
    std::cerr << "sink: " << started.error().message << "\n";
    return 1;
  }
  const std::string port = std::to_string(server.local_port());
  std::cerr << "sink: listening on " << options.listen << ":" << port << "\n";
  if (!options.port_file.empty() && !write_file_atomically(options.port_file, port + "\n")) {
    std::cerr << "sink: cannot write " << options.port_file << "\n";
    return 1;
  }

  const timespec timeout{options.timeout_s, 0};
  for (;;) {
    const int signal = sigtimedwait(&signals, nullptr, &timeout);
    if (signal == SIGUSR1) state.set_down(true);
    if (signal == SIGUSR2) state.set_down(false);
    if (signal == SIGINT || signal == SIGTERM) break;
    if (signal < 0 && errno == EAGAIN) {
      std::cerr << "sink: --timeout reached\n";
      break;
    }
  }
  server.stop(std::chrono::milliseconds(500));
  const std::string summary = state.stats().dump(2) + "\n";
  std::cout << summary << std::flush;
  if (!options.stats_file.empty()) write_file_atomically(options.stats_file, summary);
  return 0;
}

}  // namespace
}  // namespace hookd::bench

int main(int argc, char** argv) {
  hookd::bench::Options options;
  CLI::App app{"hookd_bench_sink: HTTP sink for hookd's end-to-end benchmark"};
  app.add_option("--listen", options.listen, "address to bind");
  app.add_option("--port", options.port, "port (0 = any free port)");
  app.add_option("--port-file", options.port_file, "write the bound port here");
  app.add_option("--stats-file", options.stats_file, "write the JSON summary here on exit");
  app.add_option("--status", options.status, "status answered while up")
      ->check(CLI::Range(100, 599));
  app.add_option("--response-bytes", options.response_bytes,
                 "JSON answer body of about this size (0 = empty)")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--threads", options.threads, "io threads")->check(CLI::Range(1, 64));
  app.add_flag("--down", options.start_down, "start down (answer 503 until /control/up)");
  app.add_option("--timeout", options.timeout_s, "exit after this many seconds")
      ->check(CLI::Range(1, 86400));
  CLI11_PARSE(app, argc, argv);
  return hookd::bench::run(options);
}
