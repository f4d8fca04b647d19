// FillTemplate: the HTML report's page skeleton (html/report.html) is a
// template file embedded at build time; this fills it. The syntax is a small
// subset of Mustache's:
//   {{name}}              the value of `name`, as given (the caller escapes it
//                         for where it goes: text, attribute, script)
//   {{?name}}...{{/name}}  the text between, only when `name` is not empty
//   {{! comment }}         nothing; a line break right after it goes too (the
//                         comment ends at its first closing braces)
// A name the values do not hold, or a block left open, is an error: the
// template and the code that fills it disagree.
//
// Written by hand: Debian's libctemplate would do it, but one page of eleven
// values does not warrant a library in every install; these 60 lines do.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "storebench/base/status.h"

namespace storebench::report {

StatusOr<std::string> FillTemplate(std::string_view tmpl, const std::map<std::string, std::string_view>& values);

}  // namespace storebench::report
