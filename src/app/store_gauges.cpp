#include "app/store_gauges.hpp"

#include <limits>

#include "ops/hookd_metrics.hpp"

namespace hookd::app {
namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

double count(store::Store& store, store::DeliveryStatus status) {
  auto n = store.count_deliveries(status);
  return n ? static_cast<double>(*n) : kUnknown;
}

}  // namespace

void register_store_gauges(ops::Registry& registry, store::Store& store, Clock& clock,
                           const StoreHealth& health) {
  ops::StoreGauges gauges;
  gauges.queue_depth = [&store] {
    return count(store, store::DeliveryStatus::kPending) +
           count(store, store::DeliveryStatus::kDelivering);
  };
  gauges.dead_letters = [&store] { return count(store, store::DeliveryStatus::kDead); };
  gauges.dead_letter_oldest_age = [&store, &clock] {
    store::PageRequest first;
    first.limit = 1;  // the list is oldest first
    auto page = store.list_dead(store::DeadLetterFilter{}, first);
    if (!page) return kUnknown;
    if (page->data.empty()) return 0.0;
    return static_cast<double>(clock.now_ms() - page->data.front().updated_at) / 1000.0;
  };
  auto age_of = [&clock](const Result<std::optional<store::Millis>>& oldest) {
    if (!oldest) return kUnknown;
    if (!*oldest) return 0.0;
    return static_cast<double>(clock.now_ms() - **oldest) / 1000.0;
  };
  gauges.oldest_waiting = [&store, age_of] { return age_of(store.oldest_waiting_delivery()); };
  gauges.inbound_oldest_waiting = [&store, age_of] { return age_of(store.inbox_oldest_waiting()); };
  gauges.commit_failing = [&health] { return health.failing() ? 1.0 : 0.0; };
  ops::add_store_gauges(registry, std::move(gauges));
}

}  // namespace hookd::app
