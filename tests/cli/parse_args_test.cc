// Unit tests of the strict --alpha and --threads parsing of the lrelu tool.
#include "parse_args.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "errors.h"

namespace lrelu_cli {
namespace {

TEST(ParseArgsTest, AlphaAcceptsWhatStrtodReadsCompletely) {
  EXPECT_EQ(ParseAlpha("0.2"), 0.2);
  EXPECT_EQ(ParseAlpha("1e-3"), 1e-3);
  EXPECT_EQ(ParseAlpha("0x1.8p-3"), 0.1875);
  EXPECT_EQ(ParseAlpha("inf"), INFINITY);
  EXPECT_EQ(ParseAlpha("-inf"), -INFINITY);
  EXPECT_TRUE(std::isnan(ParseAlpha("nan")));
  EXPECT_TRUE(std::signbit(ParseAlpha("-0")));
  EXPECT_EQ(ParseAlpha("1e999"), INFINITY);
}

TEST(ParseArgsTest, AlphaRejectsJunk) {
  for (const char* bad : {"", " 1", "1 ", "0.1x", "abc", "--1", "1,5", "0x"}) {
    EXPECT_THROW(ParseAlpha(bad), UsageError) << bad;
  }
}

TEST(ParseArgsTest, Threads) {
  EXPECT_EQ(ParseThreads("0"), 0u);
  EXPECT_EQ(ParseThreads("3"), 3u);
  EXPECT_EQ(ParseThreads("100000"), 100000u);
  for (const char* bad : {"", "-1", "+1", "1.5", "x", " 1", "100001",
                          "99999999999999999999999"}) {
    EXPECT_THROW(ParseThreads(bad), UsageError) << bad;
  }
}

TEST(ParseArgsTest, QuoteKeepsMessagesOnOneLine) {
  EXPECT_EQ(Quote("a\nb'c"), "'a\\x0ab\\'c'");
  EXPECT_EQ(Quote("abcdef", 3), "'abc...'");
}

TEST(ParseArgsTest, CountHasBoundsAndNamesTheOption) {
  EXPECT_EQ(ParseCount("1", "--repeat", 1, 1000), 1u);
  EXPECT_EQ(ParseCount("1000", "--repeat", 1, 1000), 1000u);
  for (const char* bad : {"", "0", "1001", "-1", "1.0", " 5", "5x"}) {
    EXPECT_THROW(ParseCount(bad, "--repeat", 1, 1000), UsageError) << bad;
  }
  try {
    ParseCount("0", "--repeat", 1, 1000);
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--repeat '0' is too small (at least 1)");
  }
}

TEST(ParseArgsTest, SplitList) {
  EXPECT_EQ(SplitList("1", "--threads"), std::vector<std::string>({"1"}));
  EXPECT_EQ(SplitList("auto,vec4", "--variant"),
            std::vector<std::string>({"auto", "vec4"}));
  for (const char* bad : {"", ",", "1,", ",1", "1,,2", "1,1"}) {
    EXPECT_THROW(SplitList(bad, "--threads"), UsageError) << bad;
  }
}

}  // namespace
}  // namespace lrelu_cli
