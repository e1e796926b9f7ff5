#include "sluice/parquet/column_reader.h"

#include <fmt/format.h>

#include <algorithm>

#include "sluice/parquet/compression.h"
#include "sluice/parquet/page_codecs_internal.h"
#include "sluice/parquet/page_decoding_internal.h"
#include "sluice/parquet/rle.h"

namespace sluice::parquet {
namespace {

// Text buffers kept for reuse per column.
constexpr size_t kMaxSpareBlocks = 4;

}  // namespace

using internal::LevelDecoder;
using internal::ValueStream;

ColumnChunkReader::ColumnChunkReader(const LeafColumn& leaf, const ColumnMetaData& meta,
                                     std::string_view chunk, uint64_t chunk_offset,
                                     std::string context, const ReaderOptions& options)
    : leaf_(leaf),
      codec_(meta.codec),
      num_values_(meta.num_values),
      chunk_(chunk),
      chunk_offset_(chunk_offset),
      context_(std::move(context)),
      options_(options) {}

ColumnChunkReader::~ColumnChunkReader() = default;

Result<std::unique_ptr<ColumnChunkReader>> ColumnChunkReader::Make(
    const LeafColumn& leaf, const ColumnMetaData& meta, std::string_view chunk,
    uint64_t chunk_offset, std::string context, const ReaderOptions& options,
    ColumnBuffers* buffers, const ValueScreen* text_free) {
  if (meta.type != leaf.type) {
    return InvalidArgument(
        fmt::format("{}: column {}: the chunk at byte {} holds {}, the schema "
                    "says {}",
                    context, leaf.path, chunk_offset, PhysicalTypeName(meta.type),
                    PhysicalTypeName(leaf.type)));
  }
  if (meta.num_values < 0) {
    return InvalidArgument(fmt::format("{}: column {}: the chunk at byte {} has {} values", context,
                                       leaf.path, chunk_offset, meta.num_values));
  }
  if (!internal::CanDecompressPage(meta.codec)) {
    return Unimplemented(fmt::format("{}: column {}: codec {} is not supported", context, leaf.path,
                                     CodecName(meta.codec)));
  }
  std::unique_ptr<ColumnChunkReader> r(
      new ColumnChunkReader(leaf, meta, chunk, chunk_offset, std::move(context), options));
  if (buffers != nullptr) r->buffers_ = buffers;
  SLUICE_ASSIGN_OR_RETURN(r->values_stream_, ValueStream::Make(leaf, options, text_free));
  r->page_first_entry_ = true;
  r->page_starts_row_ = true;  // the chunk's first entry starts a row
  if (meta.num_values == 0) r->exhausted_ = true;
  return r;
}

Error ColumnChunkReader::ChunkError(size_t at, std::string_view what) const {
  return Error(ErrorCode::kInvalidArgument, fmt::format("{}: column {}: byte {}: {}", context_,
                                                        leaf_.path, chunk_offset_ + at, what));
}

Error ColumnChunkReader::PageError(const Error& e) const {
  return Error(e.code(), fmt::format("{}: column {}: page at byte {}: {}", context_, leaf_.path,
                                     page_at_, e.message()));
}

size_t ColumnChunkReader::complete_rows() const {
  if (exhausted_ || leaf_.max_rep == 0) return row_starts_;
  return row_starts_ > 0 ? row_starts_ - 1 : 0;
}

void ColumnChunkReader::Consume(size_t level_pos, size_t value_pos, size_t rows) {
  level_pos_ = level_pos;
  value_pos_ = value_pos;
  row_starts_ -= rows;
}

void ColumnChunkReader::Compact() {
  if (level_pos_ > 0 && level_pos_ * 2 >= def_.size()) {
    def_.erase(def_.begin(), def_.begin() + static_cast<ptrdiff_t>(level_pos_));
    rep_.erase(rep_.begin(), rep_.begin() + static_cast<ptrdiff_t>(level_pos_));
    level_pos_ = 0;
  }
  if (value_pos_ > 0 && value_pos_ * 2 >= values_.size()) {
    values_.erase(values_.begin(), values_.begin() + static_cast<ptrdiff_t>(value_pos_));
    values_base_ += value_pos_;
    value_pos_ = 0;
  }
  const uint64_t consumed = values_base_ + value_pos_;
  while (!blocks_.empty() && blocks_.front().values_end <= consumed) {
    // Keep the buffer for a later batch: fresh allocations of this size cost page faults.
    if (buffers_->spare_text.size() < kMaxSpareBlocks) {
      blocks_.front().text.clear();
      buffers_->spare_text.push_back(std::move(blocks_.front().text));
    }
    blocks_.pop_front();
  }
}

Result<std::string_view> ColumnChunkReader::Decompress(std::string_view body, size_t uncompressed,
                                                       size_t at, std::string& buffer) {
  if (codec_ == Codec::kUncompressed) {
    if (uncompressed != body.size()) {
      return Fail(ChunkError(at, fmt::format("an uncompressed page of {} bytes declares {}",
                                             body.size(), uncompressed)));
    }
    return body;
  }
  buffer.clear();
  auto s = internal::CheckUncompressedSize(codec_, body, uncompressed);
  if (s) s = internal::DecompressPage(codec_, body, uncompressed, buffer);
  if (!s) return Fail(PageError(s.error()));
  return std::string_view(buffer);
}

Status ColumnChunkReader::NextPage() {
  while (true) {
    if (values_in_pages_ == num_values_ && seen_data_page_) {
      exhausted_ = true;
      return Ok();
    }
    if (pos_ >= chunk_.size()) {
      return Fail(ChunkError(pos_, fmt::format("the chunk ends after {} of its {} values",
                                               values_in_pages_, num_values_)));
    }
    page_at_ = chunk_offset_ + pos_;
    size_t header_size = 0;
    auto header = ReadPageHeader(chunk_.substr(pos_), &header_size, options_.metadata);
    if (!header) return Fail(PageError(header.error()));
    const PageHeader& h = *header;
    const size_t body_at = pos_ + header_size;
    if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0 ||
        static_cast<size_t>(h.compressed_page_size) > chunk_.size() - body_at) {
      return Fail(ChunkError(
          pos_, fmt::format("a page of {} bytes after a {}-byte header, the chunk has {} left",
                            h.compressed_page_size, header_size, chunk_.size() - body_at)));
    }
    if (static_cast<size_t>(h.uncompressed_page_size) > options_.max_page_size) {
      return Fail(ChunkError(pos_, fmt::format("a page of {} bytes uncompressed (the limit is {})",
                                               h.uncompressed_page_size, options_.max_page_size)));
    }
    const std::string_view body =
        chunk_.substr(body_at, static_cast<size_t>(h.compressed_page_size));
    pos_ = body_at + body.size();
    switch (h.type) {
      case PageType::kDictionaryPage:
        SLUICE_TRY(ReadDictionaryPage(h, body, body_at));
        continue;
      case PageType::kDataPage:
        SLUICE_TRY(StartDataPageV1(h, body, body_at));
        break;
      case PageType::kDataPageV2:
        SLUICE_TRY(StartDataPageV2(h, body, body_at));
        break;
      case PageType::kIndexPage:
        continue;
    }
    if (h.type != PageType::kDataPage && h.type != PageType::kDataPageV2) continue;  // unknown
    if (page_left_ > 0) return Ok();
  }
}

