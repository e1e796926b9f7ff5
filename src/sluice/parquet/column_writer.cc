#include "sluice/parquet/column_writer.h"

#include <algorithm>
#include <optional>
#include <span>
#include <type_traits>

#include "sluice/parquet/compression.h"
#include "sluice/parquet/plain.h"
#include "sluice/parquet/rle.h"

namespace sluice::parquet {

ColumnWriter::ColumnWriter(ColumnSpec spec) : spec_(std::move(spec)) {}

namespace {

template <class V>
void AppendAll(V& to, const V& from) {
  to.Append(from.data(), from.size());
}

}  // namespace

void ColumnWriter::AppendFrom(const ColumnWriter& other) {
  AppendAll(def_levels_, other.def_levels_);
  AppendAll(rep_levels_, other.rep_levels_);
  AppendAll(bools_, other.bools_);
  AppendAll(int32s_, other.int32s_);
  AppendAll(int64s_, other.int64s_);
  AppendAll(int96s_, other.int96s_);
  AppendAll(floats_, other.floats_);
  AppendAll(doubles_, other.doubles_);
  const uint64_t base = arena_.size();
  arena_.Append(other.arena_.view());
  const size_t at = ends_.size();
  ends_.resize(at + other.ends_.size());
  for (size_t i = 0; i < other.ends_.size(); ++i) ends_[at + i] = other.ends_[i] + base;
  num_entries_ += other.num_entries_;
  num_rows_ += other.num_rows_;
}

void ColumnWriter::Clear() {
  num_entries_ = 0;
  num_rows_ = 0;
  def_levels_.clear();
  rep_levels_.clear();
  bools_.clear();
  int32s_.clear();
  int64s_.clear();
  int96s_.clear();
  floats_.clear();
  doubles_.clear();
  arena_.clear();
  ends_.clear();
}

int64_t ColumnWriter::num_values() const {
  switch (spec_.type) {
    case PhysicalType::kBoolean:
      return static_cast<int64_t>(bools_.size());
    case PhysicalType::kInt32:
      return static_cast<int64_t>(int32s_.size());
    case PhysicalType::kInt64:
      return static_cast<int64_t>(int64s_.size());
    case PhysicalType::kInt96:
      return static_cast<int64_t>(int96s_.size());
    case PhysicalType::kFloat:
      return static_cast<int64_t>(floats_.size());
    case PhysicalType::kDouble:
      return static_cast<int64_t>(doubles_.size());
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      return static_cast<int64_t>(ends_.size());
  }
  return 0;
}

size_t ColumnWriter::buffered_bytes() const {
  return (def_levels_.size() + rep_levels_.size()) * sizeof(int16_t) + bools_.size() +
         int32s_.size() * 4 + int64s_.size() * 8 + int96s_.size() * 12 + floats_.size() * 4 +
         doubles_.size() * 8 + arena_.size() + ends_.size() * 8;
}

namespace {

// Value access for the encoder, one per physical representation: the value at an index, the
// PLAIN size of a range (for cutting pages) and its PLAIN encoding.
template <class T>
struct NumberValues {
  using Value = T;
  const T* data;
  size_t size;
  T operator[](size_t i) const { return data[i]; }
  size_t PlainBytes(size_t b, size_t e) const { return (e - b) * sizeof(T); }
  Status PlainEncodeRange(size_t b, size_t e, std::string& out) const {
    PlainEncode(std::span<const T>(data + b, e - b), out);
    return Ok();
  }
};

struct BoolValues {
  using Value = bool;
  const uint8_t* data;
  size_t size;
  bool operator[](size_t i) const { return data[i] != 0; }
  size_t PlainBytes(size_t b, size_t e) const { return (e - b + 7) / 8; }
  Status PlainEncodeRange(size_t b, size_t e, std::string& out) const {
    PlainBooleanEncoder encoder;
    for (size_t i = b; i < e; ++i) encoder.Put(data[i] != 0);
    encoder.FlushTo(out);
    return Ok();
  }
};

struct ByteValues {
  using Value = std::string_view;
  const ColumnWriter* column;
  size_t size;
  int32_t fixed_length;  // 0 for BYTE_ARRAY
  mutable std::vector<std::string_view> views;

