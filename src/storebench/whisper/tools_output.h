// Output formats of the whisper-* scripts (internal to tools.cc). Pure, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storebench/whisper/format.h"

namespace storebench::whisper::tools {

// whisper-info's plain text ("key: value" lines, one block per archive).
std::string InfoText(const Header& h, uint64_t file_size);
// whisper-info --json (json.dumps with indent=2).
std::string InfoJson(const Header& h, uint64_t file_size);
// whisper-info FIELD: print(info[field]); nullopt for an unknown field.
std::optional<std::string> InfoField(const Header& h, uint64_t file_size, const std::string& field);
// The valid field names, comma-separated, in whisper-info's order.
std::string InfoFieldNames();
// whisper-dump's "Meta data:" and "Archive N info:" blocks.
std::string DumpHeaderText(const Header& h);
// One whisper-dump data line: "%d: %s, %10.35g".
std::string DumpPointLine(uint32_t index, const std::string& time, double value);
// str(values) of a Python list of floats and None, with None as null (whisper-fetch --json).
std::string PyListJson(const std::vector<std::optional<double>>& values);
// time.ctime(t) or time.strftime(format, time.localtime(t)).
std::string FormatTime(int64_t t, const std::string* format);
// whisper-create's byte_format(): "%.3fbytes|KB|MB|GB".
std::string ByteFormat(double num);

}  // namespace storebench::whisper::tools
