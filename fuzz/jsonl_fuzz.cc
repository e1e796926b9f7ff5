// Fuzz whole-file validation of JSON lines and CSV: the input is written to a file and run
// through data::ValidateFiles with small blocks (so block boundaries move), in the mode and
// format the first byte picks, on one and on two threads. The invariant must hold, the outputs
// must be the same for both thread counts, every output and quarantine line must be JSON, and
// the counts must match the lines.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sluice/base/json.h"
#include "sluice/data/file_runs.h"
#include "sluice/dialects/spark/spark.h"

namespace {

using namespace sluice;

std::string g_path;  // the scratch file, removed at exit

class Sink : public data::ByteSink {
 public:
  Status Write(std::string_view bytes) override {
    text.append(bytes);
    return Ok();
  }
  std::string text;
};

size_t JsonLines(const std::string& text) {
  size_t lines = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) std::abort();
    auto v = ParseJson(std::string_view(text).substr(pos, nl - pos));
    if (!v.has_value() || !v->is_object()) std::abort();
    ++lines;
    pos = nl + 1;
  }
  return lines;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size == 0) return 0;
  static const std::string& path = [] () -> const std::string& {
    char tmpl[] = "/tmp/sluice-fuzz-XXXXXX";
    int fd = ::mkstemp(tmpl);
    if (fd < 0) std::abort();
    ::close(fd);
    g_path = tmpl;
    std::atexit([] { ::unlink(g_path.c_str()); });
    return g_path;
  }();
  static const schema::SchemaPtr nested =
      dialects::spark::ReadDdl(
          "id BIGINT NOT NULL, name STRING, amount DECIMAL(10,2), ts TIMESTAMP, d DATE, "
          "tags ARRAY<STRING>, attrs MAP<STRING, INT>, addr STRUCT<city: STRING, zip: INT>")
          ->value;
  static const schema::SchemaPtr flat =
      dialects::spark::ReadDdl("id INT NOT NULL, name STRING, amount DOUBLE, d DATE")->value;
  const uint8_t control = bytes[0];
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  std::fwrite(bytes + 1, 1, size - 1, f);
  std::fclose(f);

  data::ValidateRunOptions o;
  o.mode = (control & 3) == 0   ? data::ParseMode::kDropMalformed
           : (control & 3) == 1 ? data::ParseMode::kFailFast
                                : data::ParseMode::kPermissive;
  const bool csv = (control & 4) != 0;
  o.format = csv ? data::RecordFormat::kCsv
                 : ((control & 8) != 0 ? data::RecordFormat::kJson : data::RecordFormat::kJsonLines);
  o.csv.header = (control & 16) == 0;
  o.csv.reader.multi_line = (control & 32) != 0;
  o.block_bytes = 4096;
  std::string first_out;
  std::string first_quarantine;
  for (unsigned threads : {1u, 2u}) {
    o.threads = threads;
    Sink out;
    Sink quarantine;
    auto report = data::ValidateFiles({path}, csv ? flat : nested, o, out, quarantine);
    if (!report.has_value()) {
      // The one input error a file can cause: a CSV header that is not UTF-8.
      if (csv && report.error().message().find("header is not valid UTF-8") != std::string::npos) {
        return 0;
      }
      std::abort();
    }
    if (!report->invariant_holds()) std::abort();
    if (JsonLines(out.text) != report->valid) std::abort();
    if (JsonLines(quarantine.text) != report->quarantined) std::abort();
    if (report->rescued > 0 && o.mode != data::ParseMode::kPermissive) std::abort();
    if (threads == 1) {
      first_out = out.text;
      first_quarantine = quarantine.text;
    } else if (out.text != first_out || quarantine.text != first_quarantine) {
      std::abort();
    }
  }
  return 0;
}
