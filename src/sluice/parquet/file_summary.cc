#include "sluice/parquet/file_summary.h"

#include "sluice/parquet/schema_map_internal.h"
#include "sluice/parquet/schema_text.h"
#include "sluice/parquet/value_text.h"

namespace sluice::parquet {
namespace {

// The deprecated min/max (Statistics fields 1 and 2) were compared as signed bytes by old
// writers: trust them only for the types whose order that is.
bool DeprecatedStatsUsable(const ColumnDescriptor& d) {
  switch (d.physical) {
    case PhysicalType::kBoolean:
    case PhysicalType::kInt32:
    case PhysicalType::kInt64:
    case PhysicalType::kFloat:
    case PhysicalType::kDouble:
      return d.sort_order == SortOrder::kSigned;
    case PhysicalType::kInt96:
    case PhysicalType::kByteArray:
    case PhysicalType::kFixedLenByteArray:
      return false;
  }
  return false;
}

std::optional<std::string> Rendered(const LeafColumn& leaf, const std::optional<std::string>& v) {
  if (!v) return std::nullopt;
  auto text = RenderStatisticsValue(leaf.format, leaf.type, *v);
  if (!text) return std::nullopt;
  return *text;
}

ColumnChunkSummary SummarizeChunk(const ColumnMetaData& m, const LeafColumn& leaf,
                                  const ColumnDescriptor& d, const SchemaElement& element) {
  ColumnChunkSummary c;
  c.path = leaf.path;
  c.physical_type = m.type;
  c.logical_type = internal::AnnotationText(element);
  c.codec = m.codec;
  c.encodings = m.encodings;
  c.num_values = m.num_values;
  c.compressed_size = m.total_compressed_size;
  c.uncompressed_size = m.total_uncompressed_size;
  c.dictionary_page_offset = m.dictionary_page_offset;
  c.data_page_offset = m.data_page_offset;
  if (m.statistics) {
    const Statistics& s = *m.statistics;
    c.null_count = s.null_count;
    c.distinct_count = s.distinct_count;
    if (d.sort_order != SortOrder::kUnknown) {
      c.min = Rendered(leaf, s.min_value);
      c.max = Rendered(leaf, s.max_value);
      if (!s.min_value && !s.max_value && DeprecatedStatsUsable(d)) {
        c.min = Rendered(leaf, s.min);
        c.max = Rendered(leaf, s.max);
      }
    }
  }
  return c;
}

}  // namespace

ParquetFileSummary Summarize(const FileReader& reader) {
  const FileMetaData& meta = reader.metadata();
  const ParquetSchema& ps = reader.parquet_schema();
  const ReadSchema& rs = reader.read_schema();
  ParquetFileSummary s;
  s.path = reader.path();
  s.file_size = reader.file_size();
  s.version = meta.version;
  s.num_rows = meta.num_rows;
  s.created_by = meta.created_by;
  s.key_value_metadata = meta.key_value_metadata;
  s.schema_text = MessageTypeText(meta.schema);
  for (const RowGroup& rg : meta.row_groups) {
    RowGroupSummary g;
    g.num_rows = rg.num_rows;
    g.total_byte_size = rg.total_byte_size;
    g.total_compressed_size = rg.total_compressed_size;
    // Open checked that every chunk has metadata and matches its column.
    for (size_t c = 0; c < rg.columns.size() && c < rs.leaves.size(); ++c) {
      const ColumnDescriptor& d = ps.leaves()[c];
      g.columns.push_back(SummarizeChunk(*rg.columns[c].meta_data, rs.leaves[c], d,
                                         ps.elements()[static_cast<size_t>(d.element)]));
    }
    s.row_groups.push_back(std::move(g));
  }
  return s;
}

}  // namespace sluice::parquet
