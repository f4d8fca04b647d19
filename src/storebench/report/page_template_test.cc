#include "storebench/report/page_template.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

namespace storebench::report {

extern const std::string_view kReportPage;

namespace {

TEST(PageTemplate, FillsValuesAndKeepsABlockOnlyWhenItsValueIsNotEmpty) {
  const std::string_view t = "{{! a note }}\n<h1>{{t}}</h1>\n{{?v}}<p>{{v}}</p>\n{{/v}}end";
  auto with = FillTemplate(t, {{"t", "T"}, {"v", "V"}});
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  EXPECT_EQ(*with, "<h1>T</h1>\n<p>V</p>\nend");
  auto without = FillTemplate(t, {{"t", "T"}, {"v", ""}});
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(*without, "<h1>T</h1>\nend");
  // A value is never read as template: braces in it stay as they are.
  auto braces = FillTemplate("{{t}}", {{"t", "{{v}}"}});
  ASSERT_TRUE(braces.ok());
  EXPECT_EQ(*braces, "{{v}}");
}

TEST(PageTemplate, ATemplateAndValuesThatDisagreeAreAnError) {
  EXPECT_FALSE(FillTemplate("{{missing}}", {}).ok());
  EXPECT_FALSE(FillTemplate("{{?v}}open", {{"v", "x"}}).ok());
  EXPECT_FALSE(FillTemplate("{{/v}}", {{"v", "x"}}).ok());
  EXPECT_FALSE(FillTemplate("a{{/}}b", {}).ok()) << "a close with no block open ends nothing";
  EXPECT_FALSE(FillTemplate("{{v", {{"v", "x"}}).ok());
}

// The embedded page names exactly the values html_report.cc gives it.
TEST(PageTemplate, TheReportPageUsesTheValuesTheRendererGives) {
  std::set<std::string> names;
  const std::string page(kReportPage);
  const std::regex tag(R"(\{\{[?/]?([a-z_]+)\}\})");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), tag); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1]);
  EXPECT_EQ(names, (std::set<std::string>{"title", "style", "verdict", "summary", "causes", "chart_js_package",
                                          "chart_js_path", "chart_js", "data", "script"}));
  std::map<std::string, std::string_view> values;
  for (const auto& n : names) values[n] = "x";
  auto filled = FillTemplate(kReportPage, values);
  ASSERT_TRUE(filled.ok()) << filled.status().ToString();
  EXPECT_EQ(filled->rfind("<!DOCTYPE html>", 0), 0u) << "the comments go with their line breaks";
}

}  // namespace
}  // namespace storebench::report
