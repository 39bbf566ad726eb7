#include "store/row_codec.hpp"

#include <nlohmann/json.hpp>

namespace hookd::store {

std::optional<std::string> encode_list(const std::optional<std::vector<std::string>>& list) {
  if (!list) return std::nullopt;
  return encode_list(*list);
}

std::string encode_list(const std::vector<std::string>& list) {
  return nlohmann::json(list).dump();
}

std::optional<std::vector<std::string>> decode_list(const std::optional<std::string>& json) {
  if (!json) return std::nullopt;
  auto parsed = nlohmann::json::parse(*json, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) return std::vector<std::string>{};
  std::vector<std::string> out;
  for (const auto& item : parsed) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::string encode_headers(const Headers& headers) { return nlohmann::json(headers).dump(); }

Headers decode_headers(const std::string& json) {
  auto parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  Headers out;
  if (!parsed.is_object()) return out;
  for (const auto& [k, v] : parsed.items()) {
    if (v.is_string()) out[k] = v.get<std::string>();
  }
  return out;
}

}  // namespace hookd::store