  std::string_view operator[](size_t i) const { return column->bytes_value(i); }
  size_t PlainBytes(size_t b, size_t e) const {
    if (e == b) return 0;
    const auto& ends = column->ends();
    const uint64_t start = b == 0 ? 0 : ends[b - 1];
    return static_cast<size_t>(ends[e - 1] - start) + (fixed_length > 0 ? 0 : 4 * (e - b));
  }
  Status PlainEncodeRange(size_t b, size_t e, std::string& out) const {
    views.clear();
    for (size_t i = b; i < e; ++i) views.push_back(column->bytes_value(i));
    if (fixed_length > 0) return PlainEncodeFixedLenByteArrays(views, fixed_length, out);
    return PlainEncodeByteArrays(views, out);
  }
};

// Append `levels` as a v1 page's level section: the hybrid stream with its 4-byte length.
void EncodeLevels(const int16_t* levels, size_t n, int16_t max_level, std::string& out) {
  RleEncoder encoder(BitWidth(static_cast<uint64_t>(max_level)));
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && levels[j] == levels[i]) ++j;
    encoder.PutRepeated(static_cast<uint32_t>(levels[i]), j - i);
    i = j;
  }
  encoder.FlushWithLengthTo(out);
}

template <class Dict>
Status WriteDictionaryBody(const Dict& dict, std::string& out) {
  if constexpr (std::is_same_v<Dict, DictionaryBuilder<std::string_view>>) {
    return dict.WriteDictionaryPage(out);
  } else {
    dict.WriteDictionaryPage(out);
    return Ok();
  }
}

// Pages as they are written: compression, headers, and the totals ColumnMetaData needs.
class PageSink {
 public:
  explicit PageSink(const ColumnEncodeOptions& options) : options_(options) {}

  Status Write(PageHeader header, std::string_view body, LargeString& dest) {
    if (body.size() > kMaxPageSize) {
      return InvalidArgument("a page of " + std::to_string(body.size()) +
                             " bytes is past Parquet's 2 GiB page limit");
    }
    std::string_view stored = body;
    if (options_.codec != Codec::kUncompressed) {
      compressed_.clear();
      SLUICE_TRY(Compress(options_.codec, body, compressed_, options_.compression_level));
      stored = compressed_;
      if (stored.size() > kMaxPageSize) {
        return InvalidArgument("a compressed page is past Parquet's 2 GiB page limit");
      }
    }
    header.uncompressed_page_size = static_cast<int32_t>(body.size());
    header.compressed_page_size = static_cast<int32_t>(stored.size());
    header_bytes_.clear();
    WritePageHeader(header, header_bytes_);
    const size_t header_size = header_bytes_.size();
    dest.append(header_bytes_);
    dest.append(stored);
    uncompressed_total_ += static_cast<int64_t>(header_size + body.size());
    compressed_total_ += static_cast<int64_t>(header_size + stored.size());
    return Ok();
  }

  int64_t uncompressed_total() const { return uncompressed_total_; }
  int64_t compressed_total() const { return compressed_total_; }

 private:
  const ColumnEncodeOptions& options_;
  std::string compressed_;
  std::string header_bytes_;
  int64_t uncompressed_total_ = 0;
  int64_t compressed_total_ = 0;
};