Status ColumnChunkReader::ReadDictionaryPage(const PageHeader& h, std::string_view body,
                                             size_t at) {
  if (!h.dictionary_page_header) {
    return Fail(ChunkError(at, "a dictionary page without its header"));
  }
  if (seen_data_page_ || seen_dictionary_) {
    return Fail(ChunkError(at, "a dictionary page that is not the chunk's first page"));
  }
  const DictionaryPageHeader& d = *h.dictionary_page_header;
  if (d.encoding != Encoding::kPlain && d.encoding != Encoding::kPlainDictionary) {
    return Fail(ChunkError(
        at, fmt::format("a dictionary page in {} (only PLAIN)", EncodingName(d.encoding))));
  }
  if (d.num_values < 0 || static_cast<size_t>(d.num_values) > options_.max_dictionary_entries) {
    return Fail(ChunkError(at, fmt::format("a dictionary page of {} values (the limit is {})",
                                           d.num_values, options_.max_dictionary_entries)));
  }
  // The view is into the chunk or buffers_->dictionary, both kept for the chunk's life.
  SLUICE_ASSIGN_OR_RETURN(
      std::string_view data,
      Decompress(body, static_cast<size_t>(h.uncompressed_page_size), at, buffers_->dictionary));
  seen_dictionary_ = true;
  auto s = values_stream_->SetDictionary(data, d.num_values, 0);
  if (!s) return Fail(PageError(s.error()));
  return Ok();
}

