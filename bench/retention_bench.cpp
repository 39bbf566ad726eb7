// hookd_bench_retention: retention's benchmark (issue 19: "throughput during a purge of
// 1 million old rows stays within 10 % of normal") and the figures for disk sizing.
// In one process: a real SqliteStore in a temporary FILE (the options `hookd serve` uses by
// default: WAL, synchronous=FULL, 4 readers, background checkpoints). Setup (not measured):
// --old messages of --payload bytes, each delivered to one endpoint with one attempt, dated
// 60 days ago (the store's clock is set back, then forward). Then the same publisher — one
// thread calling publish_batch with batches of --batch messages as fast as the store takes
// them, like the publish group committer under overload — runs in --rounds pairs of --window
// seconds: alone, then beside purge batches run exactly as the purger runs them (500 rows,
// 20 ms pause; the cursor carries over), so drift of the machine hits both halves of a pair;
// then a RetentionPurger pass alone purges the rest. Prints one key=value line per figure:
// publishes/s alone and beside the purge, their ratio (overall, median and worst pair), rows
// purged per second under load and alone, the bytes one delivered message takes on disk, and
// the file size before and after.
// Exit status: 0 ok; 1 the purge left old messages or deleted a young one; 2 setup failed.
// Bounded: --timeout (SIGALRM) over the whole process.
// Thread-safety: the publisher and the purger run on their own threads over the thread-safe
// store; the clock is only set before they start.
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "env/fake_env.hpp"
#include "env/system_env.hpp"
#include "store/id_generator.hpp"
#include "store/retention_purger.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace {

using namespace hookd;
using SteadyClock = std::chrono::steady_clock;
constexpr store::Millis kDay = 86'400'000;

struct Options {
  int old_messages = 1'000'000;
  int payload = 512;
  int batch = 64;
  int rounds = 10;      // alternating windows: alone, beside the purge
  double window_s = 2;  // each window
  int timeout_s = 1800;
  std::string dir;
};

void print(const char* key, double value) { std::printf("retention_%s=%.3f\n", key, value); }
void print(const char* key, long long value) { std::printf("retention_%s=%lld\n", key, value); }

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

int failed(const char* what, const std::string& message, int code) {
  std::fprintf(stderr, "%s: %s\n", what, message.c_str());
  return code;
}

store::NewMessage message_of(const std::string& app_id, const std::string& payload) {
  store::NewMessage m;
  m.app_id = app_id;
  m.event_type = "contract.signed";
  m.payload = payload;
  return m;
}

