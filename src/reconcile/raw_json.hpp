// Raw JSON spans: the exact bytes of one value inside a JSON text, found by JSON pointer
// (RFC 6901). The reconciler injects a feed item's body as the provider sent it: a parsed and
// re-serialised value would reorder keys, drop whitespace and rewrite numbers and escapes, so
// the forwarded bytes (and any signature or hash over them) would differ from the webhook's.
// The text must be valid JSON already (the caller parsed it, bounded in depth); on text that
// is not, the functions answer nullopt rather than guess. Where an object repeats a key, the
// last member wins, as in nlohmann::json. No I/O. Thread-safety: stateless functions.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace hookd::reconcile {

// The bytes of the value at `pointer` ("" = the whole value), without surrounding whitespace;
// nullopt when the pointer names nothing.
std::optional<std::string_view> raw_at_pointer(std::string_view json, std::string_view pointer);

// The bytes of each element of the array at `pointer`; nullopt when that is not an array.
std::optional<std::vector<std::string_view>> raw_array_elements(std::string_view json,
                                                                std::string_view pointer);

}  // namespace hookd::reconcile
