// The registry's side of bench/wide-schemas: registrations and compatibility checks of wide and
// hostile schemas through Registry::Handle, in process, on an in-memory SQLite store.
//
//   bench_wide_registry N
//
// Prints one row per step: wall and CPU seconds, the step. N is the width (fields, properties,
// references, versions are derived from it as each row says).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

#include "sluice/base/json_writer.h"
#include "sluice/registry/registry.h"

namespace {

using sluice::registry::Registry;
using sluice::registry::Response;

std::string Avro(size_t n, size_t optional_from) {
  std::string out = R"({"type":"record","name":"wide","fields":[)";
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += ',';
    out += i >= optional_from
               ? fmt::format(R"({{"name":"c{}","type":["null","long"],"default":null}})", i)
               : fmt::format(R"({{"name":"c{}","type":"long"}})", i);
  }
  return out + "]}";
}

std::string JsonSchema(size_t n, bool required) {
  std::string out = R"({"type":"object","properties":{)";
  for (size_t i = 0; i < n; ++i)
    out += fmt::format(R"({}"c{}":{{"type":"integer"}})", i ? "," : "", i);
  out += "}";
  if (required) {
    out += R"(,"required":[)";
    for (size_t i = 0; i < n; ++i) out += fmt::format(R"({}"c{}")", i ? "," : "", i);
    out += "]";
  }
  return out + "}";
}

class Bench {
 public:
  Bench() {
    auto store = sluice::registry::Store::Open("sqlite::memory:");
    if (!store) {
      std::fprintf(stderr, "%s\n", store.error().message().c_str());
      std::exit(1);
    }
    registry_ = std::make_unique<Registry>(std::move(*store));
  }

  Response Call(std::string_view method, const std::string& target, std::string_view schema,
                std::string_view type = "", std::string_view refs = "") {
    sluice::JsonWriter w;
    w.BeginObject();
    if (method == "PUT") {
      w.Key("compatibility").String(schema);
    } else {
      w.Key("schema").String(schema);
      if (!type.empty()) w.Key("schemaType").String(type);
      if (!refs.empty()) w.Key("references").Raw(refs);
    }
    w.EndObject();
    std::string body = w.Take();
    Response r = registry_->Handle({method, target, body});
    if (r.status != 200) {
      std::fprintf(stderr, "%.*s %s: %d %s\n", static_cast<int>(method.size()), method.data(),
                   target.c_str(), r.status, r.body.substr(0, 300).c_str());
      std::exit(1);
    }
    return r;
  }

  // Time `step` (wall and CPU: the machine may be shared), print it.
  template <class F>
  void Time(const std::string& what, F&& step) {
    auto start = std::chrono::steady_clock::now();
    std::clock_t cpu = std::clock();
    step();
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    double cpu_seconds = static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC;
    std::printf("%8.3f s %7.3f cpu  %s\n", took.count(), cpu_seconds, what.c_str());
    std::fflush(stdout);
  }

 private:
  std::unique_ptr<Registry> registry_;
};

}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100000;
  Bench b;
  std::printf("registry (Registry::Handle, in-memory SQLite), N = %zu\n", n);
  b.Time(fmt::format("register an Avro record of {} fields", n),
         [&] { b.Call("POST", "/subjects/avro/versions", Avro(n, n)); });
  b.Time(fmt::format("check and register v2 ({} more optional fields), BACKWARD", n / 10), [&] {
    b.Call("POST", "/compatibility/subjects/avro/versions/latest", Avro(n + n / 10, n));
    b.Call("POST", "/subjects/avro/versions", Avro(n + n / 10, n));
  });
  b.Time(fmt::format("register a JSON Schema of {} required properties", n),
         [&] { b.Call("POST", "/subjects/json/versions", JsonSchema(n, true), "JSON"); });
  b.Time("check and register v2 (none required), BACKWARD", [&] {
    b.Call("POST", "/compatibility/subjects/json/versions/latest", JsonSchema(n, false), "JSON");
    b.Call("POST", "/subjects/json/versions", JsonSchema(n, false), "JSON");
  });
  const size_t refs = std::max<size_t>(1, n / 100);
  std::string list = "[";
  std::string fields;
  for (size_t i = 0; i < refs; ++i) {
    std::string name = fmt::format("R{}", i);
    b.Call("POST", "/subjects/" + name + "/versions",
           fmt::format(R"({{"type":"record","name":"{}","fields":[{{"name":"v","type":"long"}}]}})",
                       name));
    list +=
        fmt::format(R"({}{{"name":"{}","subject":"{}","version":1}})", i ? "," : "", name, name);
    fields += fmt::format(R"({}{{"name":"f{}","type":"R{}"}})", i ? "," : "", i, i);
  }
  list += "]";
  b.Time(fmt::format("register a schema with {} references", refs), [&] {
    b.Call("POST", "/subjects/refs/versions",
           fmt::format(R"({{"type":"record","name":"Top","fields":[{}]}})", fields), "", list);
  });
  b.Time("register 25 levels of shared references (2^25 paths, 50 schemas)", [&] {
    std::string below;
    for (int level = 0; level < 25; ++level) {
      std::string next;
      for (char side : {'a', 'b'}) {
        std::string name = fmt::format("L{}{}", level, side);
        std::string f = R"({"name":"v","type":"long"})";
        if (level > 0) {
          f += fmt::format(R"(,{{"name":"x","type":"L{}a"}},{{"name":"y","type":"L{}b"}})",
                           level - 1, level - 1);
        }
        b.Call("POST", "/subjects/" + name + "/versions",
               fmt::format(R"({{"type":"record","name":"{}","fields":[{}]}})", name, f), "", below);
        next += fmt::format(R"({}{{"name":"{}","subject":"{}","version":1}})",
                            next.empty() ? "" : ",", name, name);
      }
      below = "[" + next + "]";
    }
  });
  const size_t versions = std::max<size_t>(1, n / 100);
  b.Call("PUT", "/config/history", "NONE");
  auto version = [](size_t i) {
    return fmt::format(R"({{"type":"record","name":"r","fields":[{{"name":"id","type":"long"}},)"
                       R"({{"name":"v{}","type":["null","long"],"default":null}}]}})",
                       i);
  };
  for (size_t i = 0; i < versions; ++i) b.Call("POST", "/subjects/history/versions", version(i));
  b.Call("PUT", "/config/history", "BACKWARD_TRANSITIVE");
  b.Time(fmt::format("check against {} versions, BACKWARD_TRANSITIVE (parses each once)", versions),
         [&] { b.Call("POST", "/compatibility/subjects/history/versions", version(versions)); });
  b.Time(fmt::format("the same check again (parsed forms cached)"),
         [&] { b.Call("POST", "/compatibility/subjects/history/versions", version(versions)); });
  b.Call("PUT", "/config/history", "BACKWARD");
  b.Time(fmt::format("register version {} with BACKWARD (reads the latest only)", versions + 1),
         [&] { b.Call("POST", "/subjects/history/versions", version(versions)); });
  return 0;
}
