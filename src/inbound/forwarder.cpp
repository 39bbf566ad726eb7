#include "inbound/forwarder.hpp"
#include "hookd/threads.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/alert_types.hpp"
#include "inbound/event_fields.hpp"
#include "inbound/forward_request.hpp"

namespace hookd::inbound {
namespace {

bool settled(store::InboxStatus s) {
  using store::InboxStatus;
  return s == InboxStatus::kProcessed || s == InboxStatus::kStale ||
         s == InboxStatus::kSuperseded || s == InboxStatus::kDuplicate;
}

store::InboxStatus status_of(Decision d) {
  switch (d) {
    case Decision::kStale:
      return store::InboxStatus::kStale;
    case Decision::kSuperseded:
      return store::InboxStatus::kSuperseded;
    case Decision::kDuplicateBusinessKey:
      return store::InboxStatus::kDuplicate;
    case Decision::kPark:
      return store::InboxStatus::kParked;
    case Decision::kForward:
      break;
  }
  return store::InboxStatus::kProcessed;
}

std::string business_key_slot(const store::InboxEvent& e) {
  return e.source + "\n" + e.business_key.value_or("");
}

bool needs_body(const Source& s) { return !s.settings.state.empty(); }

}  // namespace

Forwarder::Forwarder(ForwarderOptions options, ForwarderDeps deps)
    : options_(std::move(options)), deps_(std::move(deps)) {}

Forwarder::~Forwarder() { stop(); }

Status Forwarder::start() {
  std::lock_guard lock(mu_);
  if (running_) return {};
  running_ = true;
  thread_ = std::thread([this] { run(); });
  return {};
}

void Forwarder::stop() {
  {
    std::lock_guard lock(mu_);
    if (!running_) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mu_);
  running_ = false;
}

void Forwarder::begin_stop(std::chrono::steady_clock::time_point deadline) {
  {
    std::lock_guard lock(mu_);
    if (!running_) return;
    stopping_ = true;
    if (!requested_deadline_) requested_deadline_ = deadline;
  }
  cv_.notify_all();
}

void Forwarder::wake() {
  {
    std::lock_guard lock(mu_);
    woken_ = true;
  }
  cv_.notify_one();
}

std::int64_t Forwarder::now_ms() { return deps_.clock.now().time_since_epoch().count(); }

void Forwarder::run() {
  name_this_thread("hookd-forward");
  lower_this_thread_priority(options_.nice);
  std::optional<std::chrono::steady_clock::time_point> stop_deadline;
  for (;;) {
    std::deque<Completed> done;
    bool stopping = false;
    std::optional<std::chrono::steady_clock::time_point> requested;
    {
      std::lock_guard lock(mu_);
      done.swap(mailbox_);
      stopping = stopping_;
      requested = requested_deadline_;
    }
    for (auto& d : done) record(std::move(d));
    if (stopping) {
      round(0);
      const auto now = std::chrono::steady_clock::now();
      if (!stop_deadline) {
        stop_deadline = now + options_.stop_grace;
        if (requested) stop_deadline = std::min(*stop_deadline, *requested);
      }
      if (in_flight_ == 0 || now >= *stop_deadline) break;
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, std::chrono::milliseconds(50), [this] { return !mailbox_.empty(); });
      continue;
    }
    const int capacity = std::min(options_.max_in_flight - in_flight_, options_.claim_batch);
    const bool more = round(std::max(capacity, 0));
    // Decisions taken on the events just claimed (stale, parked, ...) are written by the
    // next round, which also claims again: no waiting while there is something to write.
    if (!pending_.empty()) continue;
    std::unique_lock lock(mu_);
    if (more && in_flight_ < options_.max_in_flight) continue;
    cv_.wait_for(lock, options_.poll_interval,
                 [this] { return stopping_ || woken_ || !mailbox_.empty(); });
    woken_ = false;
  }
  // Forwards still in flight after the grace: their events go back to the queue (their late
  // answers are ignored; the app sees them again, deduplicated by Idempotency-Key).
  if (auto released = deps_.inbox.inbox_release_leases(options_.lease_owner); !released) {
    if (deps_.logger)
      deps_.logger->warn("forwarder.release_failed", {{"error", released.error().message}});
  }
}

DecisionInput Forwarder::decision_input(const Source& source, const store::InboxEvent& event) {
  DecisionInput in;
  in.sequence = event.sequence;
  if (needs_body(source)) {
    if (auto json = parse_json_bounded(event.payload, 1000)) {
      EventFields fields;
      read_body_fields(source, *json, fields);
      in.state = fields.state;
    }
  }
  if (event.entity_key) {
    if (auto e = deps_.inbox.inbox_entity(event.source, *event.entity_key)) in.entity = *e;
  }
  // A person or the reconciler waived the dependency (docs/reconciliation.md, A21's hand-off):
  // forwarded with the header, which tells the app what is missing.
  if (event.headers.contains(std::string(store::kDependencyMissingHeader))) return in;
  for (const auto& dep : event.depends_on) {
    auto found = deps_.inbox.inbox_find(event.source, dep);
    if (!found || !settled(found->status)) {
      in.dependencies_settled = false;
      break;
    }
  }
  if (source.settings.business_key_guard && event.business_key) {
    auto done = deps_.inbox.inbox_business_key_processed(event.source, *event.business_key);
    in.business_key_already_forwarded = done.value_or(false);
  }
  return in;
}

