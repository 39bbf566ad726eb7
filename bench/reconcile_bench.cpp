// hookd_bench_reconcile: the inbound reconciler's benchmark (issue 15: "a feed of 100,000 items
// with 1 % missing: items/s read, target >= 20,000/s, and the time to repair").
// In one process: a real SqliteStore in a temporary FILE (the options `hookd serve` uses by
// default: WAL, synchronous=FULL, 8 readers, background checkpoints), pre-filled through the
// inbox batch insert with every feed item but the missing ones (setup, not measured); then one
// reconcile::Reconciler::run_once over the feed, served from memory by a fake HttpSender that
// answers at once on the caller's thread (so the ceiling is hookd's own work). Also a same-run
// ceiling: read_feed_page over the same pages without the store.
// Prints one key=value line per figure. Exit status: 0 ok; 1 the run found or repaired another
// number of differences than were missing (or failed); 2 setup failed. Bounded: --timeout
// (SIGALRM) over the whole process, and the run's own max_run_time.
// Thread-safety: single-threaded program (the store runs its checkpointer thread).
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/crypto.hpp"
#include "env/system_env.hpp"
#include "reconcile/feed_page.hpp"
#include "reconcile/reconciler.hpp"
#include "store/id_generator.hpp"
#include "store/sqlite/sqlite_store.hpp"

namespace {

using namespace hookd;
using SteadyClock = std::chrono::steady_clock;

const std::string kSource = "bench";
const std::string kFeedUrl = "http://127.0.0.1:9/feed";

struct Options {
  int items = 100000;
  double missing_percent = 1.0;
  int page_size = 1000;
  int timeout_s = 600;
  std::string dir;  // parent of the temporary database directory; "" = $TMPDIR or /tmp
};

double seconds_since(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

void print(const char* key, double value) { std::printf("reconcile_%s=%.3f\n", key, value); }
void print(const char* key, long long value) { std::printf("reconcile_%s=%lld\n", key, value); }
void print(const char* key, const std::string& value) {
  std::printf("reconcile_%s=%s\n", key, value.c_str());
}

// Prints "<what>: <message>" to stderr; returns `code`.
int failed(const char* what, const std::string& message, int code) {
  std::fprintf(stderr, "%s: %s\n", what, message.c_str());
  return code;
}

// ---- the feed ----

// Item n is missing from the inbox when the running count floor(n * bp / 10000) steps up at n:
// spread evenly, floor(items * bp / 10000) of them in all.
bool is_missing(long long n, long long basis_points) {
  return (n + 1) * basis_points / 10000 != n * basis_points / 10000;
}

std::string rfc3339(std::time_t seconds) {
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

// {"id":"e<n>","timestamp":"…","payload":{…}} with a payload of ~300 bytes.
std::string feed_item(int n) {
  const std::string id = "e" + std::to_string(n);
  std::string payload = R"({"id":")" + id + R"(","type":"envelope.sent","entity":"ent-)" +
                        std::to_string(n) + R"(","state":"sent","data":{"pad":")";
  payload.append(payload.size() < 290 ? 290 - payload.size() : 0, 'x');
  payload += R"("}})";
  return R"({"id":")" + id + R"(","timestamp":")" + rfc3339(1764547200 + n) + R"(","payload":)" +
         payload + "}";
}

// Page k: items [k * size, (k + 1) * size); the next cursor is "c<k + 1>"; the last is done.
std::vector<std::string> render_pages(const Options& o) {
  std::vector<std::string> pages;
  for (int first = 0, k = 0; first < o.items; first += o.page_size, ++k) {
    const int end = std::min(o.items, first + o.page_size);
    std::string body = R"({"data":[)";
    for (int n = first; n < end; ++n) {
      if (n != first) body.push_back(',');
      body += feed_item(n);
    }
    body += R"(],"iterator":"c)" + std::to_string(k + 1) + R"(","done":)" +
            (end == o.items ? "true" : "false") + "}";
    pages.push_back(std::move(body));
  }
  return pages;
}

