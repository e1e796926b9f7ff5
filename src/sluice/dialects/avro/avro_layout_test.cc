// The packed layout the compatibility check walks: what the parser packs must say what the
// parsed schema says, since the check reads only the layout on its common paths.
#include "sluice/dialects/avro/avro_layout.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace sluice::dialects::avro::internal {
namespace {

TEST(AvroLayoutTest, SameBytesTellsEveryDifferenceAtEveryLength) {
  // Word loads cover lengths from 4 up to 16 with overlapping reads; each length and each
  // position of a difference is checked, on both sides of every boundary.
  for (size_t n = 0; n <= 40; ++n) {
    std::string a(n, 'x');
    for (size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + i % 26);
    std::string b = a;
    EXPECT_TRUE(SameBytes(a.data(), b.data(), n)) << n;
    for (size_t i = 0; i < n; ++i) {
      b[i] ^= 0x20;
      EXPECT_FALSE(SameBytes(a.data(), b.data(), n)) << "length " << n << ", byte " << i;
      b[i] = a[i];
    }
  }
}

const AvroLayout& Layout(const AvroSchema& schema) { return *LayoutOf(schema); }

TEST(AvroLayoutTest, FieldsAreFoundByNameInSmallAndIndexedRecords) {
  for (int fields : {3, 8, 9, 40}) {
    std::string text = R"({"type":"record","name":"R","fields":[)";
    for (int i = 0; i < fields; ++i) {
      text += (i > 0 ? "," : "") + std::string(R"({"name":"field_)") + std::to_string(i) +
              R"(","type":"int"})";
    }
    text += "]}";
    auto schema = Parse(text);
    ASSERT_TRUE(schema.has_value()) << schema.error().message();
    const AvroLayout& layout = Layout(*schema);
    const LayoutNode& root = layout.nodes[layout.root];
    ASSERT_EQ(root.type, AvroType::kRecord);
    ASSERT_EQ(root.count, static_cast<uint32_t>(fields));
    for (int i = 0; i < fields; ++i) {
      std::string name = "field_" + std::to_string(i);
      EXPECT_EQ(layout.FindField(root, name, LayoutNameHash(name)), i) << fields;
      EXPECT_EQ(layout.Text(layout.fields[root.first + i].name), name);
    }
    EXPECT_EQ(layout.FindField(root, "field_x", LayoutNameHash("field_x")), -1) << fields;
    EXPECT_EQ(layout.FindField(root, "", LayoutNameHash("")), -1) << fields;
  }
}

