// A wide schema converts to every output language in time linear in its width.
#include <gtest/gtest.h>

#include "sluice/dialects/format.h"
#include "sluice/schema/scaling_testing.h"

namespace sluice::dialects {
namespace {

using scaling::ScalesLinearly;

TEST(FormatScalingTest, WideSchemasConvertToEveryLanguageInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        const std::string ddl = scaling::WideDdl(n);
        for (const FormatInfo& f : AllFormats()) {
          if (!f.writable) continue;
          auto out = Convert(ddl, Format::kSparkDdl, f.format);
          ASSERT_TRUE(out.has_value()) << f.name << ": " << out.error().message();
          // What was written reads back, where the language is readable.
          if (!f.readable || f.format == Format::kSparkDdl) continue;
          auto back = ReadSchema(out->value, f.format);
          ASSERT_TRUE(back.has_value()) << f.name << ": " << back.error().message();
        }
      },
      400));
}

TEST(FormatScalingTest, WideSchemasOfEveryLanguageAreDetectedAndReadInLinearTime) {
  EXPECT_TRUE(ScalesLinearly(
      [](size_t n) {
        const std::pair<std::string, std::string> inputs[] = {
            {"a.avsc", scaling::WideAvro(n)},
            {"a.schema.json", scaling::WideJsonSchema(n, true)},
            {"a.yaml", scaling::WideSeedContract(n)},
            {"b.yaml", scaling::WideOdcs(n)},
            {"c.yaml", scaling::WideDcs(n)},
        };
        for (const auto& [path, text] : inputs) {
          auto format = DetectFormat(path, text);
          ASSERT_TRUE(format.has_value()) << path;
          auto read = ReadSchema(text, *format);
          ASSERT_TRUE(read.has_value()) << path << ": " << read.error().message();
          EXPECT_EQ(read->value->fields().size(), n);
          auto canonical = AvroCanonicalForm(text, *format);
          ASSERT_TRUE(canonical.has_value()) << path << ": " << canonical.error().message();
        }
      },
      400));
}

}  // namespace
}  // namespace sluice::dialects
