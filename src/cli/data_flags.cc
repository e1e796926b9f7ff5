#include "cli/data_flags.h"

#include <algorithm>

#include "sluice/base/std_io.h"
#include "sluice/data/input_files.h"

namespace sluice::cli {

using data::ParseMode;
using data::RecordFormat;

Status CheckCpu() {
#if defined(SLUICE_SIMD_HASWELL) && (defined(__x86_64__) || defined(__i386__))
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi2") ||
      !__builtin_cpu_supports("pclmul")) {
    return Fail(ErrorCode::kUnimplemented,
                "this sluice was built for CPUs with AVX2 (SLUICE_SIMD=haswell); rebuild with "
                "-DSLUICE_SIMD=generic to run on this machine");
  }
#endif
  return Ok();
}

// The format of the inputs: the flag, or each file's own (they must agree).
Result<RecordFormat> ResolveFormat(const std::string& flag, const std::vector<std::string>& files) {
  if (flag != "auto") {
    SLUICE_ASSIGN_OR_RETURN(RecordFormat format, data::ParseRecordFormat(flag));
    if (format == RecordFormat::kParquet &&
        std::find(files.begin(), files.end(), "-") != files.end()) {
      return InvalidArgument(
          "-: Parquet is read from a file, not from standard input (its footer, at the end, "
          "says where everything is); write it to a file first (`sluice cat -` reads it whole)");
    }
    return format;
  }
  std::optional<RecordFormat> found;
  for (const std::string& f : files) {
    // Standard input cannot be read twice: its format is guessed from its name alone.
    std::string head = f == "-" ? std::string() : PeekFile(*LocalFileSystem(), f, 4096);
    RecordFormat guess = data::GuessRecordFormat(f, head);
    if (found && *found != guess) {
      return InvalidArgument(fmt::format(
          "{}: its format differs from the other inputs'; give --input-format to read them all "
          "alike",
          f));
    }
    found = guess;
  }
  return found.value_or(RecordFormat::kJsonLines);
}

Result<ParseMode> ParseModeName(const std::string& m) {
  std::string n = AsciiLower(m);
  if (n == "permissive") return ParseMode::kPermissive;
  if (n == "dropmalformed") return ParseMode::kDropMalformed;
  if (n == "failfast") return ParseMode::kFailFast;
  return InvalidArgument(fmt::format("unknown mode '{}' (permissive, dropmalformed, failfast)", m));
}

// The files the paths name (folders read as Spark reads them), through the local file system.
Result<std::vector<std::string>> InputFiles(const std::vector<std::string>& paths,
                                            const std::string& pattern) {
  return data::ListInputFiles(*LocalFileSystem(), paths, pattern);
}

}  // namespace sluice::cli