TEST(AvroLayoutTest, TheFlagsSayWhatTheSchemaSays) {
  auto schema = Parse(R"({"type":"record","name":"Outer","aliases":["Old"],"fields":[
      {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"],"default":"A"}},
      {"name":"n","type":["null","int"],"default":null,"aliases":["m"]},
      {"name":"inner","type":{"type":"record","name":"Inner","fields":[
          {"name":"xs","type":{"type":"array","items":"long"}}]}},
      {"name":"again","type":"E"}]})");
  ASSERT_TRUE(schema.has_value()) << schema.error().message();
  const AvroLayout& layout = Layout(*schema);
  const LayoutNode& outer = layout.nodes[layout.root];
  EXPECT_TRUE(outer.has(LayoutNode::kHasAliases));
  EXPECT_FALSE(outer.has(LayoutNode::kRecordFree));
  EXPECT_FALSE(outer.has(LayoutNode::kFlatRecord));  // it holds Inner
  EXPECT_EQ(layout.Text(outer.name), "Outer");

  const LayoutField& e = layout.fields[outer.first];
  EXPECT_TRUE(e.has(LayoutField::kEnumWithDefault));
  EXPECT_FALSE(e.has(LayoutField::kHasDefault));
  const LayoutNode& enum_node = layout.nodes[e.type];
  EXPECT_EQ(enum_node.type, AvroType::kEnum);
  EXPECT_TRUE(enum_node.has(LayoutNode::kEnumDefault));
  ASSERT_EQ(enum_node.count, 2u);
  EXPECT_EQ(layout.Text(layout.symbols[enum_node.first + 1]), "B");
  // A named type used twice is one node.
  EXPECT_EQ(layout.fields[outer.first + 3].type, e.type);

  const LayoutField& n = layout.fields[outer.first + 1];
  EXPECT_TRUE(n.has(LayoutField::kHasDefault));
  EXPECT_TRUE(n.has(LayoutField::kHasAliases));
  const LayoutNode& u = layout.nodes[n.type];
  ASSERT_EQ(u.type, AvroType::kUnion);
  ASSERT_EQ(u.count, 2u);
  EXPECT_EQ(layout.nodes[layout.branches[u.first]].type, AvroType::kNull);
  EXPECT_EQ(layout.nodes[layout.branches[u.first + 1]].type, AvroType::kInt);
  EXPECT_TRUE(u.has(LayoutNode::kRecordFree));

  const LayoutNode& inner = layout.nodes[layout.fields[outer.first + 2].type];
  EXPECT_TRUE(inner.has(LayoutNode::kFlatRecord));
  const LayoutNode& xs = layout.nodes[layout.fields[inner.first].type];
  ASSERT_EQ(xs.type, AvroType::kArray);
  EXPECT_EQ(layout.nodes[xs.first].type, AvroType::kLong);

  // Every node and field points back at what it was packed from.
  for (size_t id = 0; id < layout.nodes.size(); ++id) {
    EXPECT_EQ(layout.sources[id]->id(), id);
    EXPECT_EQ(layout.sources[id]->type(), layout.nodes[id].type);
  }
  EXPECT_EQ(layout.field_sources[outer.first + 1]->name(), "n");

  // Full names and aliases, read for name checks and messages.
  EXPECT_EQ(layout.Text(layout.FullName(layout.root)), "Outer");
  ASSERT_EQ(layout.NodeAliases(layout.root).size(), 1u);
  EXPECT_EQ(layout.Text(layout.NodeAliases(layout.root)[0]), "Old");
  EXPECT_TRUE(layout.NodeAliases(e.type).empty());
  EXPECT_TRUE(layout.FieldAliases(outer.first).empty());
  ASSERT_EQ(layout.FieldAliases(outer.first + 1).size(), 1u);
  EXPECT_EQ(layout.Text(layout.FieldAliases(outer.first + 1)[0]), "m");
}

TEST(AvroLayoutTest, FullNamesCarryTheirNamespace) {
  auto schema = Parse(R"({"type":"record","name":"R","namespace":"a.b","aliases":["Old","x.Y"],
      "fields":[{"name":"f","type":{"type":"fixed","name":"F","size":4}}]})");
  ASSERT_TRUE(schema.has_value()) << schema.error().message();
  const AvroLayout& layout = Layout(*schema);
  EXPECT_EQ(layout.Text(layout.FullName(layout.root)), "a.b.R");
  EXPECT_EQ(layout.Text(layout.nodes[layout.root].name), "R");
  ASSERT_EQ(layout.NodeAliases(layout.root).size(), 2u);
  EXPECT_EQ(layout.Text(layout.NodeAliases(layout.root)[0]), "a.b.Old");
  EXPECT_EQ(layout.Text(layout.NodeAliases(layout.root)[1]), "x.Y");
  uint32_t fixed = layout.fields[layout.nodes[layout.root].first].type;
  EXPECT_EQ(layout.Text(layout.FullName(fixed)), "a.b.F");
}

TEST(AvroLayoutTest, TheFirstUseBuildsOneLayoutWhateverTheThreadsAsking) {
  auto schema = Parse(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})");
  ASSERT_TRUE(schema.has_value()) << schema.error().message();
  std::vector<const AvroLayout*> seen(8, nullptr);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < seen.size(); ++t) {
    threads.emplace_back([&, t] { seen[t] = LayoutOf(schema->root()); });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_NE(seen[0], nullptr);
  for (const AvroLayout* layout : seen) EXPECT_EQ(layout, seen[0]);
  // A schema moved elsewhere keeps its layout and its nodes' links to it.
  AvroSchema moved = std::move(schema).value();
  EXPECT_EQ(LayoutOf(moved), seen[0]);
  EXPECT_EQ(LayoutOf(moved.root()), seen[0]);
}

}  // namespace
}  // namespace sluice::dialects::avro::internal