// Where the next page ends: whole records from entry `e0` (value `v0`) until the page holds
// options.page_bytes PLAIN-sized bytes of values and levels, or page_row_limit records. Returns
// {end entry, end value}.
template <class Values>
std::pair<size_t, size_t> NextPageEnd(const ColumnWriter& column, const Values& values, size_t e0,
                                      size_t v0, const ColumnEncodeOptions& options) {
  const ColumnSpec& spec = column.spec();
  const size_t n = static_cast<size_t>(column.num_entries());
  const int16_t* def = column.def_levels().data();
  const int16_t* rep = column.rep_levels().data();
  const bool has_def = spec.max_def_level > 0;
  const bool has_rep = spec.max_rep_level > 0;
  const size_t level_bits =
      static_cast<size_t>(BitWidth(static_cast<uint64_t>(spec.max_def_level)) +
                          BitWidth(static_cast<uint64_t>(spec.max_rep_level)));
  const size_t page_bytes = std::max<size_t>(options.page_bytes, 1);
  const size_t row_limit = std::max<size_t>(options.page_row_limit, 1);
  size_t e = e0;
  size_t v = v0;
  size_t rows = 0;
  auto page_full = [&](size_t entries_end, size_t values_end) {
    return values.PlainBytes(v0, values_end) + ((entries_end - e0) * level_bits + 7) / 8 >=
           page_bytes;
  };
  if (!has_rep) {
    // Every entry is a row: whole runs of rows at a time while the page stays short of its
    // size (sizes only grow with rows), then row by row below.
    const size_t limit = n - e0 <= row_limit ? n : e0 + row_limit;
    constexpr size_t kRun = 128;
    while (limit - e > kRun) {
      size_t next_v = v;
      if (has_def) {
        for (size_t i = e; i < e + kRun; ++i) next_v += def[i] == spec.max_def_level;
      } else {
        next_v += kRun;
      }
      if (page_full(e + kRun, next_v)) break;
      e += kRun;
      v = next_v;
    }
    rows = e - e0;
  }
  while (e < n) {
    size_t end = e + 1;
    if (has_rep) {
      while (end < n && rep[end] != 0) ++end;
    }
    if (has_def) {
      for (size_t i = e; i < end; ++i) v += def[i] == spec.max_def_level;
    } else {
      v += end - e;
    }
    e = end;
    if (++rows >= row_limit) break;
    if (page_full(e, v)) break;
  }
  return {e, v};
}

// The values of one buffered segment as the encoder reads them.
template <class T>
NumberValues<T> ValuesOf(const ColumnWriter& c) {
  const LargeArray<T>* data = nullptr;
  if constexpr (std::is_same_v<T, int32_t>) data = &c.int32s();
  if constexpr (std::is_same_v<T, int64_t>) data = &c.int64s();
  if constexpr (std::is_same_v<T, Int96>) data = &c.int96s();
  if constexpr (std::is_same_v<T, float>) data = &c.floats();
  if constexpr (std::is_same_v<T, double>) data = &c.doubles();
  return NumberValues<T>{data->data(), data->size()};
}

// What a chunk keeps of a segment's bounds once the segment's buffers are reused: numbers are
// values already; byte arrays are copied into strings the builder owns.
template <class T>
class ChunkBounds {
 public:
  explicit ChunkBounds(StatisticsOrder order) : bounds_(order) {}
  void Merge(const Bounds<T>& b) { bounds_.Merge(b); }
  void Keep() {}
  const Bounds<T>& bounds() const { return bounds_; }

 private:
  Bounds<T> bounds_;
};

template <>
class ChunkBounds<std::string_view> {
 public:
  explicit ChunkBounds(StatisticsOrder order) : order_(order), bounds_(order) {}
  void Merge(const Bounds<std::string_view>& b) { bounds_.Merge(b); }
  // Own the bounds, so the segment they point into may go.
  void Keep() {
    if (!bounds_.any()) return;
    std::string min(bounds_.min());
    std::string max(bounds_.max());
    min_ = std::move(min);
    max_ = std::move(max);
    bounds_ = Bounds<std::string_view>(order_);
    bounds_.Update(min_);
    bounds_.Update(max_);
  }
  const Bounds<std::string_view>& bounds() const { return bounds_; }

 private:
  StatisticsOrder order_;
  Bounds<std::string_view> bounds_;
  std::string min_;
  std::string max_;
};

// A chunk being encoded segment by segment: its dictionary, pages, statistics and encodings.
// `Values` reads one segment's values (NumberValues, BoolValues or ByteValues).
template <class Values, class Dict>
class ChunkBuilder final : public ColumnChunkBuilder {
 public:
  using T = typename Values::Value;

  ChunkBuilder(ColumnSpec spec, const ColumnEncodeOptions& options, std::unique_ptr<Dict> dict)
      : spec_(std::move(spec)),
        dict_(std::move(dict)),
        options_(options),
        pages_(options_),
        chunk_bounds_(spec_.order),
        use_dict_(dict_ != nullptr && options_.dictionary) {}

