// AlertSink: where a module reports a failure a person must see (SPEC §7, A41). The module
// calls raise() with a type from core/alert_types.hpp and a small JSON object of ids, statuses
// and reasons (never a payload or a secret); the composition root's implementation counts it,
// logs it and delivers it as an operational webhook. Modules hold an optional pointer (null:
// no alerts, as in most unit tests).
// Thread-safety: implementations must accept raise() from any thread; raise() never blocks on
// I/O (it queues).
#pragma once

#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace hookd::ops {

class AlertSink {
 public:
  virtual ~AlertSink() = default;
  virtual void raise(std::string_view type, nlohmann::json data) = 0;
};

// raise() when `sink` is set.
inline void raise_alert(AlertSink* sink, std::string_view type, nlohmann::json data) {
  if (sink != nullptr) sink->raise(type, std::move(data));
}

}  // namespace hookd::ops
