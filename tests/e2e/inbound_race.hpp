// The A40 race through the real daemon, shared by the SQLite (inbound_order_e2e_test.cpp) and
// PostgreSQL (pg_inbound_order_e2e_test.cpp) end-to-end tests: many entities get sequences
// 3, 1, 2 sent back to back, from several threads at once, and scattered over threads (one
// entity's three events racing each other), repeated, against an application that answers
// slowly now and then (an entity's event stays in flight while its older ones arrive). Then,
// per entity: the sequences the application received strictly increase, every event is
// processed (forwarded) or stale, and last_sequence is the highest one forwarded. Also A19
// and A21 with the earlier event still in flight when the later one arrives.
// Header-only (the e2e targets glob *_test.cpp). Thread-safety: run from the test's thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "e2e/inbound_helpers.hpp"

namespace hookd::e2e::inbound {

inline const std::string kRaceKeys = "entity_key = \"/data/entity\"\nsequence = \"/data/seq\"\n";

// Joins pieces without `"literal" + std::string&&`, which trips g++ 12's -Wrestrict at -O3.
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string out;
  (out.append(parts), ...);
  return out;
}

enum class RaceMode { kBackToBack, kThreads, kScattered };

struct RaceEvent {
  std::string entity;
  int seq = 0;
  std::string id() const { return cat(entity, "-s", std::to_string(seq)); }
  std::string body() const {
    return nlohmann::json{{"event_id", id()}, {"data", {{"entity", entity}, {"seq", seq}}}}.dump();
  }
};