  Status Add(const ColumnWriter& segment) override {
    if (finished_) return Fail(ErrorCode::kInternal, "column " + PathText() + " is finished");
    Status s = AddSegment(segment);
    // A segment that failed half-way may leave bounds pointing into its buffer: no more calls.
    if (!s) finished_ = true;
    return s;
  }

  Result<EncodedColumnChunk> Finish() override {
    if (finished_) return Fail(ErrorCode::kInternal, "column " + PathText() + " is finished");
    finished_ = true;
    return BuildChunk();
  }

 private:
  Status AddSegment(const ColumnWriter& segment) {
    const Values values = Read(segment);
    const size_t n = static_cast<size_t>(segment.num_entries());
    if (values.size != static_cast<size_t>(segment.num_values())) {
      return Fail(ErrorCode::kInternal, "column " + PathText() + " buffers " +
                                            std::to_string(values.size) + " values for " +
                                            std::to_string(segment.num_values()));
    }
    if constexpr (std::is_same_v<Values, ByteValues>) SLUICE_TRY(CheckWidths(segment));
    size_t e = 0;
    size_t v = 0;
    while (e < n) {
      const auto [e1, v1] = NextPageEnd(segment, values, e, v, options_);
      SLUICE_TRY(WriteDataPage(segment, values, e, e1, v, v1));
      e = e1;
      v = v1;
    }
    entries_ += static_cast<int64_t>(n);
    chunk_bounds_.Keep();
    return Ok();
  }

  Result<EncodedColumnChunk> BuildChunk() {
    ColumnMetaData& meta = out_.meta;
    if (dictionary_pages_ > 0) {
      page_.clear();
      SLUICE_TRY(WriteDictionaryBody(*dict_, page_));
      PageHeader header;
      header.type = PageType::kDictionaryPage;
      DictionaryPageHeader& d = header.dictionary_page_header.emplace();
      d.num_values = static_cast<int32_t>(dict_->size());
      d.encoding = Encoding::kPlain;
      SLUICE_TRY(pages_.Write(std::move(header), page_, out_.dictionary_page));
      meta.dictionary_page_offset = 0;
      meta.encoding_stats.push_back({PageType::kDictionaryPage, Encoding::kPlain, 1});
      meta.encoding_stats.push_back(
          {PageType::kDataPage, Encoding::kRleDictionary, dictionary_pages_});
    }
    if (plain_pages_ > 0) {
      meta.encoding_stats.push_back({PageType::kDataPage, Encoding::kPlain, plain_pages_});
    }
    meta.type = spec_.type;
    if (dictionary_pages_ > 0 || plain_pages_ > 0) meta.encodings.push_back(Encoding::kPlain);
    meta.encodings.push_back(Encoding::kRle);
    if (dictionary_pages_ > 0) meta.encodings.push_back(Encoding::kRleDictionary);
    meta.path_in_schema = spec_.path;
    meta.codec = options_.codec;
    meta.num_values = entries_;
    meta.total_uncompressed_size = pages_.uncompressed_total();
    meta.total_compressed_size = pages_.compressed_total();
    meta.data_page_offset = static_cast<int64_t>(out_.dictionary_page.size());
    Statistics& stats = meta.statistics.emplace();
    stats.null_count = null_count_;
    chunk_bounds_.bounds().WriteTo(stats);
    return std::move(out_);
  }

  Values Read(const ColumnWriter& c) const {
    if constexpr (std::is_same_v<Values, BoolValues>) {
      return BoolValues{c.bools().data(), c.bools().size()};
    } else if constexpr (std::is_same_v<Values, ByteValues>) {
      const bool fixed = spec_.type == PhysicalType::kFixedLenByteArray;
      return ByteValues{&c, c.ends().size(), fixed ? spec_.type_length : 0, {}};
    } else {
      return ValuesOf<T>(c);
    }
  }

