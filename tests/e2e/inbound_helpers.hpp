// Helpers for the inbound gateway's end-to-end tests: a config with [[source]] tables
// forwarding to a TestReceiver (the "application"), a Standard Webhooks sender signing with
// the core's Signer, and polling of the inbox API until an event reaches a status.
// Header-only (the e2e target globs *_test.cpp). Thread-safety: stateless functions; the
// sender may be used from several threads.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "e2e/hookd_process.hpp"
#include "e2e/http_call.hpp"
#include "hookd/signing.hpp"
#include "support/test_receiver.hpp"

namespace hookd::e2e::inbound {

// The sender's signing secret and hookd's forward secret (Standard Webhooks "whsec_").
inline const std::string kSenderSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
inline const std::string kForwardSecret = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";

// default_test_config() plus the given [[source]] tables (with "{url}" replaced).
inline std::string config_with_sources(const std::string& sources_toml) {
  return default_test_config() + "\n" + sources_toml;
}

// One Standard Webhooks source forwarding to `forward_url`; `extra` lines go into the table.
// `forward_extra` lines go into its [source.forward] table.
inline std::string standard_source(const std::string& name, const std::string& forward_url,
                                   const std::string& extra = "",
                                   const std::string& forward_extra = "") {
  return "[[source]]\nname = \"" + name + "\"\nscheme = \"standard\"\nsecrets = [\"" +
         kSenderSecret + "\"]\n" + extra + "\n[source.forward]\nurl = \"" + forward_url +
         "\"\nsecret = \"" + kForwardSecret + "\"\n" + forward_extra + "\n\n";
}

inline std::int64_t now_unix() { return static_cast<std::int64_t>(std::time(nullptr)); }

inline HeaderList standard_headers(const std::string& id, const std::string& body,
                                   std::int64_t timestamp = now_unix(),
                                   const std::string& secret = kSenderSecret) {
  auto signer = Signer::create(SchemeOptions{}, std::vector<std::string>{secret});
  HeaderList out{{"Content-Type", "application/json"}};
  for (auto& h : signer->sign({id, timestamp, body})) out.emplace_back(h.name, h.value);
  return out;
}

// POST /in/<source> signed like a Standard Webhooks sender.
inline HttpReply send_event(const HookdProcess& hookd, const std::string& source,
                            const std::string& id, const std::string& body,
                            std::int64_t timestamp = now_unix()) {
  return http_request("POST", hookd.url("/in/" + source), body,
                      standard_headers(id, body, timestamp));
}

inline nlohmann::json inbox_list(const HookdProcess& hookd, const std::string& query = "") {
  return hookd.get("/api/v1/hookd/inbox?limit=250" + query).json();
}

// GET /api/v1/hookd/inbox/{id}, found by the source's event id through the list.
inline nlohmann::json inbox_event(const HookdProcess& hookd, const std::string& source,
                                  const std::string& event_id) {
  const auto list = inbox_list(hookd, "&source=" + source);
  if (!list.is_object() || !list.contains("data")) return nullptr;
  for (const auto& e : list["data"]) {
    if (e.value("eventId", "") == event_id) {
      return hookd.get("/api/v1/hookd/inbox/" + e.value("id", "")).json();
    }
  }
  return nullptr;
}

// Polls until the event has `status` (bounded); returns the last view of it.
inline nlohmann::json wait_for_status(const HookdProcess& hookd, const std::string& source,
                                      const std::string& event_id, const std::string& status,
                                      std::chrono::milliseconds within = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  nlohmann::json last;
  while (std::chrono::steady_clock::now() < deadline) {
    last = inbox_event(hookd, source, event_id);
    if (last.is_object() && last.value("status", "") == status) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return last;
}

// The forwards the application received for one source's event id.
inline std::size_t forwards_of(const hookd::testing::TestReceiver& app,
                               const std::string& event_id) {
  std::size_t n = 0;
  for (const auto& r : app.requests()) n += r.header("X-Hookd-Event-Id") == event_id ? 1 : 0;
  return n;
}

// The value of one counter line of /metrics (0 when absent).
inline double metric_value(const HookdProcess& hookd, const std::string& line_prefix) {
  const auto text = http_get(hookd.url("/metrics")).body;
  auto pos = text.find(line_prefix + " ");
  if (pos == std::string::npos) return 0;
  return std::stod(text.substr(pos + line_prefix.size() + 1));
}

}  // namespace hookd::e2e::inbound
