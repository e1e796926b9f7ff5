#include "sluice/data/file_runs.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <thread>
#include <unordered_map>

#include "sluice/base/json_writer.h"
#include "sluice/base/std_io.h"
#include "sluice/base/strings.h"
#include "sluice/data/avro_container.h"
#include "sluice/data/block_reader_internal.h"
#include "sluice/data/name_index_internal.h"
#include "sluice/data/parquet_source.h"
#include "sluice/data/rescued_object_internal.h"

namespace sluice::data {

namespace {

using internal::Block;
using internal::BlockReader;
using internal::kPad;

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// ---------------------------------------------------------------------------------------------
// What one block produced; lines are relative to the block (0 = its first line) until merged.

struct QuarantineEntry {
  uint64_t rel_line = 0;
  uint64_t offset = 0;
  int64_t error_offset = -1;
  std::string error;
  std::vector<std::pair<std::string, ViolationKind>> violations;
  // The record's bytes, in its block (which lives until the block is merged).
  std::string_view raw;
};

struct ViolationTally {
  std::string path;
  ViolationKind kind;
  uint64_t count = 0;
  std::vector<uint64_t> rel_lines;
};

struct BlockResult {
  static constexpr size_t kKeepBytes = size_t{64} << 20;
  std::string out;
  // With a stage that takes a tape: where the values of `out`'s lines lie.
  LeafTape tape;
  std::vector<QuarantineEntry> quarantine;
  std::vector<ViolationTally> tallies;
  std::unordered_map<std::string, size_t> tally_index;
  uint64_t newlines = 0;
  uint64_t records_in = 0;
  uint64_t valid = 0;
  uint64_t rescued = 0;
  uint64_t with_new_columns = 0;
  uint64_t quarantined = 0;
  uint64_t malformed = 0;
  bool stopped = false;  // failfast: the last quarantine entry is where the run stops
  // Inference: the first error (failfast), at rel_line.
  std::optional<std::pair<uint64_t, Status>> error;
  // Validation with a RecordStage: `out` in the stage's form, made on the worker, or why not.
  std::unique_ptr<StagedRecords> staged;
  std::optional<Error> stage_error;