namespace {

Result<std::unique_ptr<LevelDecoder>> MakeV1Levels(Encoding encoding, std::string_view data,
                                                   int16_t max_level, int32_t num_values,
                                                   size_t page_offset, size_t* consumed) {
  const int width = BitWidth(static_cast<uint64_t>(max_level));
  switch (encoding) {
    case Encoding::kRle:
      return LevelDecoder::MakeRle(data, width, /*length_prefixed=*/true, page_offset, consumed);
    case Encoding::kBitPacked:
      return LevelDecoder::MakeBitPacked(data, width, static_cast<size_t>(num_values), page_offset,
                                         consumed);
    case Encoding::kPlain:
    case Encoding::kPlainDictionary:
    case Encoding::kDeltaBinaryPacked:
    case Encoding::kDeltaLengthByteArray:
    case Encoding::kDeltaByteArray:
    case Encoding::kRleDictionary:
    case Encoding::kByteStreamSplit:
      break;
  }
  return InvalidArgument(fmt::format("byte {}: levels in {} (only RLE and BIT_PACKED)", page_offset,
                                     EncodingName(encoding)));
}

}  // namespace

Status ColumnChunkReader::StartDataPageV1(const PageHeader& h, std::string_view body, size_t at) {
  if (!h.data_page_header) return Fail(ChunkError(at, "a data page without its header"));
  const DataPageHeader& d = *h.data_page_header;
  if (d.num_values < 0 || d.num_values > num_values_ - values_in_pages_) {
    return Fail(ChunkError(at, fmt::format("a data page of {} values; the chunk declares {} and "
                                           "its pages before held {}",
                                           d.num_values, num_values_, values_in_pages_)));
  }
  SLUICE_ASSIGN_OR_RETURN(
      std::string_view data,
      Decompress(body, static_cast<size_t>(h.uncompressed_page_size), at, buffers_->page));
  size_t p = 0;
  rep_decoder_.reset();
  def_decoder_.reset();
  if (leaf_.max_rep > 0) {
    size_t used = 0;
    auto r = MakeV1Levels(d.repetition_level_encoding, data, leaf_.max_rep, d.num_values, p, &used);
    if (!r) return Fail(PageError(r.error()));
    rep_decoder_ = std::move(*r);
    p += used;
  }
  if (leaf_.max_def > 0) {
    size_t used = 0;
    auto r = MakeV1Levels(d.definition_level_encoding, data.substr(p), leaf_.max_def, d.num_values,
                          p, &used);
    if (!r) return Fail(PageError(r.error()));
    def_decoder_ = std::move(*r);
    p += used;
  }
  SLUICE_TRY(StartValues(d.encoding, data.substr(p), p));
  seen_data_page_ = true;
  values_in_pages_ += d.num_values;
  page_left_ = static_cast<size_t>(d.num_values);
  return Ok();
}

Status ColumnChunkReader::StartDataPageV2(const PageHeader& h, std::string_view body, size_t at) {
  if (!h.data_page_header_v2) return Fail(ChunkError(at, "a data page v2 without its header"));
  const DataPageHeaderV2& d = *h.data_page_header_v2;
  if (d.num_values < 0 || d.num_values > num_values_ - values_in_pages_) {
    return Fail(ChunkError(at, fmt::format("a data page of {} values; the chunk declares {} and "
                                           "its pages before held {}",
                                           d.num_values, num_values_, values_in_pages_)));
  }
  const int64_t rep_len = d.repetition_levels_byte_length;
  const int64_t def_len = d.definition_levels_byte_length;
  if (rep_len < 0 || def_len < 0 || rep_len + def_len > static_cast<int64_t>(body.size()) ||
      rep_len + def_len > h.uncompressed_page_size) {
    return Fail(
        ChunkError(at, fmt::format("level lengths {} and {} in a page of {} bytes ({} "
                                   "uncompressed)",
                                   rep_len, def_len, body.size(), h.uncompressed_page_size)));
  }
  const size_t levels_size = static_cast<size_t>(rep_len + def_len);
  const std::string_view levels = body.substr(0, levels_size);
  const std::string_view compressed = body.substr(levels_size);
  const size_t values_size = static_cast<size_t>(h.uncompressed_page_size) - levels_size;
  std::string_view values = compressed;
  if (d.is_compressed && codec_ != Codec::kUncompressed) {
    SLUICE_ASSIGN_OR_RETURN(values, Decompress(compressed, values_size, at, buffers_->page));
  } else if (compressed.size() != values_size) {
    return Fail(ChunkError(at, fmt::format("uncompressed values of {} bytes declared as {}",
                                           compressed.size(), values_size)));
  }
  rep_decoder_.reset();
  def_decoder_.reset();
  size_t used = 0;
  if (leaf_.max_rep > 0) {
    auto r = LevelDecoder::MakeRle(levels.substr(0, static_cast<size_t>(rep_len)),
                                   BitWidth(static_cast<uint64_t>(leaf_.max_rep)), false, 0, &used);
    if (!r) return Fail(PageError(r.error()));
    rep_decoder_ = std::move(*r);
  }
  if (leaf_.max_def > 0) {
    auto r = LevelDecoder::MakeRle(levels.substr(static_cast<size_t>(rep_len)),
                                   BitWidth(static_cast<uint64_t>(leaf_.max_def)), false,
                                   static_cast<size_t>(rep_len), &used);
    if (!r) return Fail(PageError(r.error()));
    def_decoder_ = std::move(*r);
  }
  // Offsets of value errors count from the start of the (decompressed) value section.
  SLUICE_TRY(StartValues(d.encoding, values, 0));
  seen_data_page_ = true;
  values_in_pages_ += d.num_values;
  page_left_ = static_cast<size_t>(d.num_values);
  page_first_entry_ = true;
  page_starts_row_ = true;  // v2 pages start at row boundaries
  return Ok();
}

