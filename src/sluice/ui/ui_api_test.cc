// The web UI's read-only endpoints over a real registry (the seed's user_movie_activity v1 and
// v2), a Delta table, an ingest checkpoint and an alert outbox.
#include "sluice/ui/ui.h"
#include "sluice/ui/ui_testing.h"

namespace sluice::ui::uitest {
namespace {

// ---- subjects ----

TEST_F(UiServerTest, TheSubjectListHoldsEachLatestVersionAndMode) {
  StartServer();
  RegisterMovies("movies-value");
  Register("clicks-value", "\"string\"");
  SetMode("clicks-value", "FULL_TRANSITIVE");
  JsonValue l = GetJson("/ui/api/subjects");
  EXPECT_EQ(l.Find("total")->number_text(), "2");
  const auto& subjects = l.Find("subjects")->items();
  ASSERT_EQ(subjects.size(), 2u);
  // The REST API's order, and the answers it gives one subject at a time.
  EXPECT_EQ(subjects[0].Find("subject")->as_string(), "clicks-value");
  EXPECT_EQ(subjects[0].Find("version")->number_text(), "1");
  EXPECT_EQ(subjects[0].Find("id")->number_text(), "3");
  EXPECT_EQ(subjects[0].Find("schemaType")->as_string(), "AVRO");
  EXPECT_EQ(subjects[0].Find("compatibility")->as_string(), "FULL_TRANSITIVE");
  EXPECT_EQ(subjects[1].Find("subject")->as_string(), "movies-value");
  EXPECT_EQ(subjects[1].Find("version")->number_text(), "2");
  EXPECT_EQ(subjects[1].Find("id")->number_text(), "2");
  EXPECT_EQ(subjects[1].Find("compatibility")->as_string(), "BACKWARD");
  // Pages: offset and limit; past the end is an empty page with the same total.
  JsonValue page = GetJson("/ui/api/subjects?offset=1&limit=1");
  EXPECT_EQ(page.Find("total")->number_text(), "2");
  ASSERT_EQ(page.Find("subjects")->size(), 1u);
  EXPECT_EQ(page.Find("subjects")->items()[0].Find("subject")->as_string(), "movies-value");
  EXPECT_EQ(GetJson("/ui/api/subjects?offset=9").Find("subjects")->size(), 0u);
  GetJson("/ui/api/subjects?limit=-1", 422);
  GetJson("/ui/api/subjects?offset=x", 422);
  // A deleted subject is gone from the list, as from GET /subjects.
  ASSERT_EQ(client_->Delete("/subjects/clicks-value")->status, 200);
  JsonValue after = GetJson("/ui/api/subjects");
  ASSERT_EQ(after.Find("subjects")->size(), 1u);
  EXPECT_EQ(after.Find("subjects")->items()[0].Find("subject")->as_string(), "movies-value");
}

TEST_F(UiServerTest, AVersionAsATree) {
  StartServer();
  RegisterMovies("movies-value");
  JsonValue t = GetJson("/ui/api/subjects/movies-value/versions/1/tree");
  EXPECT_EQ(t.Find("subject")->as_string(), "movies-value");
  EXPECT_EQ(t.Find("version")->number_text(), "1");
  EXPECT_EQ(t.Find("id")->number_text(), "1");
  EXPECT_EQ(t.Find("schemaType")->as_string(), "AVRO");
  EXPECT_NE(t.Find("schema")->as_string().find("user_movie_activity"), std::string::npos);
  EXPECT_TRUE(t.Find("references")->is_array());
  EXPECT_TRUE(t.Find("referrers")->is_array());
  const JsonValue& fields = *t.Find("fields");
  const JsonValue* movies = FindNode(fields, "movies_watched");
  ASSERT_NE(movies, nullptr);
  EXPECT_EQ(movies->Find("kind")->as_string(), "array");
  ASSERT_EQ(movies->Find("children")->size(), 1u);
  const JsonValue& element = movies->Find("children")->items()[0];
  EXPECT_EQ(element.Find("name")->as_string(), "[]");
  EXPECT_EQ(element.Find("kind")->as_string(), "struct");
  const JsonValue* id = FindNode(fields, "movies_watched[].movie_id");
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(id->Find("type")->as_string(), "int32");
  EXPECT_EQ(id->Find("kind")->as_string(), "primitive");
  EXPECT_FALSE(id->Find("nullable")->as_bool());
  const JsonValue* user = FindNode(fields, "user_id");
  ASSERT_NE(user, nullptr);
  EXPECT_EQ(user->Find("type")->as_string(), "int64");
  EXPECT_EQ(user->Find("doc")->as_string(), "Account id");
  // latest works as the REST API's does.
  JsonValue latest = GetJson("/ui/api/subjects/movies-value/versions/latest/tree");
  EXPECT_EQ(latest.Find("version")->number_text(), "2");
  EXPECT_EQ(
      FindNode(*latest.Find("fields"), "movies_watched[].movie_id")->Find("type")->as_string(),
      "string");
  EXPECT_NE(FindNode(*latest.Find("fields"), "movies_watched[].rating"), nullptr);
}

TEST_F(UiServerTest, TwoVersionsDiffedWithTheVerdict) {
  StartServer();
  RegisterMovies("movies-value");
  JsonValue d = GetJson("/ui/api/subjects/movies-value/diff?from=1&to=latest");
  EXPECT_EQ(d.Find("subject")->as_string(), "movies-value");
  EXPECT_EQ(d.Find("from")->number_text(), "1");
  EXPECT_EQ(d.Find("to")->number_text(), "2");
  EXPECT_EQ(d.Find("mode")->as_string(), "BACKWARD");
  const JsonValue& diff = *d.Find("diff");
  const JsonValue* retyped = FindChange(diff, "movies_watched[].movie_id", "type_changed");
  ASSERT_NE(retyped, nullptr) << d.Find("diff")->Find("changes")->size();
  EXPECT_EQ(retyped->Find("from")->as_string(), "int32");
  EXPECT_EQ(retyped->Find("to")->as_string(), "string");
  EXPECT_NE(FindChange(diff, "movies_watched[].rating", "field_added"), nullptr);
  // v2 against v1 in BACKWARD: the int -> string change breaks it, as the REST API says.
  const JsonValue& compat = *d.Find("compatibility");
  ASSERT_TRUE(compat.is_object());
  EXPECT_FALSE(compat.Find("compatible")->as_bool());
  EXPECT_EQ(compat.Find("mode")->as_string(), "BACKWARD");
  ASSERT_GE(compat.Find("incompatibilities")->size(), 1u);
  EXPECT_EQ(compat.Find("incompatibilities")->items()[0].Find("kind")->as_string(),
            "TYPE_MISMATCH");
  auto rest = client_->Post("/compatibility/subjects/movies-value/versions/1?verbose=true",
                            SchemaBody(ReadExample("user_movie_activity_v2.avsc")), kRegistryType);
  ASSERT_TRUE(rest);
  EXPECT_NE(rest->body.find("\"is_compatible\":false"), std::string::npos) << rest->body;
  // The reverse diff swaps the sides.
  JsonValue back = GetJson("/ui/api/subjects/movies-value/diff?from=2&to=1");
  EXPECT_NE(FindChange(*back.Find("diff"), "movies_watched[].rating", "field_removed"), nullptr);
  // Bad requests.
  GetJson("/ui/api/subjects/movies-value/diff?from=1", 422);
  JsonValue missing = GetJson("/ui/api/subjects/movies-value/diff?from=1&to=7", 404);
  EXPECT_EQ(missing.Find("error_code")->number_text(), "40402");
}

TEST_F(UiServerTest, EveryVersionsVerdictInTheSubjectsMode) {
  StartServer();
  RegisterMovies("movies-value");
  JsonValue v = GetJson("/ui/api/subjects/movies-value/verdicts");
  EXPECT_EQ(v.Find("mode")->as_string(), "BACKWARD");
  const auto& versions = v.Find("versions")->items();
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions[0].Find("version")->number_text(), "1");
  EXPECT_TRUE(versions[0].Find("compatible")->as_bool());
  EXPECT_EQ(versions[1].Find("version")->number_text(), "2");
  EXPECT_EQ(versions[1].Find("id")->number_text(), "2");
  EXPECT_FALSE(versions[1].Find("compatible")->as_bool());
  const JsonValue& x = versions[1].Find("incompatibilities")->items().at(0);
  EXPECT_EQ(x.Find("kind")->as_string(), "TYPE_MISMATCH");
  EXPECT_FALSE(x.Find("location")->as_string().empty());
  EXPECT_FALSE(x.Find("message")->as_string().empty());
  EXPECT_FALSE(x.Find("hint")->as_string().empty());
  // Under NONE nothing is checked.
  SetMode("movies-value", "NONE");
  JsonValue none = GetJson("/ui/api/subjects/movies-value/verdicts");
  EXPECT_EQ(none.Find("mode")->as_string(), "NONE");
  EXPECT_TRUE(none.Find("versions")->items()[1].Find("compatible")->as_bool());
}

TEST_F(UiServerTest, HostileNamesAndDocsComeBackAsJsonText) {
  StartServer();
  const std::string xss = "<img src=x onerror=alert(1)>";
  JsonWriter schema;
  schema.BeginObject().Key("type").String("record").Key("name").String("r");
  schema.Key("fields").BeginArray();
  schema.BeginObject().Key("name").String("a").Key("type").String("string");
  schema.Key("doc").String(xss).EndObject();
  schema.EndArray().EndObject();
  Register("a%2Fb", schema.str());
  auto r = Get("/ui/api/subjects/a%2Fb/versions/1/tree");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(r->get_header_value("X-Content-Type-Options"), "nosniff");
  JsonValue t = ParseOrDie(r->body);
  EXPECT_EQ(t.Find("subject")->as_string(), "a/b");
  EXPECT_EQ(FindNode(*t.Find("fields"), "a")->Find("doc")->as_string(), xss);
  // Unknown names are JSON 404s, as the REST API answers them.
  JsonValue s = GetJson("/ui/api/subjects/nope/verdicts", 404);
  EXPECT_EQ(s.Find("error_code")->number_text(), "40401");
  JsonValue v = GetJson("/ui/api/subjects/a%2Fb/versions/9/tree", 404);
  EXPECT_EQ(v.Find("error_code")->number_text(), "40402");
  JsonValue bad = GetJson("/ui/api/subjects/a%2Fb/versions/x/tree", 422);
  EXPECT_EQ(bad.Find("error_code")->number_text(), "42202");
  JsonValue table = GetJson("/ui/api/tables/%3Cscript%3E/history", 404);
  EXPECT_EQ(table.Find("error_code")->number_text(), "40401");
  EXPECT_EQ(table.Find("message")->as_string(), "Table '<script>' not found.");
  // Names only ever match configured ones: no path reaches the file system.
  GetJson("/ui/api/tables/..%2F..%2Fetc/history", 404);
  GetJson("/ui/api/tables/%00/schema", 404);
  // As the REST API answers a subject name with a NUL in it.
  GetJson("/ui/api/subjects/%ZZ%00/verdicts", 422);
  GetJson("/ui/api/subjects/a%2Fb/diff?from=%ZZ&to=1", 422);
  GetJson("/ui/api/ingest/nope/batches", 404);
  GetJson("/ui/api/ingest/nope/quarantine", 404);
}

TEST_F(UiServerTest, ATreeNamesItsReferencesAndReferrers) {
  StartServer();
  Register("address", R"({"type":"record","name":"Address","namespace":"x","fields":[)"
                      R"({"name":"city","type":"string"}]})");
  const std::string person =
      R"({"schema":"{\"type\":\"record\",\"name\":\"Person\",\"namespace\":\"x\",)"
      R"(\"fields\":[{\"name\":\"home\",\"type\":\"x.Address\"}]}",)"
      R"("references":[{"name":"x.Address","subject":"address","version":1}]})";
  auto r = client_->Post("/subjects/person/versions", person, kRegistryType);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  JsonValue address = GetJson("/ui/api/subjects/address/versions/1/tree");
  ASSERT_EQ(address.Find("referrers")->size(), 1u);
  EXPECT_EQ(address.Find("referrers")->items()[0].number_text(), "2");
  JsonValue p = GetJson("/ui/api/subjects/person/versions/1/tree");
  ASSERT_EQ(p.Find("references")->size(), 1u);
  EXPECT_EQ(p.Find("references")->items()[0].Find("subject")->as_string(), "address");
  // The referenced type is written in: the tree reaches into it.
  const JsonValue* city = FindNode(*p.Find("fields"), "home.city");
  ASSERT_NE(city, nullptr) << p.Find("fields")->size();
  EXPECT_EQ(city->Find("type")->as_string(), "string");
  JsonValue v = GetJson("/ui/api/subjects/person/verdicts");
  EXPECT_TRUE(v.Find("versions")->items()[0].Find("compatible")->as_bool());
}

// ---- tables, ingest, alerts ----

class UiDataTest : public UiServerTest {
 protected:
  void SetUp() override {
    UiServerTest::SetUp();
    table_ = (dir_ / "users").string();
    WriteRows("{\"id\":1,\"name\":\"a\"}\n", "id INT, name STRING", false);
    WriteRows("{\"id\":2,\"name\":\"b\",\"email\":\"b@x\"}\n", "id INT, name STRING, email STRING",
              true);
    MakeCheckpoint();
    MakeOutbox();
    UiOptions ui;
    ui.tables = {{"users", table_}};
    ui.ingest = {{"orders", (dir_ / "ckpt").string()}};
    ui.alerts = {{"main", (dir_ / "alerts.db").string()},
                 {"gone", (dir_ / "none.db").string()},
                 {"folder", (dir_ / "empty-folder").string()}};
    stdfs::create_directories(dir_ / "empty-folder");
    StartServer("", std::move(ui));
  }