  void Clear() {
    ClearRecords();
    // Output of a block of long lines is given back rather than kept for the next block.
    if (out.capacity() > kKeepBytes) std::string().swap(out);
    newlines = 0;
    stopped = false;
    error.reset();
  }
  // What was merged of a block so far (see Job::merge_part).
  void ClearRecords() {
    out.clear();
    tape.Clear();
    staged.reset();
    stage_error.reset();
    quarantine.clear();
    tallies.clear();
    tally_index.clear();
    records_in = valid = rescued = with_new_columns = quarantined = malformed = 0;
  }
  void Tally(const RecordViolation& v, uint64_t rel_line, size_t keep) {
    std::string key = v.path;
    key += '\0';
    key += static_cast<char>(v.kind);
    auto [it, inserted] = tally_index.try_emplace(std::move(key), tallies.size());
    if (inserted) tallies.push_back({v.path, v.kind, 0, {}});
    ViolationTally& t = tallies[it->second];
    ++t.count;
    if (t.rel_lines.size() < keep && (t.rel_lines.empty() || t.rel_lines.back() != rel_line)) {
      t.rel_lines.push_back(rel_line);
    }
  }
};

struct Job {
  uint64_t seq = 0;
  Block block;
  BlockResult result;
  // Set while the block runs alone on the calling thread (see BlockDriver): hands the results
  // so far to the merge and clears them; false to stop reading.
  std::function<bool()> merge_part;
};

// Hands a block's results so far to the merge when it runs alone and holds a few megabytes of
// output or many quarantine entries (see Job::merge_part). False: stop reading.
bool MergeSoFar(Job& job) {
  constexpr size_t kPartBytes = size_t{4} << 20;
  constexpr size_t kPartEntries = 4096;
  if (!job.merge_part) return true;
  if (job.result.out.size() < kPartBytes && job.result.quarantine.size() < kPartEntries) {
    return true;
  }
  return job.merge_part();
}

// Runs jobs on worker threads and hands them back in submission order.
class OrderedPool {
 public:
  using Work = std::function<void(unsigned worker, Job&)>;
  OrderedPool(unsigned threads, Work work) : work_(std::move(work)) {
    for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this, i] { Loop(i); });
  }
  ~OrderedPool() {
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    cv_work_.notify_all();
    for (std::thread& t : workers_) t.join();
  }
  void Submit(std::unique_ptr<Job> job) {
    job->seq = next_seq_++;
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(job));
    }
    cv_work_.notify_one();
  }
  size_t in_flight() const { return next_seq_ - next_out_; }
  std::unique_ptr<Job> Take() {
    std::unique_lock lock(mu_);
    cv_done_.wait(lock, [&] { return done_.count(next_out_) != 0; });
    auto it = done_.find(next_out_);
    std::unique_ptr<Job> job = std::move(it->second);
    done_.erase(it);
    ++next_out_;
    return job;
  }

 private:
  void Loop(unsigned index) {
    while (true) {
      std::unique_ptr<Job> job;
      {
        std::unique_lock lock(mu_);
        cv_work_.wait(lock, [&] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      work_(index, *job);
      {
        std::lock_guard lock(mu_);
        uint64_t seq = job->seq;
        done_.emplace(seq, std::move(job));
      }
      cv_done_.notify_all();
    }
  }

  Work work_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_work_;
  std::condition_variable cv_done_;
  std::deque<std::unique_ptr<Job>> queue_;
  std::map<uint64_t, std::unique_ptr<Job>> done_;
  bool closing_ = false;
  uint64_t next_seq_ = 0;
  uint64_t next_out_ = 0;
};

unsigned ThreadCount(unsigned requested) {
  if (requested != 0) return requested;
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

// Drives blocks of every file through `work` (on the pool, or inline for one thread) and hands
// each finished block to `merge` in file order. `prepare` runs on the calling thread for each
// block before it is submitted (CSV headers); it may fail the run. `merge` returns false to
// stop reading (failfast, a failed sink).
struct BlockDriver {
  unsigned threads = 1;
  // Parquet and Avro inputs are read as their rows' JSON lines.
  RecordFormat format = RecordFormat::kJsonLines;
  // Parquet inputs: the row screen their rows are judged against while decoded, if any, and
  // whether the rows that pass are wanted as text.
  const parquet::RowScreen* screen = nullptr;
  bool screen_text_free = false;
  size_t block_bytes = 0;
  std::function<bool(uint32_t file)> whole_file;
  std::function<Status(Block&)> prepare;
  std::function<void(unsigned worker, Job&)> work;
  std::function<bool(Job&)> merge;
  // Optional: merge the results a block has so far, while it runs alone (the rest follows in
  // `merge`), so that a long block's output is written as it is made.
  std::function<bool(Job&)> merge_part;
  std::function<void(uint64_t bytes_done, uint64_t bytes_total)> progress;

  Status Run(FileSystem& fs, const std::vector<std::string>& files) {
    uint64_t total = 0;
    for (const std::string& f : files) {
      if (f == "-") continue;
      auto info = fs.Stat(f);
      if (info.has_value() && info->kind == FileKind::kFile) total += info->size;
    }
    uint64_t done_bytes = 0;
    std::vector<std::unique_ptr<Job>> free_jobs;
    auto fresh = [&] {
      if (free_jobs.empty()) return std::make_unique<Job>();
      std::unique_ptr<Job> j = std::move(free_jobs.back());
      free_jobs.pop_back();
      return j;
    };
    bool go_on = true;
    auto finish = [&](std::unique_ptr<Job> job) {
      done_bytes += job->block.size;
      if (go_on && !merge(*job)) go_on = false;
      if (progress) progress(done_bytes, total);
      job->result.Clear();
      // The buffer of a long line is given back rather than kept for the blocks after it.
      if (job->block.buf.capacity() > 4 * block_bytes + kPad) job->block.buf.Release();
      free_jobs.push_back(std::move(job));
    };
    // A Parquet file's rows are decoded and written out as JSON lines on a thread of their own
    // (parquet_source.h), which keeps a core busy: the workers get the others. With two cores,
    // the blocks are then checked on this thread beside it, as with one; a pool of two workers
    // beside it made the scan slower than one thread (bench/README.md, Parquet).
    const unsigned workers =
        format == RecordFormat::kParquet ? std::max(1u, threads - 1) : std::max(1u, threads);
    std::optional<OrderedPool> pool;
    if (workers > 1) pool.emplace(workers, work);
    const size_t max_in_flight = 2 * static_cast<size_t>(workers) + 2;
    // Blocks of long lines are larger than block_bytes: the bytes in flight are bounded too.
    const size_t max_bytes_in_flight = max_in_flight * block_bytes;
    size_t bytes_in_flight = 0;
    auto take = [&] {
      std::unique_ptr<Job> job = pool->Take();
      bytes_in_flight -= job->block.size;
      finish(std::move(job));
    };
    Status status = Ok();
    BlockReader reader(fs);
    for (uint32_t fi = 0; fi < files.size() && go_on && status.has_value(); ++fi) {
      status = reader.Open(files[fi], format, screen, screen_text_free, threads);
      if (!status.has_value()) break;
      const bool whole = whole_file && whole_file(fi);
      while (go_on) {
        std::unique_ptr<Job> job = fresh();
        job->block.file = fi;
        Result<bool> more = reader.Next(job->block, block_bytes, whole);
        if (!more.has_value()) {
          status = Fail(more.error());
          break;
        }
        if (!*more) {
          free_jobs.push_back(std::move(job));
          break;
        }
        if (prepare) {
          status = prepare(job->block);
          if (!status.has_value()) break;
        }
        const size_t bytes = job->block.size;
        if (pool && bytes > max_bytes_in_flight) {
          // A block this large is a long line: it runs alone, here, once the blocks before it
          // are merged, and the next block is read after it, so that one such block is held
          // at a time. The workers are idle, so worker 0's state is free to use.
          while (pool->in_flight() > 0) take();
        }
        if (!pool || bytes > max_bytes_in_flight) {
          if (merge_part) {
            job->merge_part = [&, j = job.get()] {
              if (go_on && !merge_part(*j)) go_on = false;
              return go_on;
            };
          }
          work(0, *job);
          job->merge_part = nullptr;
          finish(std::move(job));
          continue;
        }
        while (pool->in_flight() >= max_in_flight ||
               (pool->in_flight() > 0 && bytes_in_flight + bytes > max_bytes_in_flight)) {
          take();
        }
        bytes_in_flight += bytes;
        pool->Submit(std::move(job));
      }
      reader.Close();
    }
    if (pool) {
      while (pool->in_flight() > 0) take();
    }
    return status;
  }
};

bool IsBlank(std::string_view s) {
  for (char c : s) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return false;
  }
  return true;
}

// Calls fn(rel_line, offset_in_block, text) for each non-blank line (each line, with
// `blank_lines`) of the block after its skipped prefix; fn returns false to stop. Returns the
// number of line breaks in the block.
template <typename Fn>
uint64_t ForEachLine(const Block& b, bool blank_lines, Fn&& fn) {
  const char* p = b.buf.data();
  const size_t n = b.size;
  size_t pos = b.skip;
  uint64_t rel = b.skip_lines;
  bool go = true;
  while (pos < n) {
    const void* nl = std::memchr(p + pos, '\n', n - pos);
    size_t end = nl ? static_cast<size_t>(static_cast<const char*>(nl) - p) : n;
    size_t stop = end;
    if (stop > pos && p[stop - 1] == '\r') --stop;
    std::string_view line(p + pos, stop - pos);
    if (go && (blank_lines ? nl != nullptr || !line.empty() : !IsBlank(line))) {
      go = fn(rel, pos, line);
    }
    if (nl == nullptr) break;
    ++rel;
    pos = end + 1;
    if (!go) {
      // Still count the line breaks so the caller's line numbers stay right.
      rel += static_cast<uint64_t>(std::count(p + pos, p + n, '\n'));
      break;
    }
  }
  return rel;
}

void SkipBom(Block& b) {
  if (b.file_start && b.text().starts_with(kBom)) b.skip = kBom.size();
}

// The top-level elements of a JSON array document, found one at a time by bracket depth
// outside strings (nothing is held per element, however many there are).
struct Element {
  size_t begin = 0;
  size_t end = 0;
};
class ArrayElements {
 public:
  /// `text` from `pos`, just after the '['.
  ArrayElements(std::string_view text, size_t pos) : text_(text), i_(pos) {
    SkipSpace();
    if (i_ < text_.size() && text_[i_] == ']') {
      ++i_;
      Close();
    }
  }

  /// The next element; false when there are no more: then bad_at() is where the document
  /// stops making sense (npos when the array closed properly) and why() says how.
  bool Next(Element* e) {
    if (done_) return false;
    SkipSpace();
    const size_t begin = i_;
    int depth = 0;
    bool in_string = false;
    for (; i_ < text_.size(); ++i_) {
      const char c = text_[i_];
      if (in_string) {
        if (c == '\\') {
          ++i_;
        } else if (c == '"') {
          in_string = false;
        }
        continue;
      }
      if (c == '"') {
        in_string = true;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if (c == '}' || c == ']') {
        if (depth == 0) break;
        --depth;
      } else if (c == ',' && depth == 0) {
        break;
      }
    }
    if (i_ >= text_.size()) return Stop(begin, "the array is not closed");
    size_t end = i_;
    while (end > begin && (text_[end - 1] == ' ' || text_[end - 1] == '\t' ||
                           text_[end - 1] == '\r' || text_[end - 1] == '\n')) {
      --end;
    }
    if (end == begin) return Stop(begin, "an empty array element");
    *e = {begin, end};
    if (text_[i_] == ',') {
      ++i_;
    } else if (text_[i_] == ']') {
      ++i_;
      Close();
    } else {  // '}' at depth 0
      done_ = true;
      bad_at_ = i_;
      why_ = "unbalanced '}'";
    }
    return true;
  }

  size_t bad_at() const { return bad_at_; }
  const std::string& why() const { return why_; }

 private:
  void SkipSpace() {
    while (i_ < text_.size() &&
           (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\r' || text_[i_] == '\n')) {
      ++i_;
    }
  }
  // After the closing ']': only whitespace may follow.
  void Close() {
    done_ = true;
    SkipSpace();
    if (i_ != text_.size()) {
      bad_at_ = i_;
      why_ = "characters after the end of the document";
    }
  }
  bool Stop(size_t at, const char* why) {
    done_ = true;
    bad_at_ = at;
    why_ = why;
    return false;
  }

  std::string_view text_;
  size_t i_;
  bool done_ = false;
  size_t bad_at_ = std::string::npos;
  std::string why_;
};

uint64_t CountNewlines(std::string_view text, size_t from, size_t to) {
  return static_cast<uint64_t>(std::count(text.data() + from, text.data() + to, '\n'));
}

uint64_t SampleHash(uint64_t file, uint64_t offset) {
  uint64_t z = (file << 48) ^ offset ^ 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

bool Sampled(double ratio, uint64_t file, uint64_t offset) {
  if (ratio >= 1.0) return true;
  if (ratio <= 0.0) return false;
  return static_cast<double>(SampleHash(file, offset) >> 11) * 0x1.0p-53 < ratio;
}

std::string_view ModeName(ParseMode m) {
  switch (m) {
    case ParseMode::kPermissive:
      return "permissive";
    case ParseMode::kDropMalformed:
      return "dropmalformed";
    case ParseMode::kFailFast:
      return "failfast";
  }
  return "permissive";
}

std::string_view FormatName(RecordFormat f) {
  switch (f) {
    case RecordFormat::kJsonLines:
      return "jsonl";
    case RecordFormat::kJson:
      return "json";
    case RecordFormat::kCsv:
      return "csv";
    case RecordFormat::kParquet:
      return "parquet";
    case RecordFormat::kAvro:
      return "avro";
  }
  return "jsonl";
}

// Writes quarantine lines (docs/formats/quarantine.md) to a sink through a buffer that is flushed
// whenever it holds a megabyte: a record's raw bytes are escaped (or base64-encoded) a piece at a
// time, so a quarantined record of hundreds of megabytes is never copied whole.
class QuarantineWriter {
 public:
  explicit QuarantineWriter(ByteSink& sink) : sink_(sink) {}

  Status Add(const std::string& file, uint64_t line, const QuarantineEntry& q) {
    JsonWriter w;
    w.BeginObject();
    w.Key("file");
    w.String(file);
    w.Key("line");
    w.Uint(line);
    w.Key("offset");
    w.Uint(q.offset);
    if (q.error_offset >= 0) {
      w.Key("error_offset");
      w.Uint(static_cast<uint64_t>(q.error_offset));
    }
    w.Key("error");
    w.String(q.error);
    w.Key("violations");
    w.BeginArray();
    for (const auto& [path, kind] : q.violations) {
      w.BeginObject();
      w.Key("path");
      w.String(path);
      w.Key("kind");
      w.String(ViolationKindName(kind));
      w.EndObject();
    }
    w.EndArray();
    w.Key("raw");
    buf_ += w.str();
    // The raw value and the rest of the object, as JsonWriter writes them.
    const bool utf8 = IsValidUtf8(q.raw);
    buf_ += '"';
    for (size_t at = 0; at < q.raw.size(); at += kPieceBytes) {
      const std::string_view piece = q.raw.substr(at, kPieceBytes);
      if (utf8) {
        internal::AppendJsonEscaped(buf_, piece);
      } else {
        buf_ += Base64Encode(piece);  // whole 3-byte groups: the pieces join up
      }
      if (buf_.size() >= kFlushBytes) SLUICE_TRY(Flush());
    }
    buf_ += '"';
    buf_ += utf8 ? R"(,"raw_encoding":"utf8"})" : R"(,"raw_encoding":"base64"})";
    buf_ += '\n';
    if (buf_.size() >= kFlushBytes) SLUICE_TRY(Flush());
    return Ok();
  }

  Status Flush() {
    if (buf_.empty()) return Ok();
    Status s = sink_.Write(buf_);
    buf_.clear();
    return s;
  }

 private:
  static constexpr size_t kPieceBytes = size_t{3} << 18;  // a multiple of 3, for base64
  static constexpr size_t kFlushBytes = size_t{1} << 20;
  ByteSink& sink_;
  std::string buf_;
};

// CSV: how one file's columns map onto the schema.
struct CsvFileLayout {
  RecordValidator::CsvLayout layout;
};

// Maps CSV headers onto a flat schema's top-level fields through an index of the fields' names
// and one of their ASCII-lowercased names, so that a header of any width maps in one pass.
class CsvColumnMap {
 public:
  CsvColumnMap(const schema::Schema& schema, const std::string& rescued_column,
               const CsvRunOptions& options, bool match_ignoring_case)
      : top_(schema.fields()), options_(options), match_ignoring_case_(match_ignoring_case) {
    for (size_t i = 0; i < top_.size(); ++i) {
      if (!rescued_column.empty() && top_[i].name() == rescued_column) {
        rescued_index_ = static_cast<int>(i);
      }
    }
    for (size_t i = 0; i < top_.size(); ++i) {
      by_name_.emplace(top_[i].name(), i);
      if (static_cast<int>(i) != rescued_index_)
        lower_names_.emplace(AsciiLower(top_[i].name()), i);
    }
  }

  /// The layout for a file with this header; without one, the fields in order (the rescued
  /// column left out).
  std::shared_ptr<const CsvFileLayout> Layout(const std::vector<std::string>* header) const {
    auto l = std::make_shared<CsvFileLayout>();
    l->layout.null_value = options_.null_value;
    l->layout.empty_value = options_.empty_value;
    if (header == nullptr) {
      for (size_t i = 0; i < top_.size(); ++i) {
        if (static_cast<int>(i) == rescued_index_) continue;
        l->layout.columns.push_back(static_cast<int>(i));
        l->layout.header.push_back(top_[i].name());
      }
      return l;
    }
    std::vector<bool> used(top_.size(), false);
    for (const std::string& name : *header) {
      int col = -1;
      if (auto it = by_name_.find(name); it != by_name_.end()) {
        const size_t i = it->second;
        col = used[i] ? -3 : static_cast<int>(i);  // -3: a second column of that name
        used[i] = true;
      } else if (auto lower = lower_names_.find(AsciiLower(name)); lower != lower_names_.end()) {
        if (!match_ignoring_case_) {
          col = -2;  // case mismatch: rescued, as Auto Loader does
        } else {
          const size_t i = lower->second;  // the field itself, as a Delta write matches it
          col = used[i] ? -3 : static_cast<int>(i);
          used[i] = true;
        }
      }
      l->layout.columns.push_back(col);
      l->layout.header.push_back(name);
    }
    return l;
  }

 private:
  const std::vector<schema::Field>& top_;
  const CsvRunOptions& options_;
  int rescued_index_ = -1;
  internal::StringMap<size_t> by_name_;      // the first field of each name
  internal::StringMap<size_t> lower_names_;  // every field's but the rescued column's: its first
  bool match_ignoring_case_ = false;
};

bool SchemaIsFlat(const schema::Schema& s) {
  for (const schema::Field& f : s.fields()) {
    switch (f.type()->kind()) {
      case schema::TypeKind::kStruct:
      case schema::TypeKind::kArray:
      case schema::TypeKind::kMap:
        return false;
      case schema::TypeKind::kNull:
      case schema::TypeKind::kBoolean:
      case schema::TypeKind::kInt8:
      case schema::TypeKind::kInt16:
      case schema::TypeKind::kInt32:
      case schema::TypeKind::kInt64:
      case schema::TypeKind::kFloat32:
      case schema::TypeKind::kFloat64:
      case schema::TypeKind::kDecimal:
      case schema::TypeKind::kString:
      case schema::TypeKind::kBinary:
      case schema::TypeKind::kDate:
      case schema::TypeKind::kTime:
      case schema::TypeKind::kTimestamp:
      case schema::TypeKind::kTimestampNtz:
      case schema::TypeKind::kUuid:
        break;
    }
  }
  return true;
}

// Reads the header record at the start of a file's first block: sets the block's skip and
// returns the header's cells. nullopt when the block holds no record at all.
std::optional<std::vector<std::string>> ReadCsvHeader(Block& b, const CsvOptions& options) {
  CsvReader reader(b.text(), options, 1, b.base_offset);
  CsvRecord rec;
  if (!reader.Next(rec)) return std::nullopt;
  std::vector<std::string> cells;
  for (const CsvField& f : rec.fields) cells.emplace_back(f.value);
  size_t end = static_cast<size_t>(rec.offset - b.base_offset) + rec.raw.size();
  // Past the line break that ends the header (CR LF or LF).
  if (end < b.size && b.buf[end] == '\r') ++end;
  if (end < b.size && b.buf[end] == '\n') ++end;
  b.skip = end;
  b.skip_lines = CountNewlines(b.text(), 0, end);
  return cells;
}

}  // namespace

Result<RecordFormat> ParseRecordFormat(std::string_view name) {
  std::string n = AsciiLower(name);
  if (n == "jsonl" || n == "ndjson" || n == "jsonlines" || n == "json-lines") {
    return RecordFormat::kJsonLines;
  }
  if (n == "json") return RecordFormat::kJson;
  if (n == "csv") return RecordFormat::kCsv;
  if (n == "parquet") return RecordFormat::kParquet;
  if (n == "avro") return RecordFormat::kAvro;
  return InvalidArgument(
      fmt::format("unknown record format '{}' (jsonl, json, csv, parquet, avro, auto)", name));
}

RecordFormat GuessRecordFormat(const std::string& path, std::string_view head) {
  std::string lower = AsciiLower(path);
  if (lower.ends_with(".csv") || lower.ends_with(".tsv")) return RecordFormat::kCsv;
  if (IsParquetFile(path, head)) return RecordFormat::kParquet;
  if (IsAvroContainer(path, head)) return RecordFormat::kAvro;
  if (lower.ends_with(".json")) {
    if (head.starts_with(kBom)) head.remove_prefix(kBom.size());
    size_t i = 0;
    while (i < head.size() && IsBlank(head.substr(i, 1))) ++i;
    if (i < head.size() && head[i] == '[') return RecordFormat::kJson;
  }
  return RecordFormat::kJsonLines;
}

Result<ValidateReport> ValidateFiles(const std::vector<std::string>& files,
                                     const schema::SchemaPtr& schema,
                                     const ValidateRunOptions& options, ByteSink& out,
                                     ByteSink& quarantine) {
  if (schema == nullptr) return InvalidArgument("no schema to validate against");
  ValidatorOptions vopts;
  vopts.rescued_column =
      options.mode == ParseMode::kPermissive ? options.rescued_column : std::string();
  vopts.allow_new_fields = options.allow_new_columns;
  vopts.ignore_unknown_fields = options.ignore_unknown_fields;
  vopts.match_fields_ignoring_case = options.match_fields_ignoring_case;
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const ValidationPlan> plan,
                          ValidationPlan::Compile(schema, vopts));
  const bool csv = options.format == RecordFormat::kCsv;
  if (csv && !SchemaIsFlat(*schema)) {
    return InvalidArgument(
        "CSV records cannot hold nested types: the schema has a struct, array or map column");
  }
  const unsigned threads = ThreadCount(options.threads);
  const bool failfast = options.mode == ParseMode::kFailFast;
  const size_t keep = options.example_lines;

  ValidateReport report;
  report.files = files;
  report.format = std::string(FormatName(options.format));
  report.mode = std::string(ModeName(options.mode));

  std::vector<RecordValidator> validators;
  for (unsigned i = 0; i < std::max(1u, threads); ++i) validators.emplace_back(plan);
  RecordStage* const stage = options.discard_valid ? nullptr : options.stage;
  // A stage that stores values by column is told where each valid record's values lie.
  const std::shared_ptr<const TapeMap> tape_map =
      stage == nullptr ? nullptr : stage->TapeMapFor(*plan);
  // Parquet: a file whose columns the schema reads only with loss (a timestamp for a date)
  // is checked with a plan of its own that refuses those columns' values; null: `plan`.
  std::vector<std::shared_ptr<const ValidationPlan>> file_plans(files.size());
  std::vector<std::shared_ptr<const TapeMap>> file_tape_maps(files.size());
  if (options.format == RecordFormat::kParquet) {
    for (size_t i = 0; i < files.size(); ++i) {
      // A file that cannot be read is reported by the run itself.
      auto source = MergeParquetSchemas(*options.fs, {files[i]});
      if (!source.has_value()) continue;
      SLUICE_ASSIGN_OR_RETURN(
          std::shared_ptr<const ValidationPlan> own,
          ValidationPlan::CompileForSource(schema, *source->value->struct_type(), vopts));
      if (!own->refuses_a_source_type()) continue;
      file_tape_maps[i] = stage == nullptr ? nullptr : stage->TapeMapFor(*own);
      file_plans[i] = std::move(own);
    }
  }
  std::vector<std::unordered_map<const ValidationPlan*, std::unique_ptr<RecordValidator>>>
      own_validators(validators.size());
  auto validator_for = [&](unsigned worker, size_t file) -> RecordValidator& {
    const ValidationPlan* own = file_plans[file].get();
    if (own == nullptr) return validators[worker];
    std::unique_ptr<RecordValidator>& v = own_validators[worker][own];
    if (v == nullptr) v = std::make_unique<RecordValidator>(file_plans[file]);
    return *v;
  };
  auto tape_of = [&](BlockResult& r, size_t file) -> LeafTape* {
    const std::shared_ptr<const TapeMap>& map =
        file_plans[file] == nullptr ? tape_map : file_tape_maps[file];
    if (r.tape.map != map) {
      r.tape.map = map;
      r.tape.Clear();
    }
    return map == nullptr ? nullptr : &r.tape;
  };

  // Outcome of one record, into the block's result.
  auto account = [&](BlockResult& r, const RecordResult& res, uint64_t rel, uint64_t offset,
                     std::string_view raw) -> bool {
    ++r.records_in;
    for (const RecordViolation& v : res.violations) r.Tally(v, rel, keep);
    switch (res.status) {
      case RecordStatus::kValid:
        ++r.valid;
        if (!res.violations.empty()) ++r.with_new_columns;  // a valid record's only notes
        return true;
      case RecordStatus::kRescued:
        ++r.valid;
        ++r.rescued;
        return true;
      case RecordStatus::kBad:
      case RecordStatus::kMalformed: {
        ++r.quarantined;
        QuarantineEntry q;
        q.rel_line = rel;
        q.offset = offset;
        if (res.status == RecordStatus::kMalformed) {
          ++r.malformed;
          q.error = res.error;
          if (res.error_offset > 0)
            q.error_offset = static_cast<int64_t>(offset) + res.error_offset;
        } else {
          std::string msg;
          size_t shown = 0;
          for (const RecordViolation& v : res.violations) {
            if (shown == 3) {
              msg += fmt::format("; and {} more", res.violations.size() - shown);
              break;
            }
            if (!msg.empty()) msg += "; ";
            msg += v.path.empty() ? std::string("record") : v.path;
            msg += ": ";
            msg += ViolationKindName(v.kind);
            if (!v.detail.empty()) {
              msg += " (";
              msg += v.detail;
              msg += ')';
            }
            ++shown;
          }
          q.error = msg.empty() ? std::string("the record does not fit the schema") : msg;
        }
        for (const RecordViolation& v : res.violations) q.violations.emplace_back(v.path, v.kind);
        q.raw = raw;
        r.quarantine.push_back(std::move(q));
        if (failfast) {
          r.stopped = true;
          return false;
        }
        return true;
      }
    }
    return true;
  };

  // Per-file CSV layouts, built on the calling thread from each file's header.
  std::vector<std::shared_ptr<const CsvFileLayout>> layouts(files.size());
  std::optional<CsvColumnMap> columns;
  if (csv) {
    columns.emplace(*schema, vopts.rescued_column, options.csv, options.match_fields_ignoring_case);
  }
  auto build_layout = [&](const std::vector<std::string>* header) {
    return columns->Layout(header);
  };
  std::shared_ptr<const CsvFileLayout> headerless;
  if (csv && !options.csv.header) headerless = build_layout(nullptr);

  BlockDriver driver;
  driver.threads = threads;
  driver.format = options.format;
  driver.block_bytes = std::max<size_t>(options.block_bytes, 4096);
  driver.whole_file = [&](uint32_t) {
    return options.format == RecordFormat::kJson || (csv && options.csv.reader.multi_line);
  };
  driver.prepare = [&](Block& b) -> Status {
    if (!csv) {
      SkipBom(b);
      return Ok();
    }
    if (!b.file_start) return Ok();
    if (!options.csv.header) {
      layouts[b.file] = headerless;
      return Ok();
    }
    std::optional<std::vector<std::string>> header = ReadCsvHeader(b, options.csv.reader);
    if (!header) {
      layouts[b.file] = build_layout(nullptr);  // no records at all
      return Ok();
    }
    for (const std::string& name : *header) {
      if (!IsValidUtf8(name)) {
        return InvalidArgument(fmt::format("{}: the CSV header is not valid UTF-8", files[b.file]));
      }
    }
    layouts[b.file] = build_layout(&*header);
    return Ok();
  };
  // Parquet inputs: rows are judged against the schema's own types while decoded
  // (parquet/row_screen.h); a row that passes is valid as it was decoded, and only the others
  // are checked here. A schema holding the rescued column itself is not screened.
  parquet::RowScreen screen;
  screen.type = schema->struct_type();
  if (plan->appends_rescued_column()) screen.null_only = vopts.rescued_column;
  const bool screens = options.format == RecordFormat::kParquet && options.screen_parquet_rows &&
                       (vopts.rescued_column.empty() || plan->appends_rescued_column());
  if (screens) driver.screen = &screen;
  driver.screen_text_free = options.discard_valid;
  // What a passed row lacks when the file does not hold the rescued column: its null, last.
  std::string rescued_null;
  if (plan->appends_rescued_column()) {
    rescued_null = ",";
    AppendJsonString(rescued_null, vopts.rescued_column);
    rescued_null += ":null";
  }
  std::vector<std::vector<uint64_t>> failed_lines(validators.size());

  auto check = [&](unsigned worker, Job& job) {
    Block& b = job.block;
    RecordValidator& v = validator_for(worker, b.file);
    BlockResult& r = job.result;
    const std::string& file = files[b.file];
    if (b.screened != nullptr) {
      std::vector<uint64_t>& failed = failed_lines[worker];
      b.screened->FailedIn(b.base_offset, b.base_offset + b.size, failed);
      const bool add_rescued = !b.screened->holds_null_only() && !rescued_null.empty();
      size_t next = 0;
      // Every line is a row: an empty one passed without its text being wanted.
      r.newlines = ForEachLine(
          b, /*blank_lines=*/true, [&](uint64_t rel, size_t pos, std::string_view line) {
            const uint64_t at = b.base_offset + pos;
            if (next < failed.size() && failed[next] == at) {
              ++next;
              const RecordResult& res = v.CheckJson(line, file, r.out, tape_of(r, b.file));
              return account(r, res, rel, at, line) && MergeSoFar(job);
            }
            ++r.records_in;
            ++r.valid;
            if (line.empty()) return true;
            if (add_rescued) {
              r.out.append(line.data(), line.size() - 1);  // up to its closing brace
              r.out += rescued_null;
              r.out += "}\n";
            } else {
              r.out.append(line);
              r.out += '\n';
            }
            return MergeSoFar(job);
          });
      return;
    }
    switch (options.format) {
      case RecordFormat::kJsonLines:
      case RecordFormat::kParquet:
      case RecordFormat::kAvro: {
        r.newlines = ForEachLine(b, false, [&](uint64_t rel, size_t pos, std::string_view line) {
          const RecordResult& res = v.CheckJson(line, file, r.out, tape_of(r, b.file));
          return account(r, res, rel, b.base_offset + pos, line) && MergeSoFar(job);
        });
        return;
      }
      case RecordFormat::kJson: {
        std::string_view text = b.text();
        size_t pos = b.skip;
        if (b.file_start && text.substr(pos).starts_with(kBom)) pos += kBom.size();
        while (pos < text.size() && IsBlank(text.substr(pos, 1))) ++pos;
        r.newlines = CountNewlines(text, 0, text.size());
        if (pos >= text.size()) return;
        if (text[pos] != '[') {
          size_t end = text.size();
          while (end > pos && IsBlank(text.substr(end - 1, 1))) --end;
          std::string_view doc = text.substr(pos, end - pos);
          const RecordResult& res = v.CheckJson(doc, file, r.out, tape_of(r, b.file));
          account(r, res, CountNewlines(text, 0, pos), b.base_offset + pos, doc);
          return;
        }
        ArrayElements elements(text, pos + 1);
        uint64_t rel = CountNewlines(text, 0, pos);
        size_t counted_to = pos;
        for (Element e; elements.Next(&e);) {
          rel += CountNewlines(text, counted_to, e.begin);
          counted_to = e.begin;
          std::string_view rec = text.substr(e.begin, e.end - e.begin);
          const RecordResult& res = v.CheckJson(rec, file, r.out, tape_of(r, b.file));
          if (!account(r, res, rel, b.base_offset + e.begin, rec)) return;
          if (!MergeSoFar(job)) return;
        }
        const size_t bad_at = elements.bad_at();
        const std::string& why = elements.why();
        if (bad_at != std::string::npos) {
          rel += CountNewlines(text, counted_to, bad_at);
          RecordResult res;
          res.status = RecordStatus::kMalformed;
          res.error = why;
          res.violations.push_back({"", ViolationKind::kMalformed, why});
          size_t end = text.size();
          while (end > bad_at && IsBlank(text.substr(end - 1, 1))) --end;
          account(r, res, rel, b.base_offset + bad_at, text.substr(bad_at, end - bad_at));
        }
        return;
      }
      case RecordFormat::kCsv: {
        const RecordValidator::CsvLayout& layout = layouts[b.file]->layout;
        std::string_view text = b.text().substr(b.skip);
        CsvReader reader(text, options.csv.reader, 1 + b.skip_lines, b.base_offset + b.skip);
        CsvRecord rec;
        while (reader.Next(rec)) {
          const RecordResult& res = v.CheckCsv(rec, layout, file, r.out);
          if (!account(r, res, rec.line - 1, rec.offset, rec.raw) || !MergeSoFar(job)) break;
        }
        r.newlines = CountNewlines(b.text(), 0, b.size);
        return;
      }
    }
  };

  // With a stage, the valid records so far take its form (on the worker that checked them).
  auto stage_output = [&](BlockResult& r) {
    if (stage == nullptr || r.out.empty()) return;
    auto staged = stage->Stage(r.out, r.tape.map == nullptr ? nullptr : &r.tape);
    if (staged.has_value()) {
      r.staged = std::move(*staged);
    } else {
      r.stage_error = staged.error();
    }
    r.out.clear();
    r.tape.Clear();
  };
  driver.work = [&](unsigned worker, Job& job) {
    check(worker, job);
    stage_output(job.result);
  };

  const bool parquet = options.format == RecordFormat::kParquet;
  std::vector<ViolationCount> tallies;
  std::unordered_map<std::string, size_t> tally_index;
  uint64_t lines_before = 0;
  uint32_t current_file = UINT32_MAX;
  Status sink_status = Ok();
  QuarantineWriter quarantine_lines(quarantine);
  // The records of a block, or of the part of it merged so far: counts, tallies, output and
  // quarantine lines. False to stop (a failed sink, failfast).
  auto merge_records = [&](Job& job) -> bool {
    Block& b = job.block;
    BlockResult& r = job.result;
    if (b.file != current_file) {
      current_file = b.file;
      lines_before = 0;
    }
    report.records_in += r.records_in;
    report.valid += r.valid;
    report.rescued += r.rescued;
    report.with_new_columns += r.with_new_columns;
    report.quarantined += r.quarantined;
    report.malformed += r.malformed;
    for (ViolationTally& t : r.tallies) {
      std::string key = t.path;
      key += '\0';
      key += static_cast<char>(t.kind);
      auto [it, inserted] = tally_index.try_emplace(std::move(key), tallies.size());
      if (inserted) tallies.push_back({t.path, t.kind, 0, {}});
      ViolationCount& c = tallies[it->second];
      c.count += t.count;
      for (uint64_t rel : t.rel_lines) {
        if (c.lines.size() >= keep) break;
        const std::pair<uint32_t, uint64_t> at(b.file, lines_before + rel + 1);
        // A record split from the one before by a part merge may share its line (a JSON
        // document): the line is listed once, as within a block.
        if (c.lines.empty() || c.lines.back() != at) c.lines.push_back(at);
      }
    }
    // Part of a block that runs alone here (merge_part) is staged here.
    stage_output(r);
    if (r.stage_error) {
      sink_status = Fail(*r.stage_error);
      return false;
    }
    if (r.staged) {
      Status s = stage->Take(std::move(r.staged));
      if (!s.has_value()) {
        sink_status = s;
        return false;
      }
    }
    if (!r.out.empty() && !options.discard_valid) {
      Status s = out.Write(r.out);
      if (!s.has_value()) {
        sink_status = s;
        return false;
      }
    }
    for (QuarantineEntry& q : r.quarantine) {
      // A Parquet row has no bytes of its own in the file: its offset is its index.
      if (parquet) q.offset = lines_before + q.rel_line;
      Status s = quarantine_lines.Add(files[b.file], lines_before + q.rel_line + 1, q);
      if (!s.has_value()) {
        sink_status = s;
        return false;
      }
    }
    if (Status s = quarantine_lines.Flush(); !s.has_value()) {
      sink_status = s;
      return false;
    }
    if (r.stopped && !r.quarantine.empty()) {
      const QuarantineEntry& q = r.quarantine.back();
      FailFastStop stop;
      stop.file = files[b.file];
      stop.line = lines_before + q.rel_line + 1;
      stop.offset = q.error_offset >= 0 ? static_cast<uint64_t>(q.error_offset) : q.offset;
      stop.path = q.violations.empty() ? std::string() : q.violations.front().first;
      stop.message = q.error;
      report.stopped = std::move(stop);
      return false;
    }
    return true;
  };
  driver.merge = [&](Job& job) -> bool {
    // The input's bytes: for Parquet the file's, once its rows are read (their JSON text is not
    // what was read, and its size depends on what the run writes).
    if (!parquet) {
      report.bytes += job.block.size;
    } else if (job.block.file_start) {
      auto info = options.fs->Stat(files[job.block.file]);
      if (info.has_value()) report.bytes += info->size;
    }
    if (!merge_records(job)) return false;
    lines_before += job.result.newlines;
    return true;
  };
  // Only a block's final merge sees a failfast stop: a record that stops the run ends its block.
  driver.merge_part = [&](Job& job) -> bool {
    if (!merge_records(job)) return false;
    job.result.ClearRecords();
    return true;
  };
  if (options.progress) {
    driver.progress = [&](uint64_t done, uint64_t total) {
      options.progress(Progress{done, total, report.records_in});
    };
  }
  SLUICE_TRY(driver.Run(*options.fs, files));
  SLUICE_TRY(sink_status);
  std::sort(tallies.begin(), tallies.end(), [](const ViolationCount& a, const ViolationCount& b) {
    if (a.path != b.path) return a.path < b.path;
    return a.kind < b.kind;
  });
  report.violations = std::move(tallies);
  if (!report.invariant_holds()) {
    return Internal(
        fmt::format("record accounting broke: {} records in, {} valid, {} quarantined, {} rescued",
                    report.records_in, report.valid, report.quarantined, report.rescued));
  }
  return report;
}

Result<InferResult> InferFiles(const std::vector<std::string>& files,
                               const InferRunOptions& options) {
  if (files.empty()) return InvalidArgument("no input files");
  if (options.format == RecordFormat::kParquet || options.format == RecordFormat::kAvro) {
    InferResult result;
    SLUICE_ASSIGN_OR_RETURN(schema::Converted<schema::SchemaPtr> merged,
                            options.format == RecordFormat::kParquet
                                ? MergeParquetSchemas(*options.fs, files, &result.records)
                                : MergeAvroSchemas(*options.fs, files, &result.records));
    result.schema = std::move(merged.value);
    result.notes = std::move(merged.notes);
    return result;
  }
  const unsigned threads = ThreadCount(options.threads);
  const bool csv = options.format == RecordFormat::kCsv;
  const size_t workers = std::max(1u, threads);

  std::vector<JsonInferrer> json_inferrers;
  std::vector<std::optional<CsvInferrer>> csv_inferrers(workers);
  if (!csv) {
    for (size_t i = 0; i < workers; ++i) {
      SLUICE_ASSIGN_OR_RETURN(JsonInferrer inf, JsonInferrer::Make(options.json));
      json_inferrers.push_back(std::move(inf));
    }
  }
  // CSV: the columns come from the first record of the first file that has one.
  std::optional<std::vector<std::string>> csv_names;
  CsvInferOptions csv_opts = options.csv_infer;
  if (csv_opts.null_value.empty()) csv_opts.null_value = options.csv.null_value;

  BlockDriver driver;
  driver.threads = threads;
  driver.format = options.format;
  driver.block_bytes = std::max<size_t>(options.block_bytes, 4096);
  driver.whole_file = [&](uint32_t) {
    return options.format == RecordFormat::kJson || (csv && options.csv.reader.multi_line);
  };
  Status setup = Ok();
  driver.prepare = [&](Block& b) -> Status {
    if (!csv) {
      SkipBom(b);
      return Ok();
    }
    if (!b.file_start) return Ok();
    if (options.csv.header) {
      std::optional<std::vector<std::string>> header = ReadCsvHeader(b, options.csv.reader);
      if (header) {
        for (const std::string& name : *header) {
          if (!IsValidUtf8(name)) {
            return InvalidArgument(
                fmt::format("{}: the CSV header is not valid UTF-8", files[b.file]));
          }
        }
      }
      if (header && !csv_names) {
        std::vector<std::string_view> cells(header->begin(), header->end());
        csv_names = MakeSafeHeader(cells, csv_opts);
      }
    } else if (!csv_names) {
      CsvReader reader(b.text(), options.csv.reader, 1, b.base_offset);
      CsvRecord rec;
      if (reader.Next(rec)) {
        std::vector<std::string> names;
        for (size_t i = 0; i < rec.fields.size(); ++i) names.push_back(fmt::format("_c{}", i));
        csv_names = std::move(names);
      }
    }
    if (csv_names) {
      for (auto& slot : csv_inferrers) {
        if (slot) continue;
        SLUICE_ASSIGN_OR_RETURN(CsvInferrer inf, CsvInferrer::Make(csv_opts, *csv_names));
        slot.emplace(std::move(inf));
      }
    }
    return Ok();
  };
  uint64_t records = 0;
  uint64_t malformed = 0;
  driver.work = [&](unsigned worker, Job& job) {
    Block& b = job.block;
    BlockResult& r = job.result;
    switch (options.format) {
      case RecordFormat::kJsonLines:
      case RecordFormat::kParquet:
      case RecordFormat::kAvro: {
        JsonInferrer& inf = json_inferrers[worker];
        r.newlines = ForEachLine(b, false, [&](uint64_t rel, size_t pos, std::string_view line) {
          if (!Sampled(options.sampling_ratio, b.file, b.base_offset + pos)) return true;
          Status s = inf.AddPaddedRecord(line);  // the block is padded
          if (!s.has_value()) {
            r.error.emplace(rel, s);
            return false;
          }
          return true;
        });
        return;
      }
      case RecordFormat::kJson: {
        JsonInferrer& inf = json_inferrers[worker];
        std::string_view text = b.text();
        r.newlines = CountNewlines(text, 0, text.size());
        size_t pos = 0;
        if (text.starts_with(kBom)) pos = kBom.size();
        // Spark's multiLine reads each file as one document; a top-level array's elements are
        // records, which JsonInferrer unwraps itself.
        std::string_view doc = text.substr(pos);
        if (IsBlank(doc)) return;
        Status s = inf.AddPaddedRecord(doc);
        if (!s.has_value()) r.error.emplace(0, s);
        return;
      }
      case RecordFormat::kCsv: {
        std::optional<CsvInferrer>& inf = csv_inferrers[worker];
        r.newlines = CountNewlines(b.text(), 0, b.size);
        if (!inf) return;
        std::string_view text = b.text().substr(b.skip);
        CsvReader reader(text, options.csv.reader, 1 + b.skip_lines, b.base_offset + b.skip);
        CsvRecord rec;
        std::vector<std::string_view> cells;
        while (reader.Next(rec)) {
          ++r.records_in;
          if (rec.malformed()) {
            ++r.malformed;
            continue;
          }
          if (!Sampled(options.sampling_ratio, b.file, rec.offset)) continue;
          cells.clear();
          for (const CsvField& f : rec.fields) cells.push_back(f.value);
          inf->AddRow(cells);
        }
        return;
      }
    }
  };
  uint64_t lines_before = 0;
  uint32_t current_file = UINT32_MAX;
  std::optional<Error> failure;
  driver.merge = [&](Job& job) -> bool {
    if (job.block.file != current_file) {
      current_file = job.block.file;
      lines_before = 0;
    }
    records += job.result.records_in;
    malformed += job.result.malformed;
    if (job.result.error) {
      const auto& [rel, status] = *job.result.error;
      failure = Error(status.error().code(),
                      fmt::format("{}:{}: {}", files[job.block.file], lines_before + rel + 1,
                                  status.error().message()));
      return false;
    }
    lines_before += job.result.newlines;
    return true;
  };
  if (options.progress) {
    driver.progress = [&](uint64_t done, uint64_t total) {
      options.progress(Progress{done, total, records});
    };
  }
  SLUICE_TRY(driver.Run(*options.fs, files));
  SLUICE_TRY(setup);
  if (failure) return Fail(*failure);

  InferResult result;
  if (csv) {
    if (!csv_names) return InvalidArgument("the CSV input holds no records to infer from");
    CsvInferrer& first = *csv_inferrers[0];
    for (size_t i = 1; i < csv_inferrers.size(); ++i) {
      if (csv_inferrers[i]) first.Merge(*csv_inferrers[i]);
    }
    SLUICE_ASSIGN_OR_RETURN(result.schema, first.Finish());
    result.records = records;
    result.malformed = malformed;
    return result;
  }
  JsonInferrer& first = json_inferrers[0];
  for (size_t i = 1; i < json_inferrers.size(); ++i) first.Merge(json_inferrers[i]);
  SLUICE_ASSIGN_OR_RETURN(result.schema, first.Finish());
  result.records = first.records();
  result.malformed = first.malformed_records();
  return result;
}

}  // namespace sluice::data
