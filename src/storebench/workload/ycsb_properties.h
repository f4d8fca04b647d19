// YCSB's workload property files, read unchanged, and the CoreWorkload they
// describe.
//
// YCSB takes its workloads as Java .properties files (`-P workloads/workloada`)
// and single properties on its command line (`-p recordcount=1000`). This file
// parses that format as java.util.Properties does (the subset property files
// use: `key=value`, `key: value` and `key value`, comments from `#` or `!`,
// backslash continuations and escapes) and turns the properties into a
// YcsbWorkload with YCSB's defaults (CoreWorkload's property names and default
// values). It differs from YCSB on purpose in one way: YCSB ignores a property
// it does not know, so a typo silently runs the default; here an unknown
// property, a value of the wrong form and a property storebench does not
// implement are each an error naming it.
//
// Written by hand: no maintained C++ library reads Java property files, and
// the format is a few dozen lines.
// Thread-safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "storebench/base/status.h"

namespace storebench::workload {

// Properties by name, each with where it was set ("workloads/workloada:12", "-p").
struct YcsbProperties {
  std::map<std::string, std::string> values;
  std::map<std::string, std::string> origin;

  // Sets one; a later setting replaces an earlier one, as in YCSB.
  void Set(std::string key, std::string value, std::string where);
};

// Parses a property file's text into `into` (later files and -p override earlier ones).
// `source` names the file in messages.
Status ParseYcsbProperties(std::string_view text, std::string_view source, YcsbProperties* into);
// One `-p NAME=VALUE` assignment.
Status SetYcsbProperty(std::string_view assignment, YcsbProperties* into);

enum class YcsbRequestDistribution { kUniform, kZipfian, kLatest, kHotspot, kSequential, kExponential };
enum class YcsbLengthDistribution { kConstant, kUniform, kZipfian };

// CoreWorkload's parameters, YCSB's defaults where a property is absent.
struct YcsbWorkload {
  uint64_t recordcount = 0;     // required in practice: YCSB has no default (0 here)
  uint64_t operationcount = 0;  // likewise
  uint64_t insertstart = 0;
  std::optional<uint64_t> insertcount;  // set by YcsbWorkloadOf: default recordcount − insertstart
  std::string table = "usertable";
  uint32_t fieldcount = 10;
  uint32_t fieldlength = 100;
  uint32_t minfieldlength = 1;
  YcsbLengthDistribution fieldlengthdistribution = YcsbLengthDistribution::kConstant;
  std::string fieldnameprefix = "field";
  bool readallfields = true;
  bool readallfieldsbyname = false;  // how a binding names the fields: the same to storebench
  bool writeallfields = false;
  // Operation proportions as given; YCSB draws them in proportion to their sum.
  double readproportion = 0.95, updateproportion = 0.05, insertproportion = 0, scanproportion = 0,
         readmodifywriteproportion = 0;
  YcsbRequestDistribution requestdistribution = YcsbRequestDistribution::kUniform;
  uint32_t minscanlength = 1, maxscanlength = 1000;
  YcsbLengthDistribution scanlengthdistribution = YcsbLengthDistribution::kUniform;  // uniform or zipfian
  bool orderedinserts = false;  // insertorder: hashed (false) or ordered
  uint32_t zeropadding = 1;
  double hotspotdatafraction = 0.2, hotspotopnfraction = 0.8;
  double exponential_percentile = 95, exponential_frac = 0.8571428571;
  // The client's: threads and the target rate (0: as fast as it goes, YCSB's closed loop).
  uint32_t threadcount = 1;
  double target = 0;
  uint64_t maxexecutiontime_s = 0;  // 0: no limit
  // Accepted only at the value storebench behaves as: the core workload, no
  // insert retries (a failed insert is an error outcome), no integrity checks.
  bool core = true;
  uint32_t insertion_retry_limit = 0, insertion_retry_interval_s = 3;
  bool dataintegrity = false;
};

// The workload `p` describes. Every property must be one YCSB's core
// workload or client defines; one storebench does not implement (e.g.
// fieldlengthdistribution=histogram) is refused with its name.
StatusOr<YcsbWorkload> YcsbWorkloadOf(const YcsbProperties& p);

// "uniform", "zipfian", … as the property spells them.
std::string_view YcsbRequestDistributionName(YcsbRequestDistribution d);

}  // namespace storebench::workload
