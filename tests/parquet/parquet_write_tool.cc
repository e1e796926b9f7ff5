// A test tool: write JSON records to a Parquet file the way `sluice validate --out x.parquet`
// will, through RecordValidator and ParquetRecordSink, so the peer readers (read.mjs) can check
// what sluice writes.
//
//   parquet_write_tool SCHEMA.ddl IN.jsonl OUT.parquet [--codec C] [--level N] [--no-dictionary]
//       [--threads N] [--row-group-bytes N] [--max-rows-per-row-group N] [--page-bytes N]
//       [--segment-bytes N] [--rescued-column NAME] [--no-validate] [--stats]
//
// C: uncompressed, snappy (default), gzip, zstd, lz4_raw. Records are validated first (a record
// that is not valid fails the run, naming its line) unless --no-validate, which hands the lines
// to the sink as they are (they must then be validator output). --stats prints rows, bytes and
// seconds to standard error. Exit 0 on success, 1 on an error, 2 for usage.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/base/file_system.h"
#include "sluice/data/parquet_sink.h"
#include "sluice/data/validator.h"
#include "sluice/dialects/spark/spark.h"

namespace {

using namespace sluice;  // NOLINT: a test tool

struct Args {
  std::string schema;
  std::string in;
  std::string out;
  parquet::WriterOptions writer;
  std::string rescued_column;
  bool validate = true;
  bool stats = false;
};

int Usage() {
  std::fprintf(stderr,
               "usage: parquet_write_tool SCHEMA.ddl IN.jsonl OUT.parquet [--codec C] [--level N]"
               " [--no-dictionary] [--threads N] [--row-group-bytes N]"
               " [--max-rows-per-row-group N] [--page-bytes N] [--segment-bytes N]"
               " [--rescued-column NAME]"
               " [--no-validate] [--stats]\n");
  return 2;
}

bool ParseCodec(std::string_view name, parquet::Codec* codec) {
  const std::pair<std::string_view, parquet::Codec> codecs[] = {
      {"uncompressed", parquet::Codec::kUncompressed},
      {"snappy", parquet::Codec::kSnappy},
      {"gzip", parquet::Codec::kGzip},
      {"zstd", parquet::Codec::kZstd},
      {"lz4_raw", parquet::Codec::kLz4Raw},
  };
  for (const auto& [n, c] : codecs) {
    if (n == name) {
      *codec = c;
      return true;
    }
  }
  return false;
}

bool ParseArgs(int argc, char** argv, Args* args) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--codec") {
      const char* v = value();
      if (v == nullptr || !ParseCodec(v, &args->writer.columns.codec)) return false;
    } else if (a == "--level") {
      const char* v = value();
      if (v == nullptr) return false;
      args->writer.columns.compression_level = std::atoi(v);
    } else if (a == "--no-dictionary") {
      args->writer.columns.dictionary = false;
    } else if (a == "--threads") {
      const char* v = value();
      if (v == nullptr) return false;
      args->writer.threads = std::atoi(v);
    } else if (a == "--row-group-bytes") {
      const char* v = value();
      if (v == nullptr) return false;
      args->writer.row_group_bytes = std::strtoull(v, nullptr, 10);
    } else if (a == "--max-rows-per-row-group") {
      const char* v = value();
      if (v == nullptr) return false;
      args->writer.max_rows_per_row_group = std::strtoll(v, nullptr, 10);
    } else if (a == "--page-bytes") {
      const char* v = value();
      if (v == nullptr) return false;
      args->writer.columns.page_bytes = std::strtoull(v, nullptr, 10);
    } else if (a == "--segment-bytes") {
      const char* v = value();
      if (v == nullptr) return false;
      args->writer.segment_bytes = std::strtoull(v, nullptr, 10);
      args->writer.max_pending_bytes = args->writer.segment_bytes;
    } else if (a == "--rescued-column") {
      const char* v = value();
      if (v == nullptr) return false;
      args->rescued_column = v;
    } else if (a == "--no-validate") {
      args->validate = false;
    } else if (a == "--stats") {
      args->stats = true;
    } else if (a.starts_with("--")) {
      return false;
    } else {
      positional.emplace_back(a);
    }
  }
  if (positional.size() != 3) return false;
  args->schema = positional[0];
  args->in = positional[1];
  args->out = positional[2];
  return true;
}

int Failed(const Error& e) {
  std::fprintf(stderr, "parquet_write_tool: %s\n", e.message().c_str());
  return 1;
}

