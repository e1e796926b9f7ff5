#include "sluice/base/sqlite_db.h"

namespace sluice {

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path, std::string_view what,
                                                 Mode mode, int busy_timeout_ms) {
  sqlite3* raw = nullptr;
  const int flags =
      mode == Mode::kReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  if (sqlite3_open_v2(path.c_str(), &raw, flags, nullptr) != SQLITE_OK) {
    std::string message = raw ? sqlite3_errmsg(raw) : "out of memory";
    sqlite3_close(raw);
    return IoError("cannot open " + std::string(what) + " " + path + ": " + message);
  }
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  std::unique_ptr<SqliteDb> db(new SqliteDb(raw, path, std::string(what)));
  if (mode == Mode::kDurable) {
    for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL"}) {
      SLUICE_TRY(db->Exec(pragma));
    }
  }
  return db;
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

Result<std::vector<SqliteDb::Row>> SqliteDb::Query(std::string_view sql,
                                                   std::initializer_list<Param> params) {
  sqlite3_stmt* stmt = nullptr;
  auto failed = [&]() {
    std::string message = sqlite3_errmsg(db_);
    sqlite3_finalize(stmt);
    return IoError(what_ + " " + path_ + ": " + message);
  };
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    return failed();
  }
  int i = 1;
  for (const Param& p : params) {
    int rc = SQLITE_OK;
    if (const auto* v = std::get_if<int64_t>(&p)) {
      rc = sqlite3_bind_int64(stmt, i, *v);
    } else if (const auto* t = std::get_if<std::string_view>(&p)) {
      rc = sqlite3_bind_text64(stmt, i, t->data(), t->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    } else {
      rc = sqlite3_bind_null(stmt, i);
    }
    if (rc != SQLITE_OK) return failed();
    ++i;
  }
  std::vector<Row> rows;
  for (;;) {
    int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) return failed();
    Row row;
    for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
      if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
        row.emplace_back();
      } else {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        row.emplace_back(std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt, c))));
      }
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(stmt);
  return rows;
}

Status SqliteDb::Exec(std::string_view sql, std::initializer_list<Param> params) {
  SLUICE_ASSIGN_OR_RETURN(auto rows, Query(sql, params));
  (void)rows;
  return Ok();
}

}  // namespace sluice
