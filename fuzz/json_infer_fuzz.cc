// Fuzz JSON inference: the input's lines are records, inferred by the two walks over the same
// options (the first byte picks them): simdjson's, which checks each record and merges only
// those that change the type so far, and the scanner's (every record, as records of 16 MiB and
// more are read), which merges every record. No crash, and after every record the same verdict,
// the same malformed count and the same type.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sluice/data/json_infer.h"

namespace {

using namespace sluice;

data::JsonInferOptions OptionsFor(uint8_t pick) {
  data::JsonInferOptions o;
  o.prefers_decimal = (pick & 1) != 0;
  o.primitives_as_string = (pick & 2) != 0;
  o.infer_timestamp = (pick & 4) != 0;
  o.drop_field_if_all_null = (pick & 8) != 0;
  switch ((pick >> 4) % 3) {
    case 0:
      o.mode = data::ParseMode::kPermissive;
      break;
    case 1:
      o.mode = data::ParseMode::kDropMalformed;
      break;
    default:
      o.mode = data::ParseMode::kFailFast;
  }
  o.max_depth = 64;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  data::JsonInferOptions simd = OptionsFor(data[0]);
  data::JsonInferOptions scan = simd;
  simd.scanner_min_record_bytes = SIZE_MAX;
  scan.scanner_min_record_bytes = 0;
  auto a = data::JsonInferrer::Make(simd);
  auto b = data::JsonInferrer::Make(scan);
  if (!a.has_value() || !b.has_value()) std::abort();
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  while (!rest.empty()) {
    const size_t nl = rest.find('\n');
    const std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    const Status sa = a->AddRecord(line);
    const Status sb = b->AddRecord(line);
    if (sa.has_value() != sb.has_value()) std::abort();
    if (!sa.has_value()) {
      if (sa.error().message() != sb.error().message()) std::abort();
      return 0;
    }
    if (a->malformed_records() != b->malformed_records()) std::abort();
    if (a->FinishType().ToString() != b->FinishType().ToString()) std::abort();
  }
  if (a->Finish().has_value() != b->Finish().has_value()) std::abort();
  return 0;
}