// Validate (or pass through) every whole line of `block`, then shred the output; returns the
// bytes of `block` that were consumed (up to its last newline, or all of it at the end).
Result<size_t> WriteBlock(std::string_view block, bool last, data::RecordValidator* validator,
                          data::ParquetRecordSink& sink, std::string& out, int64_t* line) {
  if (validator == nullptr) {
    // The lines go to the sink as they are: up to the last newline, or all of it at the end.
    const size_t end = last ? block.size() : block.rfind('\n') + 1;  // npos + 1 == 0
    SLUICE_TRY(sink.AppendLines(block.substr(0, end)));
    return end;
  }
  size_t pos = 0;
  out.clear();
  while (pos < block.size()) {
    size_t nl = block.find('\n', pos);
    if (nl == std::string_view::npos) {
      if (!last) break;
      nl = block.size();
    }
    std::string_view text = block.substr(pos, nl - pos);
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    pos = nl + 1;
    ++*line;
    if (text.find_first_not_of(" \t") == std::string_view::npos) continue;
    const data::RecordResult& r = validator->CheckJson(text, "input", out);
    if (r.status != data::RecordStatus::kValid && r.status != data::RecordStatus::kRescued) {
      std::string why = r.error;
      for (const data::RecordViolation& v : r.violations) {
        why += (why.empty() ? "" : "; ") + v.path + ": " +
               std::string(data::ViolationKindName(v.kind)) + " " + v.detail;
      }
      return InvalidArgument("line " + std::to_string(*line) + " is not valid: " + why);
    }
  }
  SLUICE_TRY(sink.AppendLines(out));
  return std::min(pos, block.size());
}

int Run(const Args& args) {
  auto fs = LocalFileSystem();
  auto ddl = fs->ReadFile(args.schema);
  if (!ddl) return Failed(ddl.error());
  auto schema = dialects::spark::ReadDdl(*ddl);
  if (!schema) return Failed(schema.error());
  data::ParquetPlanOptions plan_options;
  plan_options.rescued_column = args.rescued_column;
  auto plan = data::ParquetRecordPlan::Compile(schema->value, plan_options);
  if (!plan) return Failed(plan.error());
  std::unique_ptr<data::RecordValidator> validator;
  if (args.validate) {
    data::ValidatorOptions vo;
    vo.rescued_column = args.rescued_column;
    auto vplan = data::ValidationPlan::Compile(schema->value, vo);
    if (!vplan) return Failed(vplan.error());
    validator = std::make_unique<data::RecordValidator>(*vplan);
  }
  WriteOptions wo;
  wo.sync = false;
  auto file = fs->OpenWritable(args.out, wo);
  if (!file) return Failed(file.error());
  auto sink = data::ParquetRecordSink::Open(*plan, std::move(*file), args.writer);
  if (!sink) return Failed(sink.error());
  auto in = fs->OpenSequential(args.in);
  if (!in) return Failed(in.error());

  const auto start = std::chrono::steady_clock::now();
  // Blocks of 4 MiB cut after a newline; 64 bytes of padding stay readable past any line, as
  // the validator needs.
  constexpr size_t kBlock = size_t{4} << 20;
  constexpr size_t kPadding = 64;
  std::string buffer(kBlock + kPadding, '\0');
  std::string out;
  size_t filled = 0;
  int64_t line = 0;
  int64_t bytes_in = 0;
  bool eof = false;
  while (!eof || filled > 0) {
    if (!eof && filled + kPadding >= buffer.size() / 2) {
      // A line longer than half the buffer: make room.
      buffer.resize(buffer.size() * 2);
    }
    if (!eof) {
      auto n = (*in)->Read(buffer.data() + filled, buffer.size() - kPadding - filled);
      if (!n) return Failed(n.error());
      if (*n == 0) eof = true;
      filled += *n;
      bytes_in += static_cast<int64_t>(*n);
    }
    auto used = WriteBlock(std::string_view(buffer.data(), filled), eof, validator.get(), **sink,
                           out, &line);
    if (!used) return Failed(used.error());
    std::memmove(buffer.data(), buffer.data() + *used, filled - *used);
    filled -= *used;
    if (eof && *used == 0) break;
  }
  Status closed = (*sink)->Close();
  if (!closed) return Failed(closed.error());
  if (args.stats) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, "rows %lld  in %lld bytes  out %lld bytes  %.3f s  %.1f MB/s\n",
                 static_cast<long long>((*sink)->num_rows()), static_cast<long long>(bytes_in),
                 static_cast<long long>((*sink)->bytes_written()), seconds,
                 static_cast<double>(bytes_in) / 1e6 / seconds);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (!ParseArgs(argc, argv, &args)) return Usage();
  return Run(args);
}