// Answers GET <feed>[?iterator=c<k>] with page k at once, on the caller's thread; else 404.
class MemoryFeed final : public net::HttpSender {
 public:
  explicit MemoryFeed(const std::vector<std::string>& pages) : pages_(pages) {}
  void send(net::OutboundRequest request, Done done) override {
    ++requests_;
    net::AttemptResult result;
    result.request_sent = true;
    result.status = 404;
    std::size_t k = 0;
    const auto at = request.url.find("?iterator=c");
    if (at != std::string::npos) k = std::strtoul(request.url.c_str() + at + 11, nullptr, 10);
    if ((at != std::string::npos || request.url == kFeedUrl) && k < pages_.size()) {
      result.status = 200;
      result.body = pages_[k];
    }
    done(std::move(result));
  }
  long long requests() const { return requests_; }

 private:
  const std::vector<std::string>& pages_;
  long long requests_ = 0;
};

// ---- the store ----

// Forwards to the real store and times reconcile_apply_page (the page transaction), noting
// when the page that completed the expected number of differences committed.
class TimedReconcileStore final : public store::ReconcileStore {
 public:
  TimedReconcileStore(store::ReconcileStore& inner, long long expected)
      : inner_(inner), expected_(expected) {}

  double apply_s = 0;
  long long recorded = 0;
  std::optional<SteadyClock::time_point> all_recorded_at;

  Result<store::ReconcilePageResult> reconcile_apply_page(const store::ReconcilePage& p) override {
    const auto start = SteadyClock::now();
    auto out = inner_.reconcile_apply_page(p);
    const auto end = SteadyClock::now();
    apply_s += std::chrono::duration<double>(end - start).count();
    if (out) recorded += static_cast<long long>(out->recorded.size());
    if (out && !all_recorded_at && recorded >= expected_) all_recorded_at = end;
    return out;
  }
  Result<store::ReconcileStart> reconcile_begin(const std::string& source, const std::string& owner,
                                                store::Millis lease_ms,
                                                const std::string& trigger) override {
    return inner_.reconcile_begin(source, owner, lease_ms, trigger);
  }
  Result<std::vector<store::Difference>> reconcile_record(
      const std::vector<store::DifferenceFinding>& findings) override {
    return inner_.reconcile_record(findings);
  }
  Result<store::ReconcileRun> reconcile_finish(const std::string& run_id, const std::string& owner,
                                               std::optional<std::string> error) override {
    return inner_.reconcile_finish(run_id, owner, std::move(error));
  }
  Result<store::ReconcileCursor> reconcile_cursor(const std::string& source) override {
    return inner_.reconcile_cursor(source);
  }
  Result<store::ReconcileRun> reconcile_get_run(const std::string& id) override {
    return inner_.reconcile_get_run(id);
  }
  Result<store::Page<store::ReconcileRun>> reconcile_list_runs(
      const std::optional<std::string>& source, const store::PageRequest& page) override {
    return inner_.reconcile_list_runs(source, page);
  }
  Result<store::Difference> reconcile_get_difference(const std::string& id) override {
    return inner_.reconcile_get_difference(id);
  }
  Result<store::Page<store::Difference>> reconcile_list_differences(
      const store::DifferenceFilter& filter, const store::PageRequest& page) override {
    return inner_.reconcile_list_differences(filter, page);
  }
  Result<std::vector<store::DifferenceActionRecord>> reconcile_actions(
      const std::string& difference_id) override {
    return inner_.reconcile_actions(difference_id);
  }
  Result<store::Difference> reconcile_act(const store::DifferenceAct& act) override {
    return inner_.reconcile_act(act);
  }
  Result<std::vector<store::InboxEntity>> reconcile_stuck_entities(const std::string& source,
                                                                   store::Millis updated_before,
                                                                   int limit) override {
    return inner_.reconcile_stuck_entities(source, updated_before, limit);
  }
  Result<std::vector<store::InboxEvent>> reconcile_timed_out_parked(const std::string& source,
                                                                    int limit) override {
    return inner_.reconcile_timed_out_parked(source, limit);
  }
  Result<std::vector<store::DifferenceStat>> reconcile_stats() override {
    return inner_.reconcile_stats();
  }

