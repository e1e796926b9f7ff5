// For tests only: checking that work grows linearly with its input, and the wide and hostile
// schemas such checks feed it (many columns, symbols, branches, references; long paths), written
// in the languages sluice reads. Header-only, so that every module's tests can include it.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

namespace sluice::scaling {

/// Debug and sanitizer builds run about ten times slower; the absolute bounds allow for that.
#if defined(__has_feature)
#define SLUICE_TESTING_ASAN __has_feature(address_sanitizer)
#elif defined(__SANITIZE_ADDRESS__)
#define SLUICE_TESTING_ASAN 1
#else
#define SLUICE_TESTING_ASAN 0
#endif
#if defined(NDEBUG) && !SLUICE_TESTING_ASAN
inline constexpr double kSlowdown = 1;
#else
inline constexpr double kSlowdown = 10;
#endif
#undef SLUICE_TESTING_ASAN

/// CPU seconds used so far by this process and by its children that have exited: unlike the
/// wall clock, it does not grow while other work on the machine has the processor.
inline double CpuSeconds() {
  timespec self{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &self);
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return static_cast<double>(self.tv_sec) + self.tv_nsec / 1e9 + seconds(children.ru_utime) +
         seconds(children.ru_stime);
}

/// The CPU seconds `task(n)` takes (its processes included), the best of `runs`.
inline double BestSeconds(const std::function<void(size_t)>& task, size_t n, int runs = 3) {
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    const double start = CpuSeconds();
    task(n);
    best = std::min(best, CpuSeconds() - start);
  }
  return best;
}

/// Succeeds when `task` scales linearly from `n` to 4n: task(4n) takes at most `max_ratio`
/// times as long as task(n) (a quadratic path takes 16 times as long; 12 leaves room for noise,
/// caches and n log n), and at most `max_seconds` (times kSlowdown in debug and sanitizer
/// builds). Times under a millisecond count as one, so pick `n` large enough; and a quadratic
/// path shows only where it outweighs the linear work, so the task should be little else.
/// `fixed_seconds`, a cost every run pays whatever its size (starting processes), is taken off
/// both times before they are compared.
///
/// When n fits the processor's caches and 4n does not, the step from one to the other costs
/// more than four times as much for a linear task too, by more or less on different machines.
/// So a ratio over `max_ratio` is checked once more, from 4n to 16n, where both are out of the
/// caches: a linear task grows by about four there, a quadratic one by sixteen again.
inline ::testing::AssertionResult ScalesLinearly(const std::function<void(size_t)>& task, size_t n,
                                                 double max_seconds = 5, double max_ratio = 12,
                                                 double fixed_seconds = 0) {
  // The best of a few runs each: the first small one also warms up (first-use allocations, page
  // faults), and a run disturbed by other work is not the one compared.
  const double small = BestSeconds(task, n, 3) - fixed_seconds;
  const double large = BestSeconds(task, 4 * n, 2) - fixed_seconds;
  // Below a millisecond the timer and the allocator's moods dominate: compare from there.
  const double ratio = large / std::max(small, 1e-3);
  if (std::getenv("SLUICE_SCALING_VERBOSE") != nullptr) {
    std::fprintf(stderr, "scaling: n = %zu: %.4f s; 4n: %.4f s (%.1fx)\n", n, small, large, ratio);
  }
  if (large > max_seconds * kSlowdown) {
    return ::testing::AssertionFailure()
           << fmt::format("n = {}: {:.4f} s; 4n = {}: {:.4f} s (at most {:.0f} s)", n, small, 4 * n,
                          large, max_seconds * kSlowdown);
  }
  if (ratio <= max_ratio) return ::testing::AssertionSuccess();
  const double larger = BestSeconds(task, 16 * n, 2) - fixed_seconds;
  const double ratio_out = larger / std::max(large, 1e-3);
  if (ratio_out <= max_ratio) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << fmt::format(
             "n = {}: {:.4f} s; 4n: {:.4f} s ({:.1f}x); 16n: {:.4f} s ({:.1f}x; at most {:.0f}x)",
             n, small, large, ratio, larger, ratio_out, max_ratio);
}

/// The name of column `i` in the generated schemas: "c000012".
inline std::string ColumnName(size_t i) { return fmt::format("c{:06d}", i); }

