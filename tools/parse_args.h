// Strict parsing of numeric command-line values: the whole text must be the
// number, so typos such as "0.1x" or "" are errors instead of silently
// becoming something else.
#ifndef LRELU_TOOLS_PARSE_ARGS_H_
#define LRELU_TOOLS_PARSE_ARGS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace lrelu_cli {

// alpha: anything strtod reads completely ("0.2", "-0", "1e-3", "inf",
// "-inf", "nan", "0x1.8p-3"). Values beyond double's range become +-inf or
// 0 as strtod makes them. Throws UsageError.
double ParseAlpha(const std::string& text);

// threads: a non-negative decimal integer (0 = all hardware threads).
// Throws UsageError.
std::size_t ParseThreads(const std::string& text);

// A count for `option` (named in messages, e.g. "--repeat"): a decimal
// integer in [min, max]. Throws UsageError.
std::size_t ParseCount(const std::string& text, const std::string& option,
                       std::size_t min, std::size_t max);

// A comma-separated list for `option` ("1,2,4"): no empty items, no
// duplicates. Throws UsageError.
std::vector<std::string> SplitList(const std::string& text,
                                   const std::string& option);

}  // namespace lrelu_cli

#endif  // LRELU_TOOLS_PARSE_ARGS_H_