 private:
  store::ReconcileStore& inner_;
  long long expected_;
};

struct Fixture {
  env::SystemClock clock;
  env::SystemRandom random;
  store::RandomIdGenerator ids{clock, random};
  std::filesystem::path dir;
  std::unique_ptr<store::sqlite::SqliteStore> store;  // closed before dir is removed
  std::shared_ptr<const inbound::Source> source;
  reconcile::ReconcileOptions options;

  ~Fixture() {
    store.reset();
    std::error_code ignored;
    if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
  }
};

Status open_store(const Options& o, Fixture& f) {
  std::string base =
      o.dir.empty() ? (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") : o.dir;
  std::string templ = base + "/hookd-reconcile-bench-XXXXXX";
  if (!mkdtemp(templ.data())) return fail(ErrorCode::kInternal, "mkdtemp in " + base + " failed");
  f.dir = templ;
  store::sqlite::SqliteOptions so;  // as app::open_store with the default [database]
  so.path = (f.dir / "hookd.db").string();
  so.synchronous = "FULL";
  so.busy_timeout_ms = 5000;
  so.readers = 8;
  auto opened = store::sqlite::SqliteStore::open(so, f.clock, f.ids);
  if (!opened) return std::unexpected(opened.error());
  f.store = std::move(*opened);
  return f.store->migrate();
}

Status make_source(Fixture& f) {
  inbound::SourceSettings s;
  s.name = kSource;
  s.verification = inbound::Verification::kNone;
  s.event_id = "/id";
  s.entity_key = "/entity";
  s.state = "/state";
  s.terminal_states = {"completed", "voided"};
  s.forward.url = "http://127.0.0.1:9/app";
  s.forward.secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  auto source = inbound::Source::create(s);
  if (!source) return std::unexpected(source.error());
  f.source = std::make_shared<const inbound::Source>(std::move(*source));
  return {};
}

void set_options(const Options& o, std::size_t pages, Fixture& f) {
  auto& r = f.options;
  r.interval = std::chrono::milliseconds(0);
  r.feed_url = kFeedUrl;
  r.feed_token = "bench-token";
  r.lease_owner = "bench/reconcile";
  r.max_pages_per_run = static_cast<int>(pages) + 10;
  r.max_page_bytes = 64 * 1024 * 1024;
  r.max_run_time = std::chrono::seconds(o.timeout_s);
}

// Every item but the missing ones goes into the inbox as the webhook path would have stored
// it (the reconciler's own reading of the item), one batch insert per page.
Status prefill(const std::vector<std::string>& pages, long long basis_points, Fixture& f) {
  for (std::size_t k = 0; k < pages.size(); ++k) {
    auto page = reconcile::read_feed_page(f.options, *f.source, pages[k]);
    if (!page) return std::unexpected(page.error());
    std::vector<store::InboxEvent> events;
    for (auto& item : page->items) {
      const long long n = std::atoll(item.event.event_id.c_str() + 1);
      if (!is_missing(n, basis_points)) events.push_back(std::move(item.event));
    }
    auto inserted = f.store->inbox_insert_batch(std::move(events));
    if (!inserted) return std::unexpected(inserted.error());
  }
  return {};
}

// read_feed_page over every page (the page's evidence is the store's, not counted here);
// returns the items read.
Result<long long> parse_all(const std::vector<std::string>& pages, Fixture& f) {
  long long items = 0;
  for (std::size_t k = 0; k < pages.size(); ++k) {
    auto page = reconcile::read_feed_page(f.options, *f.source, pages[k]);
    if (!page) return std::unexpected(page.error());
    items += static_cast<long long>(page->items.size());
  }
  return items;
}

// How many of the missing events are now in the inbox.
long long missing_now_present(const Options& o, long long basis_points, Fixture& f) {
  long long found = 0;
  for (int n = 0; n < o.items; ++n) {
    if (is_missing(n, basis_points) && f.store->inbox_find(kSource, "e" + std::to_string(n))) {
      ++found;
    }
  }
  return found;
}

int run(const Options& o) {
  const long long bp = std::llround(o.missing_percent * 100.0);
  const long long expected = static_cast<long long>(o.items) * bp / 10000;
  print("items", static_cast<long long>(o.items));
  print("page_size", static_cast<long long>(o.page_size));
  print("missing_expected", expected);

  Fixture f;
  const auto setup_start = SteadyClock::now();
  const auto pages = render_pages(o);
  set_options(o, pages.size(), f);
  if (auto s = open_store(o, f); !s) return failed("store", s.error().message, 2);
  if (auto s = make_source(f); !s) return failed("source", s.error().message, 2);
  if (auto s = prefill(pages, bp, f); !s) return failed("prefill", s.error().message, 2);
  print("pages", static_cast<long long>(pages.size()));
  print("setup_s", seconds_since(setup_start));

  const auto parse_start = SteadyClock::now();
  auto parsed = parse_all(pages, f);
  const double parse_s = seconds_since(parse_start);
  if (!parsed) return failed("parse", parsed.error().message, 2);
  if (*parsed != o.items) return failed("parse", "items read differ from the feed's", 2);
  print("parse_only_s", parse_s);
  print("parse_only_items_per_s", static_cast<double>(o.items) / parse_s);

  MemoryFeed feed(pages);
  TimedReconcileStore timed(*f.store, expected);
  reconcile::Reconciler reconciler(
      f.options, reconcile::ReconcilerDeps{timed, *f.store, feed, f.clock, f.source});
  const auto run_start = SteadyClock::now();
  auto closed = reconciler.run_once("bench");
  const double run_s = seconds_since(run_start);
  if (!closed) return failed("run", closed.error().message, 1);
  const double repair_s =
      timed.all_recorded_at
          ? std::chrono::duration<double>(*timed.all_recorded_at - run_start).count()
          : run_s;
  const long long present = missing_now_present(o, bp, f);

  print("run_s", run_s);
  print("items_read", static_cast<long long>(closed->items_read));
  print("items_per_s", static_cast<double>(closed->items_read) / run_s);
  print("differences_found", static_cast<long long>(closed->differences_found));
  print("repaired", static_cast<long long>(closed->repaired));
  print("missing_in_inbox_after", present);
  print("repair_s", repair_s);
  print("store_apply_s", timed.apply_s);
  print("outside_store_s", run_s - timed.apply_s);
  print("feed_requests", feed.requests());
  print("target_items_per_s", 20000LL);

  const bool ok = !closed->error && closed->items_read == o.items &&
                  closed->differences_found == expected && closed->repaired == expected &&
                  present == expected;
  if (closed->error) std::fprintf(stderr, "run error: %s\n", closed->error->c_str());
  print("result", std::string(ok ? "ok" : "wrong_counts"));
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"hookd's inbound reconciler over an in-memory feed and a SQLite file (issue 15)"};
  app.add_option("--items", o.items, "feed items")->check(CLI::Range(1, 10'000'000));
  app.add_option("--missing-percent", o.missing_percent, "share of the feed not in the inbox")
      ->check(CLI::Range(0.0, 100.0));
  app.add_option("--page-size", o.page_size, "items per feed page")->check(CLI::Range(1, 100'000));
  app.add_option("--timeout", o.timeout_s, "seconds at most for the whole program")
      ->check(CLI::Range(1, 3600));
  app.add_option("--dir", o.dir, "where the temporary database directory goes");
  CLI11_PARSE(app, argc, argv);
  alarm(static_cast<unsigned>(o.timeout_s));  // SIGALRM ends the process: bounded
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  return run(o);
}
