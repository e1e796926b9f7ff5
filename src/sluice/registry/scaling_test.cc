// The registry's checks of wide schemas, of many references and of long histories take time
// linear in what they are given.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>

#include "sluice/base/json_writer.h"
#include "sluice/registry/registry.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::registry {
namespace {

using scaling::ScalesLinearly;

class RegistryScalingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::Open("sqlite::memory:");
    ASSERT_TRUE(store.has_value()) << store.error().message();
    registry_ = std::make_unique<Registry>(std::move(*store));
  }

  // POST `schema` (with `type` and `refs`, a JSON array, when given) to `target`.
  Response Post(const std::string& target, std::string_view schema, std::string_view type = "",
                std::string_view refs = "") {
    JsonWriter w;
    w.BeginObject().Key("schema").String(schema);
    if (!type.empty()) w.Key("schemaType").String(type);
    if (!refs.empty()) w.Key("references").Raw(refs);
    w.EndObject();
    std::string body = w.Take();
    return registry_->Handle({"POST", target, body});
  }
  void Register(const std::string& subject, std::string_view schema, std::string_view type = "",
                std::string_view refs = "") {
    Response r = Post("/subjects/" + subject + "/versions", schema, type, refs);
    ASSERT_EQ(r.status, 200) << r.body.substr(0, 400);
  }
  std::string NewSubject() { return "s" + std::to_string(next_++); }

  std::unique_ptr<Registry> registry_;
  int next_ = 0;
};

TEST_F(RegistryScalingTest, WideSchemasRegisterAndCheckInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [&](size_t n) {
        for (const bool avro : {true, false}) {
          const std::string subject = NewSubject();
          const std::string type = avro ? "" : "JSON";
          // Avro: n/10 optional fields added; JSON Schema: no property required any more.
          std::string v1 = avro ? scaling::WideAvro(n) : scaling::WideJsonSchema(n, true);
          std::string v2 =
              avro ? scaling::WideAvro(n + n / 10, n) : scaling::WideJsonSchema(n, false);
          Register(subject, v1, type);
          Response check =
              Post("/compatibility/subjects/" + subject + "/versions/latest", v2, type);
          ASSERT_EQ(check.status, 200) << check.body.substr(0, 400);
          EXPECT_NE(check.body.find("\"is_compatible\":true"), std::string::npos) << check.body;
          Register(subject, v2, type);
        }
      },
      1000));
}

TEST_F(RegistryScalingTest, ManyReferencesResolveInLinearTime) {
  // One schema referring to `n` others, each registered once per size.
  std::map<size_t, std::string> refs_of;
  EXPECT_TRUE(ScalesLinearly(
      [&](size_t n) {
        std::string& refs = refs_of[n];
        std::string fields;
        if (refs.empty()) {
          refs = "[";
          for (size_t i = 0; i < n; ++i) {
            std::string name = fmt::format("R{}_{}", n, i);
            Register(name, fmt::format(R"({{"type":"record","name":"{}","fields":[)"
                                       R"({{"name":"v","type":"long"}}]}})",
                                       name));
            refs += fmt::format(R"({}{{"name":"{}","subject":"{}","version":1}})", i > 0 ? "," : "",
                                name, name);
          }
          refs += "]";
        }
        for (size_t i = 0; i < n; ++i) {
          fields += fmt::format(R"({}{{"name":"f{}","type":"R{}_{}"}})", i > 0 ? "," : "", i, n, i);
        }
        Register(NewSubject(),
                 fmt::format(R"({{"type":"record","name":"Top","fields":[{}]}})", fields), "",
                 refs);
      },
      300));
}

TEST_F(RegistryScalingTest, SharedReferencesAreWalkedOnce) {
  // Each level's two schemas both refer to both of the level below: 2^depth paths from the top,
  // 2 * depth schemas. Walking every path would take hours; each schema once, milliseconds.
  const int depth = 24;
  std::string below;  // the references to the level below
  for (int level = 0; level <= depth; ++level) {
    std::string refs;
    for (const char side : {'a', 'b'}) {
      std::string name = fmt::format("L{}{}", level, side);
      std::string fields = R"({"name":"v","type":"long"})";
      if (level > 0) {
        fields += fmt::format(R"(,{{"name":"x","type":"L{}a"}},{{"name":"y","type":"L{}b"}})",
                              level - 1, level - 1);
      }
      auto start = std::chrono::steady_clock::now();
      Register(name, fmt::format(R"({{"type":"record","name":"{}","fields":[{}]}})", name, fields),
               "", below);
      std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      EXPECT_LT(took.count(), 2 * scaling::kSlowdown) << name;
      refs += fmt::format(R"({}{{"name":"{}","subject":"{}","version":1}})",
                          refs.empty() ? "" : ",", name, name);
    }
    below = "[" + refs + "]";
  }
}

TEST_F(RegistryScalingTest, TransitiveChecksOverManyVersionsInLinearTime) {
  // A subject of `n` versions (registered without checks), then checked BACKWARD_TRANSITIVE:
  // once against each version.
  auto version = [](size_t i) {
    return fmt::format(R"({{"type":"record","name":"r","fields":[{{"name":"id","type":"long"}},)"
                       R"({{"name":"v{}","type":["null","long"],"default":null}}]}})",
                       i);
  };
  std::map<size_t, std::string> subject_of;
  EXPECT_TRUE(ScalesLinearly(
      [&](size_t n) {
        std::string& subject = subject_of[n];
        if (subject.empty()) {
          subject = NewSubject();
          auto config = [&](std::string_view level) {
            Response r = registry_->Handle(
                {"PUT", "/config/" + subject, fmt::format(R"({{"compatibility":"{}"}})", level)});
            ASSERT_EQ(r.status, 200) << r.body;
          };
          config("NONE");
          for (size_t i = 0; i < n; ++i) Register(subject, version(i));
          config("BACKWARD_TRANSITIVE");
        }
        Response check = Post("/compatibility/subjects/" + subject + "/versions", version(n));
        ASSERT_EQ(check.status, 200) << check.body;
        EXPECT_NE(check.body.find("\"is_compatible\":true"), std::string::npos) << check.body;
      },
      300));
}

}  // namespace
}  // namespace sluice::registry
