// hookd_bench_inbound_loadgen: the sending end of the inbound benchmark (bench/run_inbound.sh).
// Pre-renders N signed Standard Webhooks requests (1 KiB JSON bodies, a fraction of them
// repeating an earlier event id = duplicates), then sends them over C keep-alive connections
// (one blocking thread each, spread round-robin over the --port values: several nodes),
// closed loop (as fast as answers come) or open loop (--rate: latency counted from the
// scheduled send time, so a slow server is charged for the delay).
// Prints a JSON summary: counts, statuses, ok/s, latency p50/p99/max.
#include <CLI/CLI.hpp>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "hookd/signing.hpp"

namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  std::vector<int> ports;  // connection c goes to ports[c % size] (several nodes)
  std::string target = "/in/bench";
  std::string secret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
  std::string id_prefix = "evt";
  int connections = 32;
  double rate = 0;
  double duration_s = 10;
  std::uint64_t requests = 20000;
  double duplicates = 0;
  std::size_t body_size = 1024;
  std::string out;
};

std::vector<std::string> render_requests(const Options& o) {
  auto signer = hookd::Signer::create(hookd::SchemeOptions{}, std::vector<std::string>{o.secret});
  if (!signer) throw std::runtime_error(signer.error().message);
  const auto unique = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(static_cast<double>(o.requests) * (1.0 - o.duplicates)));
  const std::int64_t now = std::time(nullptr);
  std::vector<std::string> out;
  out.reserve(o.requests);
  for (std::uint64_t i = 0; i < o.requests; ++i) {
    const auto n = i % unique;  // i >= unique: a duplicate of an earlier event
    const std::string id = o.id_prefix + "_" + std::to_string(n);
    std::string body =
        R"({"type":"order.paid","data":{"order_id":")" + std::to_string(n) + R"(","pad":")";
    body += std::string(o.body_size > body.size() + 4 ? o.body_size - body.size() - 4 : 0, 'x');
    body += R"("}})";
    std::string req = "POST " + o.target + " HTTP/1.1\r\nHost: " + o.host +
                      "\r\nContent-Type: application/json\r\n";
    for (const auto& h : signer->sign({id, now, body})) req += h.name + ": " + h.value + "\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    out.push_back(std::move(req));
  }
  return out;
}

struct Shared {
  std::atomic<std::uint64_t> next{0};
  std::mutex mu;
  std::vector<std::int64_t> latencies_us;
  std::map<int, std::uint64_t> statuses;
  std::uint64_t errors = 0;
};

void run_connection(const Options& o, int port, const std::vector<std::string>& requests,
                    Shared& shared, Clock::time_point start, Clock::time_point end) {
  asio::io_context io;
  asio::ip::tcp::socket socket(io);
  const asio::ip::tcp::endpoint endpoint(asio::ip::make_address(o.host),
                                         static_cast<unsigned short>(port));
  std::vector<std::int64_t> latencies;
  std::map<int, std::uint64_t> statuses;
  std::uint64_t errors = 0;
  boost::beast::flat_buffer buffer;
  for (;;) {
    const auto i = shared.next++;
    if (i >= requests.size()) break;
    auto scheduled = Clock::now();
    if (o.rate > 0) {
      scheduled = start + std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 * i / o.rate));
      std::this_thread::sleep_until(scheduled);
    }
    if (Clock::now() >= end) break;
    boost::system::error_code ec;
    if (!socket.is_open()) {
      socket.connect(endpoint, ec);
      if (ec) {
        ++errors;
        socket.close();
        continue;
      }
      socket.set_option(asio::ip::tcp::no_delay(true));
      buffer.clear();
    }
    asio::write(socket, asio::buffer(requests[i]), ec);
    http::response<http::string_body> response;
    if (!ec) http::read(socket, buffer, response, ec);
    if (ec) {
      ++errors;
      socket.close(ec);
      continue;
    }
    latencies.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - scheduled).count());
    ++statuses[static_cast<int>(response.result_int())];
    if (!response.keep_alive()) socket.close(ec);
  }
  std::lock_guard lock(shared.mu);
  shared.latencies_us.insert(shared.latencies_us.end(), latencies.begin(), latencies.end());
  for (const auto& [s, n] : statuses) shared.statuses[s] += n;
  shared.errors += errors;
}

std::int64_t percentile(std::vector<std::int64_t>& v, double p) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"signed Standard Webhooks load for hookd's /in/<source>"};
  app.add_option("--host", o.host);
  app.add_option("--port", o.ports, "repeat to spread the connections over several nodes")
      ->required();
  app.add_option("--target", o.target, "request target, e.g. /in/bench");
  app.add_option("--secret", o.secret, "the source's whsec_ secret");
  app.add_option("--id-prefix", o.id_prefix, "event ids are <prefix>_<n>");
  app.add_option("--connections", o.connections);
  app.add_option("--rate", o.rate, "requests/s (open loop); 0 = closed loop");
  app.add_option("--duration", o.duration_s, "seconds at most");
  app.add_option("--requests", o.requests, "requests at most (pre-signed)");
  app.add_option("--duplicates", o.duplicates, "fraction of requests repeating an event id")
      ->check(CLI::Range(0.0, 0.99));
  app.add_option("--body-size", o.body_size);
  app.add_option("--out", o.out, "also write the JSON summary here");
  CLI11_PARSE(app, argc, argv);

  const auto requests = render_requests(o);
  Shared shared;
  const auto start = Clock::now();
  const auto end =
      start + std::chrono::milliseconds(static_cast<std::int64_t>(o.duration_s * 1000));
  std::vector<std::thread> threads;
  for (int c = 0; c < o.connections; ++c) {
    const int port = o.ports[static_cast<std::size_t>(c) % o.ports.size()];
    threads.emplace_back([&, port] { run_connection(o, port, requests, shared, start, end); });
  }
  for (auto& t : threads) t.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  std::uint64_t ok = 0;
  nlohmann::json statuses = nlohmann::json::object();
  for (const auto& [s, n] : shared.statuses) {
    statuses[std::to_string(s)] = n;
    if (s >= 200 && s < 300) ok += n;
  }
  auto& lat = shared.latencies_us;
  const nlohmann::json summary = {
      {"mode", o.rate > 0 ? "open" : "closed"},
      {"offered_rate", o.rate},
      {"connections", o.connections},
      {"ports", o.ports.size()},
      {"duplicates_fraction", o.duplicates},
      {"completed", lat.size()},
      {"ok", ok},
      {"errors", shared.errors},
      {"statuses", statuses},
      {"elapsed_s", elapsed},
      {"ok_per_s", elapsed > 0 ? static_cast<double>(ok) / elapsed : 0},
      {"latency",
       {{"p50_us", percentile(lat, 0.50)},
        {"p99_us", percentile(lat, 0.99)},
        {"max_us", lat.empty() ? 0 : *std::max_element(lat.begin(), lat.end())}}}};
  std::cout << summary.dump(2) << '\n';
  if (!o.out.empty()) std::ofstream(o.out) << summary.dump() << '\n';
  return 0;
}
