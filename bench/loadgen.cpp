// hookd_bench_loadgen: the sending end of the end-to-end benchmark (docs/benchmarks.md).
// Sends one request template over N keep-alive connections, closed loop (max rate) or open
// loop (--rate), for at most --duration seconds and --max-requests requests, and prints a
// JSON summary: counts, status codes, rate and acknowledgement latency percentiles. Only
// loopback targets are accepted. --idempotency-key gives every request a key of its own (the
// idempotency gateway's benchmark, bench/run_proxy.sh, and keyed publishes).
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <sstream>

#include "bench_common.hpp"
#include "loadgen_client.hpp"

namespace hookd::bench {
namespace {

struct Options {
  std::string url = "http://127.0.0.1:8080/";
  std::string method = "POST";
  std::vector<std::string> headers;
  std::string body;
  std::string body_file;
  std::size_t body_size = 1024;
  std::string event_type;
  int connections = 16;
  int threads = 1;
  double rate = 0;
  double duration_s = 10;
  std::uint64_t max_requests = UINT64_MAX;
  double grace_s = 2;
  std::string out;
  bool idempotency_key = false;
};

// A JSON body of about `size` bytes once rendered, carrying the send time for the sink:
// {"sentAtNs":<ns>,"seq":<n>,"pad":"xx…"}, wrapped as a hookd message when `event_type` is
// set: {"eventType":"…","payload":{…}}.
std::string default_body(std::size_t size, const std::string& event_type) {
  std::string head = R"({"sentAtNs":{{now_ns}},"seq":{{seq}},"pad":")";
  std::string tail = R"("})";
  if (!event_type.empty()) {
    head = R"({"eventType":")" + event_type + R"(","payload":)" + head;
    tail += "}";
  }
  // Rendered, {{now_ns}} is 19 digits and {{seq}} about 6.
  const std::size_t fixed = head.size() - 10 + 19 - 7 + 6 + tail.size();
  return head + std::string(size > fixed ? size - fixed : 0, 'x') + tail;
}

// Benchmark traffic stays on this machine: the target must be a loopback address.
bool is_loopback_host(const std::string& host) {
  return host.starts_with("127.") || host == "localhost" || host == "::1" || host == "[::1]";
}

bool parse_url(const std::string& url, LoadOptions& load) {
  constexpr std::string_view kScheme = "http://";
  if (!url.starts_with(kScheme)) return false;
  const std::string rest = url.substr(kScheme.size());
  const auto slash = rest.find('/');
  const std::string authority = rest.substr(0, slash);
  load.target = slash == std::string::npos ? "/" : rest.substr(slash);
  const auto colon = authority.rfind(':');
  if (colon == std::string::npos) return false;
  load.host = authority.substr(0, colon);
  load.port = static_cast<std::uint16_t>(std::stoi(authority.substr(colon + 1)));
  return !load.host.empty() && load.port != 0;
}

nlohmann::json summary(const LoadOptions& load, const LoadResult& r) {
  nlohmann::json statuses = nlohmann::json::object();
  for (const auto& [status, count] : r.statuses) statuses[std::to_string(status)] = count;
  const double elapsed = r.elapsed_s > 0 ? r.elapsed_s : 1e-9;
  // Open loop: requests that were due before the end but never sent (server too slow).
  std::uint64_t behind = 0;
  if (load.rate > 0) {
    const auto due = std::min<std::uint64_t>(
        load.max_requests,
        static_cast<std::uint64_t>(std::ceil(load.rate * load.duration.count() / 1000.0)));
    behind = due > r.sent ? due - r.sent : 0;
  }
  return {{"mode", load.rate > 0 ? "open" : "closed"},
          {"offered_rate", load.rate},
          {"connections", load.connections},
          {"sent", r.sent},
          {"completed", r.completed},
          {"ok", r.ok},
          {"errors", r.errors},
          {"unfinished", r.unfinished},
          {"behind_schedule", behind},
          {"statuses", statuses},
          {"elapsed_s", round_to(r.elapsed_s, 3)},
          {"completed_per_s", round_to(static_cast<double>(r.completed) / elapsed, 1)},
          {"ok_per_s", round_to(static_cast<double>(r.ok) / elapsed, 1)},
          {"latency", latency_json(r.latency)},
          {"cpu_s", round_to(process_cpu_seconds(), 3)}};
}

