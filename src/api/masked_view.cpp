#include "api/masked_view.hpp"

namespace hookd::api {

bool wants_masked_view(const net::HttpRequest& request) {
  const auto value = request.headers.get(kMaskHeader);
  return value && (*value == "1" || *value == "true");
}

void mask_view_in_place(const ops::Masker& masker, nlohmann::json& node) {
  if (node.is_array()) {
    for (auto& item : node) mask_view_in_place(masker, item);
    return;
  }
  if (node.is_string()) {
    node = masker.mask_text(node.get_ref<const std::string&>());
    return;
  }
  if (!node.is_object()) return;
  for (auto& [key, value] : node.items()) {
    if (key == "payload" && (value.is_object() || value.is_array())) {
      masker.mask_json_in_place(value);  // the configured pointers are payload-relative
    } else if ((key == "payload" || key == "response") && value.is_string()) {
      value = masker.mask_json_text(value.get_ref<const std::string&>());
    } else if (value.is_string()) {
      value = masker.mask_header_value(key, value.get_ref<const std::string&>());
    } else {
      mask_view_in_place(masker, value);
    }
  }
}

net::HttpResponse masked_response(const ops::Masker& masker, net::HttpResponse response) {
  const auto type = response.headers.get("Content-Type").value_or("");
  if (response.file_body || type.find("json") == std::string_view::npos) return response;
  auto document = nlohmann::json::parse(response.body, nullptr, false);
  if (document.is_discarded()) return response;
  mask_view_in_place(masker, document);
  response.body = document.dump();
  return response;
}

}  // namespace hookd::api
