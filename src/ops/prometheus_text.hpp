// Pieces of the Prometheus text exposition format 0.0.4: name checks, escaping and number
// formatting. Used by Registry::render; exposed for tests.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hookd::ops::prom {

bool valid_metric_name(std::string_view name);  // [a-zA-Z_:][a-zA-Z0-9_:]*
bool valid_label_name(std::string_view name);   // [a-zA-Z_][a-zA-Z0-9_]*, not "__" reserved

// HELP text: backslash and newline escaped.
std::string escape_help(std::string_view text);
// Label values: backslash, double quote and newline escaped.
std::string escape_label_value(std::string_view value);

// Shortest round-trip decimal ("0.005", "60", "1e-05"), "+Inf", "-Inf", "NaN".
std::string format_double(double v);

// `{a="x",b="y"}` or "" when there are no labels; extra (name, value) appended last (le).
std::string format_labels(const std::vector<std::string>& names,
                          const std::vector<std::string>& values, std::string_view extra_name = {},
                          std::string_view extra_value = {});

}  // namespace hookd::ops::prom