  void WriteRows(const std::string& rows, std::string_view ddl, bool merge) {
    const std::string input = (dir_ / "in.jsonl").string();
    ASSERT_TRUE(LocalFileSystem()->WriteFile(input, rows).has_value());
    table::TableWriteOptions o;
    o.data_schema = dialects::spark::ReadDdl(ddl).value().value;
    o.merge_schema = merge;
    if (!merge) {
      o.properties["delta.appendOnly"] = "false";
      o.constraints = {{"id_positive", "id > 0"}};
    }
    DiscardSink quarantine;
    auto written = table::WriteTable(LocalFileSystem(), table_, {input}, o, quarantine);
    ASSERT_TRUE(written.has_value()) << written.error().message();
    ASSERT_EQ(written->outcome, table::WriteOutcome::kCommitted) << written->rejection;
  }

  void MakeCheckpoint() {
    const std::string ckpt = (dir_ / "ckpt").string();
    ingest::CheckpointIdentity id{"folder", "/landing/orders", table_};
    auto c = ingest::Checkpoint::Open(ckpt, id);
    ASSERT_TRUE(c.has_value()) << c.error().message();
    for (int64_t b = 0; b < 3; ++b) {
      ingest::Batch batch;
      batch.id = b;
      batch.files = {{"/landing/orders/" + std::to_string(b) + ".jsonl", 10, 1}};
      ASSERT_TRUE((*c)->Plan(batch).has_value());
      const std::string report = "{\"batch\":" + std::to_string(b) +
                                 ",\"records_in\":" + std::to_string(10 * (b + 1)) + "}";
      ASSERT_TRUE((*c)->Stage(b, 0, "", report).has_value());
      ASSERT_TRUE((*c)->MarkCommitted(b, b, 0, 0).has_value());
      ASSERT_TRUE((*c)->MarkDone(b).has_value());
    }
    ASSERT_TRUE(LocalFileSystem()
                    ->WriteFile(ckpt + "/quarantine.jsonl",
                                "{\"n\":1,\"reason\":\"bad\"}\n{\"n\":2,\"reason\":\"<b>x</b>\"}\n"
                                "{\"n\":3,\"reason\":\"worse\"}\n{\"n\":4,\"partial")
                    .has_value());
  }