Status ColumnChunkReader::StartValues(Encoding encoding, std::string_view data,
                                      size_t page_offset) {
  auto s = values_stream_->StartPage(encoding, data, page_offset);
  if (!s) return Fail(PageError(s.error()));
  return Ok();
}

Status ColumnChunkReader::DecodeBatch(size_t n) {
  const size_t old = def_.size();
  def_.resize(old + n);
  rep_.resize(old + n);
  int16_t* def = def_.data() + old;
  int16_t* rep = rep_.data() + old;
  // A batch a decoder fails on is dropped again: the buffers hold only levels written.
  auto drop_batch = [&](const Error& e) {
    def_.resize(old);
    rep_.resize(old);
    return Fail(PageError(e));
  };
  if (def_decoder_) {
    auto s = def_decoder_->Get(def, n);
    if (!s) return drop_batch(s.error());
  } else {
    std::fill(def, def + n, int16_t{0});
  }
  if (rep_decoder_) {
    auto s = rep_decoder_->Get(rep, n);
    if (!s) return drop_batch(s.error());
  } else {
    std::fill(rep, rep + n, int16_t{0});
  }
  const int16_t max_def = leaf_.max_def;
  const int16_t max_rep = leaf_.max_rep;
  size_t present = 0;
  size_t starts = 0;
  bool bad = false;
  for (size_t i = 0; i < n; ++i) {
    bad |= def[i] > max_def || rep[i] > max_rep || def[i] < 0 || rep[i] < 0;
    present += def[i] == max_def;
    starts += rep[i] == 0;
  }
  if (bad) {
    for (size_t i = 0; i < n; ++i) {
      if (def[i] > max_def || def[i] < 0) {
        return Fail(PageError(Error(
            ErrorCode::kInvalidArgument,
            fmt::format("definition level {} above the column's maximum {}", def[i], max_def))));
      }
      if (rep[i] > max_rep || rep[i] < 0) {
        return Fail(PageError(Error(
            ErrorCode::kInvalidArgument,
            fmt::format("repetition level {} above the column's maximum {}", rep[i], max_rep))));
      }
    }
  }
  if (page_first_entry_ && page_starts_row_ && n > 0 && rep[0] != 0) {
    return Fail(PageError(Error(
        ErrorCode::kInvalidArgument,
        fmt::format("the page's first repetition level is {}, where a row must start", rep[0]))));
  }
  if (n > 0) {
    page_first_entry_ = false;
    page_starts_row_ = false;
  }
  row_starts_ += starts;
  page_left_ -= n;
  if (present > 0) {
    blocks_.push_back({std::string(), 0});
    if (!buffers_->spare_text.empty()) {
      blocks_.back().text = std::move(buffers_->spare_text.back());
      buffers_->spare_text.pop_back();
    }
    auto s = values_stream_->Read(present, values_, blocks_.back().text);
    if (!s) return Fail(PageError(s.error()));
    blocks_.back().values_end = values_base_ + values_.size();
    if (blocks_.back().text.empty()) {
      buffers_->spare_text.push_back(std::move(blocks_.back().text));
      blocks_.pop_back();
    }
  }
  if (page_left_ == 0 && values_in_pages_ == num_values_) exhausted_ = true;
  return Ok();
}

Status ColumnChunkReader::ReadMore(size_t entries) {
  if (exhausted_) return Ok();
  if (page_left_ == 0) {
    SLUICE_TRY(NextPage());
    if (exhausted_) return Ok();
  }
  const size_t n = std::min(std::max<size_t>(entries, 1), page_left_);
  SLUICE_TRY(DecodeBatch(n));
  if (leaf_.max_rep > 0 && complete_rows() == 0 && !exhausted_ &&
      level_end() - level_pos_ > options_.max_row_entries) {
    return Fail(PageError(Error(
        ErrorCode::kInvalidArgument,
        fmt::format("a row of more than {} entries in one column", options_.max_row_entries))));
  }
  return Ok();
}

}  // namespace sluice::parquet