int run(const Options& options) {
  LoadOptions load;
  if (!parse_url(options.url, load)) {
    std::cerr << "loadgen: --url must look like http://host:port/path\n";
    return 2;
  }
  if (!is_loopback_host(load.host)) {
    std::cerr << "loadgen: --url must name a loopback host (127.x.x.x, localhost, [::1])\n";
    return 2;
  }
  load.method = options.method;
  load.idempotency_key = options.idempotency_key;
  for (const auto& header : options.headers) {
    const auto colon = header.find(':');
    if (colon == std::string::npos) {
      std::cerr << "loadgen: a header must look like 'Name: value'\n";
      return 2;
    }
    const auto value_at = header.find_first_not_of(' ', colon + 1);
    load.headers.emplace_back(header.substr(0, colon),
                              value_at == std::string::npos ? "" : header.substr(value_at));
  }
  if (!options.body_file.empty()) {
    std::ifstream in(options.body_file);
    std::stringstream text;
    text << in.rdbuf();
    load.body_template = text.str();
  } else {
    load.body_template =
        options.body.empty() ? default_body(options.body_size, options.event_type) : options.body;
  }
  load.connections = options.connections;
  load.threads = options.threads;
  load.rate = options.rate;
  load.duration = std::chrono::milliseconds(std::llround(options.duration_s * 1000));
  load.max_requests = options.max_requests;
  load.drain_grace = std::chrono::milliseconds(std::llround(options.grace_s * 1000));

  const LoadResult result = run_load(load);
  const std::string text = summary(load, result).dump(2) + "\n";
  std::cout << text << std::flush;
  if (!options.out.empty() && !write_file_atomically(options.out, text)) {
    std::cerr << "loadgen: cannot write " << options.out << "\n";
    return 1;
  }
  return result.completed > 0 ? 0 : 1;
}

}  // namespace
}  // namespace hookd::bench

int main(int argc, char** argv) {
  hookd::bench::Options o;
  CLI::App app{"hookd_bench_loadgen: HTTP load generator for hookd's end-to-end benchmark"};
  app.add_option("--url", o.url, "http://host:port/path")->required();
  app.add_option("--method", o.method, "request method");
  app.add_option("-H,--header", o.headers, "'Name: value' (repeatable)");
  app.add_option("--body", o.body, "body template ({{now_ns}}, {{seq}} are filled per request)");
  app.add_option("--body-file", o.body_file, "read the body template from a file");
  app.add_option("--body-size", o.body_size, "size of the default JSON body");
  app.add_option("--event-type", o.event_type, "wrap the default body as a hookd message");
  app.add_option("--connections", o.connections, "keep-alive connections")
      ->check(CLI::Range(1, 10000));
  app.add_option("--threads", o.threads, "client threads")->check(CLI::Range(1, 64));
  app.add_option("--rate", o.rate, "offered requests/s (open loop); 0 = as fast as possible")
      ->check(CLI::Range(0.0, 1e7));
  app.add_option("--duration", o.duration_s, "seconds (always stops then)")
      ->check(CLI::Range(0.01, 3600.0));
  app.add_option("--max-requests", o.max_requests, "stop after this many requests");
  app.add_option("--grace", o.grace_s, "seconds to wait for in-flight responses at the end")
      ->check(CLI::Range(0.0, 60.0));
  app.add_option("--out", o.out, "also write the JSON summary here");
  app.add_flag("--idempotency-key", o.idempotency_key,
               "send a fresh Idempotency-Key with every request (like the Svix SDK)");
  CLI11_PARSE(app, argc, argv);
  return hookd::bench::run(o);
}