  void MakeOutbox() {
    auto outbox = alert::Outbox::Open((dir_ / "alerts.db").string());
    ASSERT_TRUE(outbox.has_value()) << outbox.error().message();
    const std::string report = R"({"source":"orders-value","verdict":"breaking"})";
    std::vector<alert::OutboxItem> items = {
        {alert::ParseTarget("webhook:https://hooks.example/x").value(),
         alert::Message{"id-1", "application/json", "", report}},
        {alert::ParseTarget("slack:https://hooks.slack.com/services/x").value(),
         alert::Message{"id-1", "application/json", "", R"({"text":"hi"})"}}};
    auto stored = (*outbox)->Enqueue(alert::AlertKey{"orders-value", "old", "new"}, items, 1000);
    ASSERT_TRUE(stored.has_value()) << stored.error().message();
    ASSERT_EQ(*stored, 2);
  }

  std::string table_;
};

TEST_F(UiDataTest, TablesListedWithTheirLatestCommit) {
  JsonValue list = GetJson("/ui/api/tables");
  ASSERT_EQ(list.size(), 1u);
  const JsonValue& t = list.items()[0];
  EXPECT_EQ(t.Find("name")->as_string(), "users");
  EXPECT_EQ(t.Find("path")->as_string(), table_);
  EXPECT_EQ(t.Find("version")->number_text(), "1");
  EXPECT_EQ(t.Find("operation")->as_string(), "WRITE");
  EXPECT_EQ(t.Find("updatedAt")->as_string().size(), 24u) << t.Find("updatedAt")->as_string();
  EXPECT_EQ(t.Find("updatedAt")->as_string().back(), 'Z');
}

TEST_F(UiDataTest, ATablesHistoryIsTheHistoryCommandsJson) {
  auto r = Get("/ui/api/tables/users/history");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  JsonValue h = ParseOrDie(r->body);
  ASSERT_TRUE(h.is_object()) << r->body;
  // The mergeSchema commit's diff: email added.
  EXPECT_NE(r->body.find("\"email\""), std::string::npos);
  EXPECT_NE(r->body.find("field_added"), std::string::npos);
}

TEST_F(UiDataTest, ATablesSchemaAtAnyVersion) {
  JsonValue s = GetJson("/ui/api/tables/users/schema");
  EXPECT_EQ(s.Find("version")->number_text(), "1");
  EXPECT_NE(FindNode(*s.Find("fields"), "email"), nullptr);
  EXPECT_EQ(FindNode(*s.Find("fields"), "id")->Find("type")->as_string(), "int32");
  EXPECT_EQ(s.Find("properties")->Find("delta.appendOnly")->as_string(), "false");
  EXPECT_EQ(s.Find("properties")->Find("delta.constraints.id_positive"), nullptr);
  EXPECT_EQ(s.Find("constraints")->Find("id_positive")->as_string(), "id > 0");
  EXPECT_TRUE(s.Find("partitionColumns")->is_array());
  const JsonValue& p = *s.Find("protocol");
  EXPECT_TRUE(p.Find("minReaderVersion")->is_number());
  EXPECT_TRUE(p.Find("minWriterVersion")->is_number());
  EXPECT_TRUE(p.Find("readerFeatures")->is_array());
  EXPECT_TRUE(p.Find("writerFeatures")->is_array());
  JsonValue v0 = GetJson("/ui/api/tables/users/schema?version=0");
  EXPECT_EQ(v0.Find("version")->number_text(), "0");
  EXPECT_EQ(FindNode(*v0.Find("fields"), "email"), nullptr);
  JsonValue gone = GetJson("/ui/api/tables/users/schema?version=9", 404);
  EXPECT_EQ(gone.Find("error_code")->number_text(), "40401");
  GetJson("/ui/api/tables/users/schema?version=-1", 422);
  GetJson("/ui/api/tables/nope/schema", 404);
}

TEST_F(UiDataTest, IngestBatchesAndQuarantineNewestLast) {
  JsonValue list = GetJson("/ui/api/ingest");
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list.items()[0].Find("name")->as_string(), "orders");
  EXPECT_EQ(list.items()[0].Find("source")->as_string(), "/landing/orders");
  EXPECT_EQ(list.items()[0].Find("table")->as_string(), table_);
  JsonValue batches = GetJson("/ui/api/ingest/orders/batches");
  ASSERT_EQ(batches.Find("batches")->size(), 3u);
  EXPECT_EQ(batches.Find("batches")->items()[2].Find("batch")->number_text(), "2");
  JsonValue two = GetJson("/ui/api/ingest/orders/batches?limit=2");
  ASSERT_EQ(two.Find("batches")->size(), 2u);
  EXPECT_EQ(two.Find("batches")->items()[0].Find("batch")->number_text(), "1");
  GetJson("/ui/api/ingest/orders/batches?limit=x", 422);
  // The last complete lines; a line still being written is left out.
  JsonValue q = GetJson("/ui/api/ingest/orders/quarantine?limit=2");
  ASSERT_EQ(q.Find("samples")->size(), 2u);
  EXPECT_EQ(q.Find("samples")->items()[0].Find("reason")->as_string(), "<b>x</b>");
  EXPECT_EQ(q.Find("samples")->items()[1].Find("n")->number_text(), "3");
}

