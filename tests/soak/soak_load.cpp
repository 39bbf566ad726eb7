#include "soak/soak_load.hpp"

#include <dirent.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "e2e/http_call.hpp"
#include "e2e/inbound_helpers.hpp"

namespace hookd::soak {

using namespace std::chrono_literals;
using testing::ReceivedRequest;
using testing::ReceiverBehavior;

void FaultyReceiver::attach(testing::TestReceiver& receiver, std::chrono::milliseconds slow) {
  receiver.set_handler([this, slow](const ReceivedRequest& r) { return choose(r, slow); });
}

ReceiverBehavior FaultyReceiver::choose(const ReceivedRequest& request,
                                        std::chrono::milliseconds slow) {
  // Outbound deliveries carry webhook-id; inbound forwards carry hookd's event id header.
  const std::string id =
      request.header("X-Hookd-Event-Id").value_or(request.header("webhook-id").value_or("?"));
  std::lock_guard lock(mutex_);
  const int roll = std::uniform_int_distribution<int>(0, 99)(rng_);
  auto count = [&](const char* kind) { ++answers_[kind]; };
  if (roll < 70) {
    count("200");
    ++clean_acks_[request.path + " " + id];
    return ReceiverBehavior::respond(200);
  }
  if (roll < 80) {
    count("503");
    return ReceiverBehavior::respond(503);
  }
  if (roll < 85) {
    count("500");
    return ReceiverBehavior::respond(500);
  }
  if (roll < 90) {
    count("slow");
    return ReceiverBehavior::respond(200).after(slow);
  }
  if (roll < 95) {
    count("reset");
    return ReceiverBehavior::reset();
  }
  count("drop");
  return ReceiverBehavior::process_then_drop();
}

std::size_t FaultyReceiver::clean_acks(const std::string& path, const std::string& id) const {
  std::lock_guard lock(mutex_);
  const auto it = clean_acks_.find(path + " " + id);
  return it == clean_acks_.end() ? 0 : it->second;
}

std::map<std::string, std::size_t> FaultyReceiver::answers() const {
  std::lock_guard lock(mutex_);
  return answers_;
}

Load::Load(Options options) : options_(std::move(options)) {
  for (std::size_t a = 0; a < options_.apps.size(); ++a) {
    threads_.emplace_back([this, a] { publish_loop(a); });
  }
  if (!options_.source.empty()) threads_.emplace_back([this] { inbound_loop(); });
}

Load::~Load() { stop(); }

void Load::stop() {
  stopping_ = true;
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

std::string Load::base_url() const {
  const std::uint16_t port = port_;
  if (port == 0) {
    std::this_thread::sleep_for(5ms);  // the daemon is down: wait for the restart
    return {};
  }
  return "http://127.0.0.1:" + std::to_string(port);
}

void Load::publish_loop(std::size_t app) {
  const std::string& app_id = options_.apps[app].id;
  for (int i = 0; i < options_.max_calls_per_thread && !stopping_; ++i) {
    const std::string base = base_url();
    if (base.empty()) continue;
    e2e::HttpCall call;
    call.method = "POST";
    call.url = base + "/api/v1/app/" + app_id + "/msg";
    call.body =
        nlohmann::json{{"eventType", "soak.tick"}, {"payload", {{"app", app_id}, {"i", i}}}}.dump();
    call.headers = {{"Authorization", "Bearer " + options_.token},
                    {"Content-Type", "application/json"}};
    call.timeout = 5s;
    const e2e::HttpReply reply = e2e::http_call(call);
    {
      std::lock_guard lock(mutex_);
      ++publish_statuses_[reply.status];
      if (reply.status == 202) published_[app_id].insert(reply.json().value("id", ""));
    }
    std::this_thread::sleep_for(options_.publish_pause);
  }
}

void Load::inbound_loop() {
  for (int i = 0; i < options_.max_calls_per_thread && !stopping_; ++i) {
    const std::string base = base_url();
    if (base.empty()) continue;
    const std::string event_id = "soak-evt-" + std::to_string(i);
    e2e::HttpCall call;
    call.method = "POST";
    call.url = base + "/in/" + options_.source;
    call.body = nlohmann::json{{"type", "soak.event"}, {"n", i}}.dump();
    call.headers = e2e::inbound::standard_headers(event_id, call.body);
    call.timeout = 5s;
    const e2e::HttpReply reply = e2e::http_call(call);
    {
      std::lock_guard lock(mutex_);
      ++inbound_statuses_[reply.status];
      if (reply.status == 200) received_.insert(event_id);
    }
    std::this_thread::sleep_for(options_.inbound_pause);
  }
}

std::map<std::string, std::set<std::string>> Load::published() const {
  std::lock_guard lock(mutex_);
  return published_;
}

std::set<std::string> Load::received() const {
  std::lock_guard lock(mutex_);
  return received_;
}

std::map<long, std::size_t> Load::publish_statuses() const {
  std::lock_guard lock(mutex_);
  return publish_statuses_;
}

std::map<long, std::size_t> Load::inbound_statuses() const {
  std::lock_guard lock(mutex_);
  return inbound_statuses_;
}

ProcessSample sample_process(pid_t pid) {
  ProcessSample sample;
  const std::string dir = "/proc/" + std::to_string(pid);
  std::ifstream status(dir + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) std::istringstream(line.substr(6)) >> sample.rss_kib;
  }
  if (DIR* fds = ::opendir((dir + "/fd").c_str())) {
    while (const dirent* entry = ::readdir(fds)) sample.fds += entry->d_name[0] != '.';
    ::closedir(fds);
  }
  return sample;
}

}  // namespace hookd::soak
