#include "core/outcome_window.hpp"

#include <algorithm>

namespace hookd {

OutcomeWindow::OutcomeWindow(Duration length)
    : width_(std::max<Duration::rep>(1, length.count() / kBuckets)) {}

std::int64_t OutcomeWindow::index_of(TimePoint t) const {
  return t.time_since_epoch().count() / width_.count();
}

bool OutcomeWindow::live(const Bucket& bucket, TimePoint now) const {
  return bucket.index >= 0 && bucket.index > index_of(now) - kBuckets &&
         bucket.index <= index_of(now);
}

void OutcomeWindow::add(TimePoint now, bool failed) {
  const std::int64_t index = index_of(now);
  Bucket& bucket = buckets_[static_cast<std::size_t>(index % kBuckets)];
  if (bucket.index != index) bucket = Bucket{index, now, 0, 0};
  ++bucket.attempts;
  if (failed) ++bucket.failures;
}

void OutcomeWindow::clear() { buckets_.fill(Bucket{}); }

WindowTotals OutcomeWindow::totals(TimePoint now) const {
  WindowTotals totals;
  for (const Bucket& bucket : buckets_) {
    if (!live(bucket, now)) continue;
    totals.attempts += bucket.attempts;
    totals.failures += bucket.failures;
  }
  return totals;
}

Duration OutcomeWindow::span(TimePoint now) const {
  std::optional<TimePoint> first;
  for (const Bucket& bucket : buckets_) {
    if (live(bucket, now) && (!first || bucket.first < *first)) first = bucket.first;
  }
  return first ? std::max(Duration::zero(), now - *first) : Duration::zero();
}

}  // namespace hookd