void Forwarder::process(store::InboxEvent event) {
  const auto it = deps_.sources.find(event.source);
  if (it == deps_.sources.end()) return mark_dead(event, "source no longer configured");
  const Source& source = *it->second;
  if (source.settings.business_key_guard && keys_in_flight_.contains(business_key_slot(event))) {
    // Another event with this business key is being forwarded: decide after its outcome.
    store::InboxStatusUpdate u;
    u.id = event.id;
    u.lease_owner = options_.lease_owner;
    u.to = store::InboxStatus::kRetry;
    u.note = "waiting: an event with the same business key is in flight";
    u.next_attempt_at = now_ms() + options_.business_key_wait.count();
    return update(std::move(u), source.name(), "");
  }
  DecisionInput input = decision_input(source, event);
  const DecisionResult result = decide(source, input);
  switch (result.decision) {
    case Decision::kForward:
      return send(source, std::move(event), std::move(input));
    case Decision::kPark:
      return park(source, event, result);
    default:
      return settle(source, event, result, input);
  }
}

void Forwarder::settle(const Source& source, const store::InboxEvent& event,
                       const DecisionResult& result, const DecisionInput&) {
  store::InboxStatusUpdate u;
  u.id = event.id;
  u.lease_owner = options_.lease_owner;
  u.to = status_of(result.decision);
  u.note = result.note;
  std::string outcome(to_string(result.decision));
  std::ranges::replace(outcome, '-', '_');
  settling_.insert(event.source + "\n" + event.event_id);
  update(std::move(u), source.name(), outcome);
}

namespace {}  // namespace

store::Difference parked_timeout_difference(const Source& source, const store::InboxEvent& event,
                                            const std::string& waiting_for) {
  store::Difference d;
  d.source = source.name();
  d.kind = store::DifferenceKind::kParkedTimeout;
  d.subject = event.event_id;
  d.event_id = event.event_id;
  d.entity_key = event.entity_key;
  d.local_state = "parked";
  d.detail = fmt::format("waited longer than park_timeout ({} s) for {}",
                         source.settings.park_timeout.count() / 1000, waiting_for);
  d.evidence.excerpt = "depends_on: " + waiting_for;
  return d;
}

void Forwarder::park(const Source& source, const store::InboxEvent& event,
                     const DecisionResult& result) {
  const std::int64_t now = now_ms();
  const std::int64_t deadline = event.received_at + source.settings.park_timeout.count();
  store::InboxStatusUpdate u;
  u.id = event.id;
  u.lease_owner = options_.lease_owner;
  u.to = store::InboxStatus::kParked;
  const std::string waiting_for = fmt::format("{}", fmt::join(event.depends_on, ", "));
  const bool settling_now = std::ranges::any_of(event.depends_on, [&](const std::string& dep) {
    return settling_.contains(event.source + "\n" + dep);
  });
  if (now < deadline) {
    u.note = result.note + ": " + waiting_for;
    // Settling a dependency releases its parked dependents; one settled in this very batch
    // commits before this park, so look again at once instead.
    u.next_attempt_at = settling_now ? now : deadline;
    return update(std::move(u), source.name(), "parked");
  }
  // Waited too long: flagged for reconciliation; still released if the dependency comes.
  // The flag (a parked_timeout difference, log, metric) is raised once; later periods only
  // look again.
  u.error = "park_timeout";
  u.next_attempt_at = now + source.settings.park_timeout.count();
  if (event.last_error == "park_timeout") {
    u.note = "parked: still waiting for " + waiting_for + " (flagged for reconciliation)";
    return update(std::move(u), source.name(), "");
  }
  u.note = "park_timeout: waited longer than park_timeout for " + waiting_for +
           "; flagged for reconciliation";
  u.difference = parked_timeout_difference(source, event, waiting_for);
  if (deps_.logger) {
    deps_.logger->warn(
        "inbound.park_timeout",
        {{"source", source.name()}, {"event_id", event.event_id}, {"waiting_for", waiting_for}});
  }
  ops::raise_alert(deps_.alerts, alert_types::kParkedTimeout,
                   {{"source", source.name()},
                    {"inboxId", event.id},
                    {"eventId", event.event_id},
                    {"waitingFor", event.depends_on}});
  update(std::move(u), source.name(), "park_timeout");
}

void Forwarder::send(const Source& source, store::InboxEvent event, DecisionInput input) {
  if (source.settings.business_key_guard) keys_in_flight_.insert(business_key_slot(event));
  ++in_flight_;
  auto request = forward_request(source, event, now_ms() / 1000, options_.timeout);
  deps_.sender.send(std::move(request), [this, event = std::move(event),
                                         input = std::move(input)](net::AttemptResult r) mutable {
    {
      std::lock_guard lock(mu_);
      mailbox_.push_back(Completed{std::move(event), std::move(r), std::move(input)});
    }
    cv_.notify_one();
  });
}

}  // namespace hookd::inbound