  // The dictionary trusts its entries' widths; a wrong one must stop here.
  Status CheckWidths(const ColumnWriter& c) const {
    if (spec_.type != PhysicalType::kFixedLenByteArray) return Ok();
    for (size_t i = 0; i < c.ends().size(); ++i) {
      if (c.bytes_value(i).size() != static_cast<size_t>(spec_.type_length)) {
        return InvalidArgument("a value of " + std::to_string(c.bytes_value(i).size()) +
                               " bytes in a FIXED_LEN_BYTE_ARRAY(" +
                               std::to_string(spec_.type_length) + ") column");
      }
    }
    return Ok();
  }

  std::string PathText() const {
    std::string s;
    for (const std::string& p : spec_.path) {
      if (!s.empty()) s += '.';
      s += p;
    }
    return s;
  }

  Status WriteDataPage(const ColumnWriter& column, const Values& values, size_t e0, size_t e1,
                       size_t v0, size_t v1) {
    const bool dictionary_page = use_dict_;
    if (dictionary_page) {
      indexes_.clear();
      for (size_t i = v0; i < v1; ++i) indexes_.push_back(dict_->Put(values[i]));
    }
    Bounds<T> bounds(spec_.order);
    if (!PageBoundsFromDictionary(dictionary_page, bounds)) {
      for (size_t i = v0; i < v1; ++i) bounds.Update(values[i]);
    }
    page_.clear();
    if (spec_.max_rep_level > 0) {
      EncodeLevels(column.rep_levels().data() + e0, e1 - e0, spec_.max_rep_level, page_);
    }
    if (spec_.max_def_level > 0) {
      EncodeLevels(column.def_levels().data() + e0, e1 - e0, spec_.max_def_level, page_);
    }
    Encoding encoding = Encoding::kPlain;
    if (use_dict_) {
      const size_t levels_size = page_.size();
      if (dict_->dictionary_page_bytes() > options_.dictionary_page_limit) {
        // Too many distinct values: this page and the rest of the chunk are PLAIN; pages
        // written before keep their indexes into the dictionary (as parquet-mr falls back).
        use_dict_ = false;
      } else {
        EncodeDictionaryIndexes(indexes_, dict_->index_bit_width(), page_);
        const size_t encoded = page_.size() - levels_size + dict_->dictionary_page_bytes();
        if (dictionary_pages_ == 0 && encoded >= values.PlainBytes(v0, v1)) {
          // The first page says the dictionary does not pay: the whole chunk goes PLAIN.
          page_.resize(levels_size);
          use_dict_ = false;
        } else {
          encoding = Encoding::kRleDictionary;
        }
      }
    }
    if (encoding == Encoding::kPlain) {
      SLUICE_TRY(values.PlainEncodeRange(v0, v1, page_));
      ++plain_pages_;
    } else {
      ++dictionary_pages_;
    }
    PageHeader header;
    header.type = PageType::kDataPage;
    DataPageHeader& data = header.data_page_header.emplace();
    data.num_values = static_cast<int32_t>(e1 - e0);
    data.encoding = encoding;
    data.definition_level_encoding = Encoding::kRle;
    data.repetition_level_encoding = Encoding::kRle;
    Statistics& stats = data.statistics.emplace();
    stats.null_count = static_cast<int64_t>((e1 - e0) - (v1 - v0));
    bounds.WriteTo(stats);
    chunk_bounds_.Merge(bounds);
    null_count_ += *stats.null_count;
    if (e1 - e0 > static_cast<size_t>(INT32_MAX)) {
      return InvalidArgument("column " + PathText() + ": a page of more than 2^31 entries");
    }
    return pages_.Write(std::move(header), page_, out_.data_pages);
  }

  // A page's bounds from the distinct dictionary entries its values are (indexes_), each
  // compared once: strings in byte order only, where equal means the same bytes (so which of
  // two equal values becomes the bound cannot matter). False when they are to be found value by
  // value.
  bool PageBoundsFromDictionary(bool dictionary_page, Bounds<T>& bounds) {
    if constexpr (!std::is_same_v<T, std::string_view>) {
      return false;
    } else {
      if (!dictionary_page || spec_.order != StatisticsOrder::kUnsigned) return false;
      const std::span<const std::string_view> entries = dict_->values();
      if (seen_.size() < entries.size()) seen_.resize(entries.size(), 0);
      distinct_.clear();
      for (const uint32_t k : indexes_) {
        if (seen_[k] == 0) {
          seen_[k] = 1;
          distinct_.push_back(k);
        }
      }
      for (const uint32_t k : distinct_) {
        bounds.Update(entries[k]);
        seen_[k] = 0;
      }
      return true;
    }
  }