// Polls until the event is settled (processed, stale, superseded, ...; bounded).
inline nlohmann::json wait_until_settled(const HookdProcess& hookd, const std::string& source,
                                         const std::string& event_id) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  nlohmann::json last;
  while (std::chrono::steady_clock::now() < deadline) {
    last = inbox_event(hookd, source, event_id);
    const std::string status = last.is_object() ? last.value("status", "") : "";
    if (status != "" && status != "received" && status != "processing" && status != "retry" &&
        status != "parked") {
      return last;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return last;
}

struct OrderRace {
  int entities = 20;
  int repetitions = 3;
  int threads = 4;
  static constexpr RaceMode kModes[] = {RaceMode::kBackToBack, RaceMode::kThreads,
                                        RaceMode::kScattered};

  int sources() const { return repetitions * 3; }
  static std::string source_name(int n) { return cat("race", std::to_string(n)); }
  static std::string path(int n) { return cat("/r", std::to_string(n)); }
  static std::string entity(int n, int e) {
    return cat("n", std::to_string(n), "-e", std::to_string(e));
  }

  // The [[source]] tables, source n forwarding to app path /r<n>.
  std::string sources_toml(const hookd::testing::TestReceiver& app) const {
    std::string out;
    for (int n = 0; n < sources(); ++n) {
      out += standard_source(source_name(n), app.url(path(n)), kRaceKeys);
    }
    return out;
  }

  // Every third forward is answered after 40 ms: its entity stays in flight meanwhile.
  static void answer_slowly_sometimes(hookd::testing::TestReceiver& app) {
    auto n = std::make_shared<std::atomic<int>>(0);
    app.set_handler([n](const hookd::testing::ReceivedRequest&) {
      auto reply = hookd::testing::ReceiverBehavior::respond(200);
      return ++*n % 3 == 0 ? reply.after(std::chrono::milliseconds(40)) : reply;
    });
  }

  // Sends the events of source n in `mode`, each POST answered before that thread's next one;
  // `nodes` take turns (several hookd on one database). Returns the statuses other than 200.
  int send(const std::vector<const HookdProcess*>& nodes, int n, RaceMode mode) const {
    std::vector<std::vector<RaceEvent>> per_thread(mode == RaceMode::kBackToBack ? 1 : threads);
    std::vector<RaceEvent> all;
    for (int e = 0; e < entities; ++e) {
      for (int seq : {3, 1, 2}) all.push_back({entity(n, e), seq});
    }
    if (mode == RaceMode::kScattered) {
      std::mt19937 rng(static_cast<std::uint32_t>(n));
      std::shuffle(all.begin(), all.end(), rng);
      for (std::size_t i = 0; i < all.size(); ++i) per_thread[i % threads].push_back(all[i]);
    } else {
      for (std::size_t i = 0; i < all.size(); ++i) {
        per_thread[(i / 3) % per_thread.size()].push_back(all[i]);  // an entity's 3 together
      }
    }
    std::atomic<int> failures{0};
    std::vector<std::thread> senders;
    for (std::size_t t = 0; t < per_thread.size(); ++t) {
      senders.emplace_back([&, t] {
        std::size_t turn = t;
        for (const auto& ev : per_thread[t]) {
          const auto& node = *nodes[turn++ % nodes.size()];
          if (send_event(node, source_name(n), ev.id(), ev.body()).status != 200) ++failures;
        }
      });
    }
    for (auto& s : senders) s.join();
    return failures.load();
  }

  // Polls until all events of source n are processed or stale (bounded); returns their
  // statuses by event id.
  std::map<std::string, std::string> settled(const HookdProcess& hookd, int n) const {
    std::map<std::string, std::string> out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      out.clear();
      const auto list = inbox_list(hookd, cat("&source=", source_name(n)));
      int done = 0;
      for (const auto& e : list.value("data", nlohmann::json::array())) {
        const std::string status = e.value("status", "");
        out[e.value("eventId", "")] = status;
        done += status == "processed" || status == "stale" ? 1 : 0;
      }
      if (done == entities * 3) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return out;
  }

  // The sequences the application received per entity of source n, in arrival order.
  static std::map<std::string, std::vector<int>> forwarded(const hookd::testing::TestReceiver& app,
                                                           int n) {
    std::map<std::string, std::vector<int>> out;
    for (const auto& r : app.requests()) {
      if (r.path != path(n)) continue;
      const auto data = nlohmann::json::parse(r.body)["data"];
      out[data.value("entity", "")].push_back(data.value("seq", -1));
    }
    return out;
  }

  // The whole race; `nodes[0]` answers the API.
  void run(const std::vector<const HookdProcess*>& nodes,
           const hookd::testing::TestReceiver& app) const {
    for (int n = 0; n < sources(); ++n) {
      const RaceMode mode = kModes[n % 3];
      ASSERT_EQ(send(nodes, n, mode), 0) << "source " << n;
      check(*nodes[0], app, n);
    }
  }

  void check(const HookdProcess& hookd, const hookd::testing::TestReceiver& app, int n) const {
    const auto statuses = settled(hookd, n);
    ASSERT_EQ(statuses.size(), static_cast<std::size_t>(entities * 3)) << "source " << n;
    const auto sent = forwarded(app, n);
    for (int e = 0; e < entities; ++e) {
      const std::string name = entity(n, e);
      const auto it = sent.find(name);
      const std::vector<int> seqs = it == sent.end() ? std::vector<int>{} : it->second;
      const bool increasing = std::adjacent_find(seqs.begin(), seqs.end(),
                                                 [](int a, int b) { return a >= b; }) == seqs.end();
      EXPECT_TRUE(increasing && !seqs.empty() && seqs.back() == 3)
          << name << " forwarded " << ::testing::PrintToString(seqs) << " (mode " << n % 3 << ")";
      int processed = 0;
      for (int seq : {1, 2, 3}) {
        const std::string status = statuses.at(RaceEvent{name, seq}.id());
        EXPECT_TRUE(status == "processed" || status == "stale") << name << " " << status;
        processed += status == "processed" ? 1 : 0;
      }
      EXPECT_EQ(processed, static_cast<int>(seqs.size())) << name;
      const auto detail = inbox_event(hookd, source_name(n), RaceEvent{name, 3}.id());
      EXPECT_EQ(detail["entity"].value("lastSequence", -1), 3)
          << name << " " << detail["entity"].dump();
    }
  }
};

// A19 with a sequence pointer: `signed` (version 5, terminal) is being forwarded to an app
// that answers it after 700 ms when `sending` (version 3) arrives. Version 3 must not reach
// the app; it is superseded and the entity stays signed.
struct TerminalInFlightRace {
  int entities = 6;

  static std::string keys() {
    return "entity_key = \"/data/contract_id\"\nsequence = \"/data/version\"\n"
           "state = \"/data/status\"\nterminal_states = [\"signed\", \"voided\"]\n";
  }
  static std::string contract(int e) { return cat("c", std::to_string(e)); }
  static std::string event(int e, int version, const std::string& status) {
    return nlohmann::json{
        {"data", {{"contract_id", contract(e)}, {"version", version}, {"status", status}}}}
        .dump();
  }
  static void answer_signed_slowly(hookd::testing::TestReceiver& app) {
    app.set_handler([](const hookd::testing::ReceivedRequest& r) {
      auto reply = hookd::testing::ReceiverBehavior::respond(200);
      const bool is_signed = r.body.find("\"signed\"") != std::string::npos;
      return is_signed ? reply.after(std::chrono::milliseconds(700)) : reply;
    });
  }

  void run(const HookdProcess& hookd, const hookd::testing::TestReceiver& app,
           const std::string& source) const {
    for (int e = 0; e < entities; ++e) {
      const std::string id = cat(contract(e), "-v5");
      ASSERT_EQ(send_event(hookd, source, id, event(e, 5, "signed")).status, 200);
    }
    // Every `signed` has reached the app and waits for its answer: now the older ones come.
    ASSERT_TRUE(
        app.wait_for_requests(static_cast<std::size_t>(entities), std::chrono::seconds(20)));
    for (int e = 0; e < entities; ++e) {
      const std::string id = cat(contract(e), "-v3");
      ASSERT_EQ(send_event(hookd, source, id, event(e, 3, "sending")).status, 200);
    }
    for (int e = 0; e < entities; ++e) {
      EXPECT_EQ(wait_until_settled(hookd, source, cat(contract(e), "-v5")).value("status", ""),
                "processed");
      const auto older = wait_until_settled(hookd, source, cat(contract(e), "-v3"));
      EXPECT_EQ(older.value("status", ""), "superseded") << older.dump();
      EXPECT_EQ(older["entity"].value("state", ""), "signed") << older.dump();
      EXPECT_TRUE(older["entity"].value("terminal", false)) << older.dump();
      EXPECT_EQ(forwards_of(app, cat(contract(e), "-v3")), 0u) << contract(e);
    }
  }
};

// A21 with the dependency in flight: parent i is being forwarded to an app that answers it
// after 300 ms when child i (depends_on parent i) arrives. The child parks and is released
// by the transaction that records the parent: forwarded after it, long before park_timeout
// (1 min; a missed release would only end there).
struct DependencyInFlightRace {
  int pairs = 8;

  static std::string source_extra() {
    return "depends_on = \"/depends_on\"\npark_timeout = \"1m\"\n";
  }
  static std::string parent(int i) { return cat("p", std::to_string(i)); }
  static std::string child(int i) { return cat("c", std::to_string(i)); }
  static std::string body(const std::string& id, const std::vector<std::string>& deps) {
    return nlohmann::json{{"id", id}, {"depends_on", deps}}.dump();
  }
  static void answer_parents_slowly(hookd::testing::TestReceiver& app) {
    app.set_handler([](const hookd::testing::ReceivedRequest& r) {
      auto reply = hookd::testing::ReceiverBehavior::respond(200);
      const bool is_parent = r.header("X-Hookd-Event-Id").value_or("").starts_with("p");
      return is_parent ? reply.after(std::chrono::milliseconds(300)) : reply;
    });
  }

  void run(const HookdProcess& hookd, const hookd::testing::TestReceiver& app,
           const std::string& source) const {
    for (int i = 0; i < pairs; ++i) {
      ASSERT_EQ(send_event(hookd, source, parent(i), body(parent(i), {})).status, 200);
    }
    ASSERT_TRUE(app.wait_for_requests(static_cast<std::size_t>(pairs), std::chrono::seconds(20)));
    for (int i = 0; i < pairs; ++i) {
      ASSERT_EQ(send_event(hookd, source, child(i), body(child(i), {parent(i)})).status, 200);
    }
    for (int i = 0; i < pairs; ++i) {
      const auto c = wait_until_settled(hookd, source, child(i));
      EXPECT_EQ(c.value("status", ""), "processed") << c.dump();
      EXPECT_TRUE(c["lastError"].is_null()) << c.dump();
    }
    const auto requests = app.requests();
    for (int i = 0; i < pairs; ++i) {
      std::vector<std::string> order;
      for (const auto& r : requests) {
        const auto id = r.header("X-Hookd-Event-Id").value_or("");
        if (id == parent(i) || id == child(i)) order.push_back(id);
      }
      EXPECT_EQ(order, (std::vector<std::string>{parent(i), child(i)})) << i;
    }
  }
};

}  // namespace hookd::e2e::inbound