/// A Spark DDL column list of `n` columns of mixed types, every third NOT NULL; `reversed`
/// lists them last to first.
inline std::string WideDdl(size_t n, bool reversed = false) {
  static const char* const kTypes[] = {"BIGINT", "STRING", "DOUBLE", "INT", "BOOLEAN", "DATE"};
  std::string out;
  for (size_t k = 0; k < n; ++k) {
    size_t i = reversed ? n - 1 - k : k;
    if (k > 0) out += ", ";
    out += fmt::format("{} {}{}", ColumnName(i), kTypes[i % 6], i % 3 == 0 ? " NOT NULL" : "");
  }
  return out;
}

/// An Avro record of `n` fields of mixed types; fields from `optional_from` on are
/// ["null", T] with default null.
inline std::string WideAvro(size_t n, size_t optional_from = static_cast<size_t>(-1)) {
  static const char* const kTypes[] = {"\"long\"", "\"string\"", "\"double\"", "\"int\"",
                                       "\"boolean\""};
  std::string out = R"({"type":"record","name":"wide","namespace":"t","fields":[)";
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    if (i >= optional_from) {
      out += fmt::format(R"({{"name":"{}","type":["null",{}],"default":null}})", ColumnName(i),
                         kTypes[i % 5]);
    } else {
      out += fmt::format(R"({{"name":"{}","type":{}}})", ColumnName(i), kTypes[i % 5]);
    }
  }
  out += "]}";
  return out;
}

/// A JSON Schema object with `n` properties of mixed types, all of them `required` if asked.
inline std::string WideJsonSchema(size_t n, bool required) {
  static const char* const kTypes[] = {R"({"type":"integer"})", R"({"type":"string"})",
                                       R"({"type":"number"})", R"({"type":"boolean"})"};
  std::string out = R"({"$schema":"https://json-schema.org/draft/2020-12/schema",)"
                    R"("type":"object","properties":{)";
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    out += fmt::format(R"("{}":{})", ColumnName(i), kTypes[i % 4]);
  }
  out += "}";
  if (required) {
    out += R"(,"required":[)";
    for (size_t i = 0; i < n; ++i) out += fmt::format(R"({}"{}")", i > 0 ? "," : "", ColumnName(i));
    out += "]";
  }
  out += "}";
  return out;
}

/// A seed YAML contract requiring `n` columns of mixed types, every third not nullable.
inline std::string WideSeedContract(size_t n) {
  static const char* const kTypes[] = {"long", "string", "double", "int", "boolean", "date"};
  std::string out = "version: 1.0\nrequired_columns:\n";
  for (size_t i = 0; i < n; ++i) {
    out += fmt::format("  - name: {}\n    type: {}\n    nullable: {}\n", ColumnName(i),
                       kTypes[i % 6], i % 3 == 0 ? "false" : "true");
  }
  out += "allowed_new_columns: false\nallowed_type_changes: false\nallowed_column_removal: false\n";
  return out;
}

/// An ODCS v3 contract of `models` schema objects (object_0, ...) of `n` properties each.
inline std::string WideOdcs(size_t n, size_t models = 1) {
  static const char* const kTypes[] = {"integer", "string", "number", "boolean", "date"};
  std::string out =
      "apiVersion: v3.0.2\nkind: DataContract\nid: urn:test:wide\nversion: 1.0.0\n"
      "status: active\nschema:\n";
  for (size_t m = 0; m < models; ++m) {
    out += fmt::format("  - name: object_{}\n    logicalType: object\n    properties:\n", m);
    for (size_t i = 0; i < n; ++i) {
      out += fmt::format("      - name: {}\n        logicalType: {}\n        required: {}\n",
                         ColumnName(i), kTypes[i % 5], i % 3 == 0 ? "true" : "false");
    }
  }
  return out;
}

/// A Data Contract Specification contract of `models` models (model_0, ...) of `n` fields each.
inline std::string WideDcs(size_t n, size_t models = 1) {
  static const char* const kTypes[] = {"long", "string", "double", "int", "boolean", "date"};
  std::string out =
      "dataContractSpecification: 1.1.0\nid: urn:test:wide\ninfo:\n"
      "  title: wide\n  version: 1.0.0\nmodels:\n";
  for (size_t m = 0; m < models; ++m) {
    out += fmt::format("  model_{}:\n    type: table\n    fields:\n", m);
    for (size_t i = 0; i < n; ++i) {
      out += fmt::format("      {}:\n        type: {}\n        required: {}\n", ColumnName(i),
                         kTypes[i % 6], i % 3 == 0 ? "true" : "false");
    }
  }
  return out;
}

}  // namespace sluice::scaling
