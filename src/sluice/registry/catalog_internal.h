// The registry's SQL: every statement it runs on a Store connection, with typed rows. Store
// failures come back as 50001 API errors. The tables are described in
// docs/formats/registry-storage.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/evolution/compatibility.h"
#include "sluice/registry/api_error_internal.h"
#include "sluice/registry/request_internal.h"
#include "sluice/registry/store.h"

namespace sluice::registry::internal {

/// One subject version as stored.
struct VersionRow {
  int64_t version = 0;
  int64_t schema_id = 0;
  bool deleted = false;
  std::string fingerprint;
};

/// One stored schema.
struct SchemaRow {
  int64_t id = 0;
  SchemaType type = SchemaType::kAvro;
  std::string text;
  std::string refs = "[]";  // JSON array of {"name", "subject", "version"}
};

/// The key that makes two registrations the same schema: type, stored text and references.
std::string Fingerprint(SchemaType type, std::string_view text, std::string_view refs);

/// A transaction that rolls back unless committed.
class Transaction {
 public:
  explicit Transaction(Connection& c) : c_(c) {}
  ~Transaction() {
    if (open_) c_.Rollback();
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  /// A write transaction (serialized with every other writer), or a read-only snapshot.
  Status Begin(bool write);
  Status Commit();

 private:
  Connection& c_;
  bool open_ = false;
};

/// The registry's statements over one connection. Not thread-safe, as the connection.
class Catalog {
 public:
  explicit Catalog(Connection& c) : c_(c) {}
  Connection& connection() { return c_; }

  // ---- subjects and versions ----
  /// Every version of `subject`, soft-deleted ones included, oldest first.
  Result<std::vector<VersionRow>> Versions(std::string_view subject);
  /// Subjects with whether any version is live and whether any is soft-deleted, by name.
  struct SubjectRow {
    std::string subject;
    bool any_live = false;
    bool any_deleted = false;
  };
  Result<std::vector<SubjectRow>> Subjects();
  /// The versions holding schema `id`, by subject and version.
  struct Holder {
    std::string subject;
    int64_t version = 0;
    bool deleted = false;
  };
  Result<std::vector<Holder>> Holders(int64_t id);
  /// The subjects with a version (live or soft-deleted) holding schema `id`.
  Result<std::vector<std::string>> SubjectsHolding(int64_t id);
  /// Every version with its schema, by subject and version.
  struct Listed {
    std::string subject;
    int64_t version = 0;
    bool deleted = false;
    SchemaRow schema;
  };
  Result<std::vector<Listed>> AllVersions();
  /// The number of versions of `subject`, or of every subject when it is empty.
  Result<int64_t> CountVersions(std::string_view subject);
  Status InsertVersion(std::string_view subject, int64_t version, int64_t schema_id);
  Status SoftDelete(std::string_view subject);
  Status SoftDelete(std::string_view subject, int64_t version);
  Status HardDelete(std::string_view subject);
  Status HardDelete(std::string_view subject, int64_t version);
  /// Removes a subject's own config and mode (its last version is gone).
  Status ForgetSubject(std::string_view subject);

  // ---- schemas ----
  Result<std::optional<SchemaRow>> SchemaById(int64_t id);
  /// The schema a version names; 50001 if it is missing.
  Result<SchemaRow> SchemaOf(const VersionRow& version);
  /// The smallest id holding this fingerprint.
  Result<std::optional<int64_t>> IdOfFingerprint(std::string_view fingerprint);
  /// The highest id given out so far.
  Result<int64_t> MaxId();
  /// A fresh id from the counter.
  Result<int64_t> NextId();
  /// An imported id raises the counter, so later registrations never take it.
  Status ReserveId(int64_t id);
  Status InsertSchema(int64_t id, SchemaType type, std::string_view text, std::string_view refs,
                      std::string_view fingerprint);
  /// Removes schema `id` unless a version still names it.
  Status RemoveIfOrphan(int64_t id);
  /// Ids of the schemas whose references name `subject` version `version`; with `live_only`,
  /// only those that are still a live version somewhere.
  Result<std::vector<int64_t>> Referrers(std::string_view subject, int64_t version, bool live_only);

  // ---- config and mode ("" is the registry as a whole) ----
  Result<std::optional<evolution::CompatibilityMode>> Compatibility(std::string_view scope);
  /// The subject's level, else the registry's, else `fallback`.
  Result<evolution::CompatibilityMode> EffectiveCompatibility(
      std::string_view subject, evolution::CompatibilityMode fallback);
  Status SetCompatibility(std::string_view scope, evolution::CompatibilityMode level);
  Status ClearCompatibility(std::string_view scope);
  Result<std::optional<Mode>> ModeOf(std::string_view scope);
  /// The subject's mode, else the registry's, else READWRITE.
  Result<Mode> EffectiveMode(std::string_view subject);
  Status SetMode(std::string_view scope, Mode mode);
  Status ClearMode(std::string_view scope);

 private:
  Result<std::vector<SqlRow>> Query(std::string_view sql,
                                    std::initializer_list<SqlParam> params = {});
  Status Exec(std::string_view sql, std::initializer_list<SqlParam> params = {});
  Result<std::optional<std::string>> ScopeValue(std::string_view sql, std::string_view scope);

  Connection& c_;
};

}  // namespace sluice::registry::internal
