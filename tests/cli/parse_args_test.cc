// Unit tests of the strict --alpha and --threads parsing of the lrelu tool.
#include "parse_args.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

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
  for (const char* bad :
       {"", "-1", "+1", "1.5", "x", " 1", "100001", "99999999999999999999999"}) {
    EXPECT_THROW(ParseThreads(bad), UsageError) << bad;
  }
}

TEST(ParseArgsTest, QuoteKeepsMessagesOnOneLine) {
  EXPECT_EQ(Quote("a\nb'c"), "'a\\x0ab\\'c'");
  EXPECT_EQ(Quote("abcdef", 3), "'abc...'");
}

}  // namespace
}  // namespace lrelu_cli