  const ColumnSpec spec_;
  std::unique_ptr<Dict> dict_;
  const ColumnEncodeOptions options_;
  PageSink pages_;
  ChunkBounds<T> chunk_bounds_;
  bool use_dict_ = false;
  bool finished_ = false;  // finished, or failed
  int32_t dictionary_pages_ = 0;
  int32_t plain_pages_ = 0;
  int64_t null_count_ = 0;
  int64_t entries_ = 0;
  std::string page_;
  std::vector<uint32_t> indexes_;
  std::vector<uint8_t> seen_;       // PageBoundsFromDictionary: entries met in this page
  std::vector<uint32_t> distinct_;  // and which they are
  EncodedColumnChunk out_;
};

// A dictionary type for value types that have none (BOOLEAN): never instantiated with an object.
struct NoDictionary {
  uint32_t Put(bool) { return 0; }
  size_t dictionary_page_bytes() const { return 0; }
  int index_bit_width() const { return 0; }
  size_t size() const { return 0; }
  void WriteDictionaryPage(std::string&) const {}
};

template <class T>
std::unique_ptr<ColumnChunkBuilder> NumberBuilder(ColumnSpec spec,
                                                  const ColumnEncodeOptions& options) {
  return std::make_unique<ChunkBuilder<NumberValues<T>, DictionaryBuilder<T>>>(
      std::move(spec), options, std::make_unique<DictionaryBuilder<T>>());
}

}  // namespace

Result<std::unique_ptr<ColumnChunkBuilder>> NewColumnChunkBuilder(
    ColumnSpec spec, const ColumnEncodeOptions& options) {
  if (!CanCompress(options.codec)) {
    return InvalidArgument("the Parquet writer cannot compress with " +
                           std::string(CodecName(options.codec)));
  }
  switch (spec.type) {
    case PhysicalType::kBoolean:
      return std::unique_ptr<ColumnChunkBuilder>(
          std::make_unique<ChunkBuilder<BoolValues, NoDictionary>>(std::move(spec), options,
                                                                   nullptr));
    case PhysicalType::kInt32:
      return NumberBuilder<int32_t>(std::move(spec), options);
    case PhysicalType::kInt64:
      return NumberBuilder<int64_t>(std::move(spec), options);
    case PhysicalType::kInt96:
      return NumberBuilder<Int96>(std::move(spec), options);
    case PhysicalType::kFloat:
      return NumberBuilder<float>(std::move(spec), options);
    case PhysicalType::kDouble:
      return NumberBuilder<double>(std::move(spec), options);
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray: {
      const bool fixed = spec.type == PhysicalType::kFixedLenByteArray;
      if (fixed && spec.type_length <= 0) {
        return InvalidArgument("FIXED_LEN_BYTE_ARRAY column without a positive type_length");
      }
      // The dictionary copies its entries: the segments' buffers are reused.
      auto dict = std::make_unique<DictionaryBuilder<std::string_view>>(
          fixed ? std::optional<int32_t>(spec.type_length) : std::nullopt, /*copy_bytes=*/true);
      return std::unique_ptr<ColumnChunkBuilder>(
          std::make_unique<ChunkBuilder<ByteValues, DictionaryBuilder<std::string_view>>>(
              std::move(spec), options, std::move(dict)));
    }
  }
  return InvalidArgument("unknown physical type");
}

Result<EncodedColumnChunk> EncodeColumnChunk(const ColumnWriter& column,
                                             const ColumnEncodeOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(auto builder, NewColumnChunkBuilder(column.spec(), options));
  SLUICE_TRY(builder->Add(column));
  return builder->Finish();
}

}  // namespace sluice::parquet
