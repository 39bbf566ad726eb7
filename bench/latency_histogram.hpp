// LatencyHistogram: a fixed-size log-linear histogram of durations in nanoseconds for the
// benchmark tools (load generator and sink). Every power of two is split into 128 buckets,
// so a reported percentile is within 1% above the true value; min, max, count and sum are
// exact. Recording is O(1) with no allocation after construction.
// Thread-safety: none; give each thread its own histogram and merge() them, or lock.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>

namespace hookd::bench {

class LatencyHistogram {
 public:
  LatencyHistogram() : counts_(std::make_unique<Buckets>()) { counts_->fill(0); }
  LatencyHistogram(LatencyHistogram&&) noexcept = default;
  LatencyHistogram& operator=(LatencyHistogram&&) noexcept = default;

  void record(std::uint64_t ns) {
    ++(*counts_)[index_of(ns)];
    ++count_;
    sum_ += ns;
    min_ = std::min(min_, ns);
    max_ = std::max(max_, ns);
  }

  void merge(const LatencyHistogram& other) {
    for (std::size_t i = 0; i < kBuckets; ++i) (*counts_)[i] += (*other.counts_)[i];
    count_ += other.count_;
    sum_ += other.sum_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
  }

  // The smallest recorded-bucket upper bound at or above the q-quantile (0 < q <= 1),
  // capped at the exact maximum; 0 when empty.
  std::uint64_t percentile(double q) const {
    if (count_ == 0) return 0;
    auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_)));
    rank = std::clamp<std::uint64_t>(rank, 1, count_);
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < kBuckets; ++i) {
      seen += (*counts_)[i];
      if (seen >= rank) return std::min(upper_bound_of(i), max_);
    }
    return max_;
  }

  std::uint64_t count() const { return count_; }
  std::uint64_t max() const { return count_ ? max_ : 0; }
  std::uint64_t min() const { return count_ ? min_ : 0; }
  double mean() const { return count_ ? static_cast<double>(sum_) / count_ : 0.0; }

 private:
  static constexpr int kSubBits = 7;
  static constexpr std::uint64_t kSub = 1u << kSubBits;  // buckets per power of two
  static constexpr std::size_t kBuckets = kSub + (64 - kSubBits) * kSub;
  using Buckets = std::array<std::uint64_t, kBuckets>;

  static std::size_t index_of(std::uint64_t v) {
    if (v < kSub) return v;  // exact below 128 ns
    const int exponent = std::bit_width(v) - 1;
    const int shift = exponent - kSubBits;
    const std::uint64_t top = v >> shift;  // in [128, 256)
    return kSub + static_cast<std::size_t>(shift) * kSub + (top - kSub);
  }

  static std::uint64_t upper_bound_of(std::size_t index) {
    if (index < kSub) return index;
    const std::size_t shift = (index - kSub) / kSub;
    const std::uint64_t top = kSub + (index - kSub) % kSub;
    return ((top + 1) << shift) - 1;
  }

  std::unique_ptr<Buckets> counts_;
  std::uint64_t count_ = 0;
  std::uint64_t sum_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
};

}  // namespace hookd::bench
