#include "sluice/evolution/drift.h"

#include <gtest/gtest.h>

#include <string>

#include "sluice/dialects/contract/contract.h"
#include "sluice/dialects/spark/spark.h"

namespace sluice::evolution {
namespace {

using schema::SchemaPtr;

SchemaPtr Ddl(std::string_view ddl) {
  auto r = dialects::spark::ReadDdl(ddl);
  EXPECT_TRUE(r.has_value()) << ddl << ": " << (r ? "" : r.error().ToString());
  return r.has_value() ? r->value : nullptr;
}

// Seed 000's payments events.
constexpr char kPaymentsV1[] =
    "transaction_id BIGINT NOT NULL, amount BIGINT NOT NULL, timestamp BIGINT NOT NULL";
constexpr char kPaymentsV2[] =
    "transaction_id BIGINT NOT NULL, amount BIGINT NOT NULL, timestamp BIGINT NOT NULL, "
    "settlement_method STRING";
constexpr char kPaymentsAmountString[] =
    "transaction_id BIGINT NOT NULL, amount STRING NOT NULL, timestamp BIGINT NOT NULL, "
    "settlement_method STRING";

DriftReport Judge(std::string_view before, std::string_view after, const DriftJudge& judge = {}) {
  DriftReport report;
  Status st = JudgeDrift(*Ddl(before), *Ddl(after), judge, report);
  EXPECT_TRUE(st.has_value()) << (st ? "" : st.error().ToString());
  return report;
}

TEST(DriftTest, SeedNullableColumnAddedIsCompatibleBySeverity) {
  DriftReport r = Judge(kPaymentsV1, kPaymentsV2);
  EXPECT_EQ(r.verdict, DriftVerdict::kCompatible);
  EXPECT_EQ(r.rules, DriftRules::kSeverity);
  ASSERT_EQ(r.diff.changes.size(), 1u);
  EXPECT_EQ(r.diff.changes[0].path.ToString(), "settlement_method");
  EXPECT_EQ(r.diff.changes[0].kind, ChangeKind::kFieldAdded);
  EXPECT_TRUE(r.reasons.empty());
}

TEST(DriftTest, SeedAmountLongToStringIsBreakingWithAReason) {
  DriftReport r = Judge(kPaymentsV2, kPaymentsAmountString);
  EXPECT_EQ(r.verdict, DriftVerdict::kBreaking);
  ASSERT_EQ(r.reasons.size(), 1u);
  EXPECT_EQ(r.reasons[0].path, "amount");
  EXPECT_EQ(r.reasons[0].rule, "type_changed");
  EXPECT_NE(r.reasons[0].message.find("string"), std::string::npos) << r.reasons[0].message;
}

TEST(DriftTest, NotNullColumnAddedBreaksBySeverity) {
  DriftReport r = Judge(kPaymentsV1, std::string(kPaymentsV1) + ", fee BIGINT NOT NULL");
  EXPECT_EQ(r.verdict, DriftVerdict::kBreaking);
}

TEST(DriftTest, DeltaRulesRefuseADroppedColumnWithoutColumnMapping) {
  DriftJudge judge;
  judge.delta = true;
  DriftReport r = Judge(kPaymentsV2, kPaymentsV1, judge);
  EXPECT_EQ(r.rules, DriftRules::kDelta);
  EXPECT_EQ(r.verdict, DriftVerdict::kBreaking);
  ASSERT_FALSE(r.reasons.empty());
  EXPECT_EQ(r.reasons[0].rule, "DELTA_UNSUPPORTED_DROP_COLUMN");
  judge.delta_column_mapping = true;
  EXPECT_EQ(Judge(kPaymentsV2, kPaymentsV1, judge).verdict, DriftVerdict::kCompatible);
}

TEST(DriftTest, DeltaRulesAllowAddedNullableColumns) {
  DriftJudge judge;
  judge.delta = true;
  DriftReport r = Judge(kPaymentsV1, kPaymentsV2, judge);
  EXPECT_EQ(r.verdict, DriftVerdict::kCompatible);
  EXPECT_NE(r.rules_detail.find("Delta"), std::string::npos);
}

TEST(DriftTest, ContractPolicyDecides) {
  auto contract = dialects::contract::ParseSeedContract(
      "required_columns:\n"
      "  - name: transaction_id\n    type: long\n    nullable: false\n"
      "  - name: amount\n    type: long\n    nullable: false\n"
      "allowed_new_columns: false\n"
      "allowed_type_changes: false\n"
      "allowed_column_removal: false\n");
  ASSERT_TRUE(contract.has_value()) << contract.error().ToString();
  DriftJudge judge;
  judge.contract = std::make_shared<const dialects::contract::Contract>(*contract);
  judge.contract_name = "payments.yaml";
  DriftReport r = Judge(kPaymentsV1, kPaymentsV2, judge);
  EXPECT_EQ(r.rules, DriftRules::kContract);
  EXPECT_EQ(r.verdict, DriftVerdict::kBreaking);
  ASSERT_FALSE(r.reasons.empty());
  EXPECT_EQ(r.reasons[0].rule, "new_column_not_allowed");
  EXPECT_EQ(r.rules_detail, "contract payments.yaml");
}

TEST(DriftTest, RegistryModeDecides) {
  const std::string v1 = R"({"type":"record","name":"p","fields":[{"name":"id","type":"long"}]})";
  const std::string v2_default =
      R"({"type":"record","name":"p","fields":[{"name":"id","type":"long"},)"
      R"({"name":"m","type":["null","string"],"default":null}]})";
  const std::string v2_required =
      R"({"type":"record","name":"p","fields":[{"name":"id","type":"long"},)"
      R"({"name":"m","type":"string"}]})";
  auto judge_for = [&](const std::string& candidate, CompatibilityMode mode) {
    DriftJudge judge;
    judge.mode = mode;
    judge.subject = "payments-value";
    judge.history.push_back(*ParsedSchema::Parse(SchemaType::kAvro, v1));
    judge.candidate = *ParsedSchema::Parse(SchemaType::kAvro, candidate);
    return judge;
  };
  DriftReport ok = Judge("id BIGINT NOT NULL", "id BIGINT NOT NULL, m STRING",
                         judge_for(v2_default, CompatibilityMode::kBackward));
  EXPECT_EQ(ok.verdict, DriftVerdict::kCompatible);
  EXPECT_EQ(ok.rules_detail, "subject payments-value, BACKWARD");
  DriftReport bad = Judge("id BIGINT NOT NULL", "id BIGINT NOT NULL, m STRING NOT NULL",
                          judge_for(v2_required, CompatibilityMode::kBackward));
  EXPECT_EQ(bad.verdict, DriftVerdict::kBreaking);
  ASSERT_FALSE(bad.reasons.empty());
  // Under NONE the registry takes anything; the verdict falls back to the changes' severity.
  DriftReport none = Judge("id BIGINT NOT NULL", "id BIGINT NOT NULL, m STRING NOT NULL",
                           judge_for(v2_required, CompatibilityMode::kNone));
  EXPECT_EQ(none.verdict, DriftVerdict::kBreaking);
  EXPECT_NE(none.rules_detail.find("NONE"), std::string::npos);
}

TEST(DriftTest, OneSetOfRulesOnly) {
  DriftJudge judge;
  judge.delta = true;
  judge.mode = CompatibilityMode::kBackward;
  DriftReport r;
  EXPECT_FALSE(JudgeDrift(*Ddl(kPaymentsV1), *Ddl(kPaymentsV2), judge, r).has_value());
}

TEST(DriftTest, AlertIdIsStablePerChangeAndDistinctAcrossChanges) {
  const std::string a = DriftAlertId("payments", "old", "new");
  EXPECT_EQ(a.size(), 32u);
  EXPECT_EQ(a, DriftAlertId("payments", "old", "new"));
  EXPECT_NE(a, DriftAlertId("payments", "new", "old"));
  EXPECT_NE(a, DriftAlertId("orders", "old", "new"));
  // The separator keeps ("ab", "c") and ("a", "bc") apart.
  EXPECT_NE(DriftAlertId("ab", "c", "d"), DriftAlertId("a", "bc", "d"));
}

TEST(DriftTest, SparkMd5MatchesTheSeedsHashOfSchemaJson) {
  // hashlib.md5(original_schema.json().encode()).hexdigest() for the seed's original_schema:
  // json.dumps of {"fields":[{"metadata":{},"name":"transaction_id","nullable":false,
  // "type":"long"},...],"type":"struct"} with sorted keys and no spaces.
  DriftFingerprints f = FingerprintsOf(*Ddl(kPaymentsV1));
  EXPECT_EQ(f.sha256.size(), 64u);
  EXPECT_EQ(f.spark_md5, "dc6e5acd2e39a9919c67c0babf33a75f");
  std::vector<DriftField> fields = DriftFieldsOf(*Ddl(kPaymentsV2));
  ASSERT_EQ(fields.size(), 4u);
  EXPECT_EQ(fields[1].name, "amount");
  EXPECT_EQ(fields[1].type, "long");
  EXPECT_FALSE(fields[1].nullable);
  EXPECT_TRUE(fields[3].nullable);
}

}  // namespace
}  // namespace sluice::evolution
