// The options of one source's reconciler (issue 15, docs/reconciliation.md): every key of
// [source.reconcile] as is (durations in milliseconds), translated by app/module_options.
// Thread-safety: a plain value.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace hookd::reconcile {

enum class RepairMode { kAuto, kManual };
enum class SinceFormat { kUnixSeconds, kRfc3339 };

struct ReconcileOptions {
  std::chrono::milliseconds interval{5 * 60 * 1000};  // 0 = only on demand
  std::string feed_url;                               // "" = no feed walk
  std::string feed_token;  // sent as Authorization: Bearer (never logged, never in evidence)
  std::string items = "/data";
  std::string item_id = "/id";
  std::string item_body = "/payload";    // "" = the item itself
  std::string item_time = "/timestamp";  // RFC 3339 or unix seconds; "" = no watermark
  std::string next_cursor = "/iterator";
  std::string done = "/done";
  std::string cursor_param = "iterator";
  // "" = a run resumes at the stored cursor. Set: every run starts at
  // since_param=<watermark - overlap> (from the feed's start while there is no watermark) and
  // pages on with cursor_param, for feeds filtered by time (Stripe's created[gte]).
  std::string since_param;
  SinceFormat since_format = SinceFormat::kUnixSeconds;
  std::chrono::milliseconds overlap{10 * 60 * 1000};
  std::string status_url;  // "" = no stuck check; "{entity}" is replaced (URL-encoded)
  std::string status_state = "/status";
  std::chrono::milliseconds stuck_after{30 * 60 * 1000};
  RepairMode repair = RepairMode::kAuto;
  std::string lease_owner = "node/reconcile";
  int max_pages_per_run = 10000;
  std::size_t max_page_bytes = 16 * 1024 * 1024;
  std::chrono::milliseconds page_timeout{30'000};
  std::chrono::milliseconds status_timeout{10'000};
  int max_stuck_per_run = 1000;
  int max_parked_per_run = 1000;  // timed-out parked events handed off per run
  std::chrono::milliseconds lease{60'000};
  std::chrono::milliseconds max_run_time{10 * 60 * 1000};  // a run stops (error) after this
  int max_json_depth = 64;
};

}  // namespace hookd::reconcile
