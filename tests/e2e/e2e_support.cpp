#include "e2e/e2e_support.hpp"

#include <sstream>

namespace hookd::e2e {

std::string test_config(const std::map<std::string, std::string>& overrides, bool allow_loopback) {
  std::map<std::string, std::string> delivery = {{"connect_timeout", "\"500ms\""},
                                                 {"timeout", "\"2s\""},
                                                 {"max_attempts", "6"},
                                                 {"schedule", R"(["100ms", "200ms", "300ms"])"},
                                                 {"lease_duration", "\"3s\""},
                                                 {"poll_interval", "\"100ms\""},
                                                 {"circuit_failure_threshold", "0"}};
  for (const auto& [key, value] : overrides) {
    if (value.empty()) {
      delivery.erase(key);
    } else {
      delivery[key] = value;
    }
  }
  std::ostringstream out;
  out << "[server]\nshutdown_grace = \"5s\"\n\n[delivery]\n";
  for (const auto& [key, value] : delivery) out << key << " = " << value << "\n";
  if (allow_loopback) out << "\n[ssrf]\nallowed_subnets = [\"127.0.0.0/8\"]\n";
  out << "\n[logging]\nlevel = \"info\"\n";
  return out.str();
}

void ArrivalLog::attach(testing::TestReceiver& receiver, Script script) {
  receiver.set_handler([this, script = std::move(script)](const testing::ReceivedRequest& r) {
    {
      std::lock_guard lock(mutex_);
      arrivals_.push_back({r.header("webhook-id").value_or(""), r.path, r.body, Steady::now()});
    }
    return script ? script(r) : testing::ReceiverBehavior::respond(200);
  });
}

std::vector<Arrival> ArrivalLog::all() const {
  std::lock_guard lock(mutex_);
  return arrivals_;
}

std::vector<Steady::time_point> ArrivalLog::times_of(const std::string& webhook_id) const {
  std::lock_guard lock(mutex_);
  std::vector<Steady::time_point> out;
  for (const auto& a : arrivals_) {
    if (a.webhook_id == webhook_id) out.push_back(a.at);
  }
  return out;
}

std::size_t ArrivalLog::size() const {
  std::lock_guard lock(mutex_);
  return arrivals_.size();
}

}  // namespace hookd::e2e