// `count` messages, each published, claimed and reported delivered with one attempt.
Status fill_delivered(store::Store& s, const std::string& app_id, const std::string& payload,
                      int count) {
  constexpr int kChunk = 500;
  for (int done = 0; done < count; done += kChunk) {
    const int n = std::min(kChunk, count - done);
    std::vector<store::NewMessage> batch(static_cast<std::size_t>(n), message_of(app_id, payload));
    if (auto p = s.publish_batch(batch); !p) return std::unexpected(p.error());
    auto claimed = s.claim_due(store::ClaimRequest{"bench", 60'000, n});
    if (!claimed) return std::unexpected(claimed.error());
    std::vector<store::AttemptReport> reports;
    for (const auto& d : *claimed) {
      store::AttemptReport r;
      r.delivery_id = d.id;
      r.lease_owner = "bench";
      r.attempt.response_status = 200;
      r.attempt.response_body = "ok";
      r.attempt.duration_ms = 3;
      r.attempt.success = true;
      r.next = store::AttemptReport::Next::kDelivered;
      reports.push_back(std::move(r));
    }
    if (auto r = s.record_attempts(reports); !r) return std::unexpected(r.error());
  }
  return {};
}

// Publishes batches until `stop`; returns messages published.
long long publish_until(store::Store& s, const std::string& app_id, const std::string& payload,
                        int batch_size, const std::atomic<bool>& stop) {
  std::vector<store::NewMessage> batch(static_cast<std::size_t>(batch_size),
                                       message_of(app_id, payload));
  long long published = 0;
  while (!stop.load()) {
    if (auto p = s.publish_batch(batch); p) published += batch_size;
  }
  return published;
}

// Publishes for `seconds` alone; adds what it published to `total`; messages per second.
double normal_rate(store::Store& s, const std::string& app_id, const std::string& payload,
                   int batch_size, double seconds, long long& total) {
  std::atomic<bool> stop{false};
  const auto start = SteadyClock::now();
  std::thread timer([&] {
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
  });
  const long long n = publish_until(s, app_id, payload, batch_size, stop);
  timer.join();
  total += n;
  return static_cast<double>(n) / std::chrono::duration<double>(SteadyClock::now() - start).count();
}

long long count_of(store::Store& s, store::RetentionKind kind) {
  auto stats = s.retention_stats();
  if (!stats) return -1;
  for (const auto& st : *stats) {
    if (st.kind == kind) return st.rows;
  }
  return -1;
}

int run(const Options& o) {
  namespace fs = std::filesystem;
  const fs::path parent = o.dir.empty() ? fs::temp_directory_path() : fs::path(o.dir);
  const fs::path dir = parent / ("hookd-retention-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{dir};

  const auto real_now = env::SystemClock().now_ms();
  env::FakeClock clock(real_now - 60 * kDay);
  env::SystemRandom random;
  store::RandomIdGenerator ids(clock, random);
  store::sqlite::SqliteOptions so;
  so.path = (dir / "hookd.db").string();
  auto opened = store::sqlite::SqliteStore::open(so, clock, ids);
  if (!opened) return failed("open", opened.error().message, 2);
  auto& s = **opened;
  if (auto m = s.migrate(); !m) return failed("migrate", m.error().message, 2);
  store::Application app;
  app.name = "bench";
  auto a = s.create_application(app);
  if (!a) return failed("application", a.error().message, 2);
  store::Endpoint ep;
  ep.app_id = a->id;
  ep.url = "http://127.0.0.1:9/hook";
  ep.secrets.current = "whsec_c2VjcmV0";
  if (auto e = s.create_endpoint(ep); !e) return failed("endpoint", e.error().message, 2);
  const std::string payload =
      "{\"pad\":\"" + std::string(static_cast<std::size_t>(o.payload - 10), 'x') + "\"}";

  const auto fill_start = SteadyClock::now();
  if (auto f = fill_delivered(s, a->id, payload, o.old_messages); !f) {
    return failed("fill", f.error().message, 2);
  }
  const double fill_s = std::chrono::duration<double>(SteadyClock::now() - fill_start).count();
  const auto file_before = static_cast<long long>(fs::file_size(so.path));
  clock.set(real_now);  // the old messages are 60 days old now
  print("old_messages", static_cast<long long>(o.old_messages));
  print("fill_seconds", fill_s);
  print("file_bytes_before", file_before);
  print("bytes_per_delivered_message", static_cast<double>(file_before) / o.old_messages);

  // Alternating windows of the same saturating publisher: alone, then beside purge batches
  // exactly as the purger runs them (its defaults: 500 rows, 20 ms pause; the cursor carries
  // over from window to window), so the machine's drift hits both alike; pair by pair ratios.
  const store::PurgerOptions po;
  auto requests = store::purge_requests(po, clock.now_ms());
  store::PurgeRequest purge = requests.at(0);  // messages
  long long published = 0;
  long long purged_under_load = 0;
  bool purge_done = false;
  double normal_sum = 0;
  double during_sum = 0;
  std::vector<double> ratios;
  for (int round = 0; round < o.rounds; ++round) {
    const double normal = normal_rate(s, a->id, payload, o.batch, o.window_s, published);
    std::atomic<bool> stop{false};
    std::thread purger_thread([&] {
      while (!stop && !purge_done) {
        auto b = s.purge_batch(purge);
        if (!b) break;
        purged_under_load += b->deleted;
        purge.after_id = b->last_id;
        purge_done = b->done;
        std::this_thread::sleep_for(po.pause);
      }
    });
    const double during = normal_rate(s, a->id, payload, o.batch, o.window_s, published);
    stop = true;
    purger_thread.join();
    normal_sum += normal;
    during_sum += during;
    ratios.push_back(during / normal);
  }
  std::sort(ratios.begin(), ratios.end());
  // The rest alone: one whole pass of the real purger.
  store::RetentionPurger purger(s, clock, po);
  const auto alone_start = SteadyClock::now();
  const auto report = purger.run_pass();
  const double alone_s = seconds_since(alone_start);
  if (report.error) return failed("purge", report.error->message, 1);
  const double window_total = o.rounds * o.window_s;
  print("rounds", static_cast<long long>(o.rounds));
  print("window_seconds", o.window_s);
  print("publish_per_s_alone", normal_sum / o.rounds);
  print("publish_per_s_beside_purge", during_sum / o.rounds);
  print("beside_over_alone", during_sum / normal_sum);
  print("beside_over_alone_median_pair", ratios.empty() ? 0.0 : ratios[ratios.size() / 2]);
  print("beside_over_alone_worst_pair", ratios.empty() ? 0.0 : ratios.front());
  print("purged_under_load", purged_under_load);
  print("purged_per_s_under_load", static_cast<double>(purged_under_load) / window_total);
  print("purge_alone_seconds", alone_s);
  print("purged_alone", static_cast<long long>(report.deleted[0]));
  print("purged_per_s_alone", alone_s > 0 ? static_cast<double>(report.deleted[0]) / alone_s : 0);
  print("purge_batches_alone", static_cast<long long>(report.batches));
  print("reclaimed_pages", static_cast<long long>(report.reclaimed_pages));
  print("file_bytes_after", static_cast<long long>(fs::file_size(so.path)));
  print("load_average_1m", [] {
    double l = 0;
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
      if (std::fscanf(f, "%lf", &l) != 1) l = 0;
      std::fclose(f);
    }
    return l;
  }());
  const long long left = count_of(s, store::RetentionKind::kMessages);
  print("messages_left", left);
  print("messages_published_meanwhile", published);
  if (purged_under_load + report.deleted[0] != o.old_messages) {
    return failed("purge", "old messages left", 1);
  }
  if (left != published) return failed("purge", "a young message was deleted", 1);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App cli{"hookd retention benchmark (SQLite file): publish throughput during a purge"};
  cli.add_option("--old", o.old_messages, "old delivered messages to purge")
      ->check(CLI::PositiveNumber);
  cli.add_option("--payload", o.payload, "payload bytes")->check(CLI::Range(16, 1 << 20));
  cli.add_option("--batch", o.batch, "messages per publish batch")->check(CLI::Range(1, 1000));
  cli.add_option("--timeout", o.timeout_s, "seconds before the process gives up")
      ->check(CLI::PositiveNumber);
  cli.add_option("--rounds", o.rounds, "pairs of windows (alone, beside the purge)")
      ->check(CLI::Range(1, 1000));
  cli.add_option("--window", o.window_s, "seconds per window")->check(CLI::PositiveNumber);
  cli.add_option("--dir", o.dir, "where the temporary database goes");
  CLI11_PARSE(cli, argc, argv);
  ::alarm(static_cast<unsigned>(o.timeout_s));
  return run(o);
}