TEST_F(UiDataTest, AlertsFromEveryOutboxWithTheWebhookReport) {
  JsonValue a = GetJson("/ui/api/alerts");
  const auto& alerts = a.Find("alerts")->items();
  ASSERT_EQ(alerts.size(), 2u);
  const JsonValue* webhook = nullptr;
  const JsonValue* slack = nullptr;
  for (const JsonValue& x : alerts) {
    (x.Find("kind")->as_string() == "webhook" ? webhook : slack) = &x;
  }
  ASSERT_TRUE(webhook && slack);
  EXPECT_EQ(webhook->Find("source")->as_string(), "orders-value");
  EXPECT_EQ(webhook->Find("state")->as_string(), "pending");
  EXPECT_EQ(webhook->Find("attempts")->number_text(), "0");
  EXPECT_EQ(webhook->Find("createdAt")->as_string(), "1970-01-01T00:00:01.000Z");
  EXPECT_TRUE(webhook->Find("deliveredAt")->is_null());
  EXPECT_NE(webhook->Find("target")->as_string().find("hooks.example"), std::string::npos);
  EXPECT_EQ(webhook->Find("report")->Find("verdict")->as_string(), "breaking");
  EXPECT_TRUE(slack->Find("report")->is_null());
  // The missing outbox was not created by looking at it.
  EXPECT_FALSE(stdfs::exists(dir_ / "none.db"));
  EXPECT_FALSE(stdfs::exists(dir_ / "empty-folder" / ".sluice-alerts.db"));
  EXPECT_TRUE(a.Find("errors")->items().empty());
}

}  // namespace
}  // namespace sluice::ui::uitest
