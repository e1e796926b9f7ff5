// One walk over two schemas: fields are paired by name under each parent (structs inside arrays
// and maps included), and every place where the two differ is reported to a visitor in one
// vocabulary (only before, only after, spelled differently, moved, nullability, types). The
// consumers classify what they receive: Diff into changes with a severity, the table rules into
// Delta's and Iceberg's changes and errors. A new kind of difference is added here once, and the
// compiler then asks every consumer what it means.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sluice/schema/field_path.h"
#include "sluice/schema/type.h"

namespace sluice::evolution {

/// How the fields of two structs pair up by name. Indexes into the two field lists.
struct FieldPairing {
  /// For each field before: the index of its partner after, or -1 if it has none.
  std::vector<int> after_of;
  /// For each field after: the index of its partner before, or -1 if it has none.
  std::vector<int> before_of;
};

/// Pair `before` with `after` by name: exact names first, then, unless `case_sensitive`, names
/// equal ignoring ASCII case where exactly one candidate is left (an ambiguous pairing leaves
/// the fields unpaired). Linear in the number of fields.
FieldPairing PairFields(const std::vector<schema::Field>& before,
                        const std::vector<schema::Field>& after, bool case_sensitive);

/// Receives the differences between two schemas, parents before children. Every method is a
/// difference a consumer must classify; `in_map_key` is true beneath a map's key type.
class PairVisitor {
 public:
  virtual ~PairVisitor() = default;

  /// Two structs at `path` are about to be compared field by field (the top level included).
  virtual void StructsPaired(const schema::FieldPath& path, const schema::Type& before,
                             const schema::Type& after, const FieldPairing& pairing) = 0;
  /// A field only the schema before has.
  virtual void OnlyBefore(const schema::FieldPath& path, const schema::Field& field,
                          bool in_map_key) = 0;
  /// A field only the schema after has.
  virtual void OnlyAfter(const schema::FieldPath& path, const schema::Field& field,
                         bool in_map_key) = 0;
  /// Paired ignoring case, spelled differently.
  virtual void Respelled(const schema::FieldPath& path, const schema::Field& before,
                         const schema::Field& after) = 0;
  /// A paired field left the longest run of paired fields that keep their relative order, so
  /// that inserting one field does not make every later field moved. 0-based indexes.
  virtual void Moved(const schema::FieldPath& path, size_t before_index, size_t after_index) = 0;
  /// Nullability of a field, of an array's elements (path ends in `[]`) or of a map's values
  /// (path ends in `{value}`) differs.
  virtual void NullabilityDiffers(const schema::FieldPath& path, bool before, bool after,
                                  bool in_map_key) = 0;
  /// Two atomic types differ (under PairWalkOptions::atomic_equal), or the shapes differ
  /// (struct against array, map or an atomic type, ...). Nothing beneath is compared.
  virtual void TypesDiffer(const schema::FieldPath& path, const schema::Type& before,
                           const schema::Type& after, bool in_map_key) = 0;
  /// A paired field, after every difference beneath it was reported.
  virtual void FieldPaired(const schema::FieldPath& path, const schema::Field& before,
                           const schema::Field& after) = 0;
};

/// Where OnlyAfter fields are reported among a struct's events.
enum class AddedFieldPlacement : uint8_t {
  /// Right after the events of the paired field that precedes them in `after` (first, if none
  /// does): a reading of the changes in the new schema's order.
  kAfterPrecedingField,
  /// After all the events of the struct's paired and removed fields, in `after`'s order.
  kAtEndOfStruct,
};

/// Which schema spells the path of a paired field (and so every path beneath it).
enum class PairedPathSpelling : uint8_t { kAfter, kBefore };

struct PairWalkOptions {
  /// Pair names exactly; by default names also pair ignoring ASCII case (see PairFields).
  bool case_sensitive = false;
  /// Whether two atomic types are the same to the consumer; nullptr: the model's own equality.
  bool (*atomic_equal)(const schema::Type& before, const schema::Type& after) = nullptr;
  AddedFieldPlacement added = AddedFieldPlacement::kAfterPrecedingField;
  PairedPathSpelling spelling = PairedPathSpelling::kAfter;
};

/// Walk `before` and `after` (usually two schemas' struct types) together, depth first, and
/// report their differences to `visitor`. Structs pair their fields; arrays compare element
/// nullability, then elements; maps compare keys, value nullability, then values. For each
/// paired field the order is Respelled, Moved, NullabilityDiffers, the events of its type, then
/// FieldPaired.
void WalkPair(const schema::Type& before, const schema::Type& after, const PairWalkOptions& options,
              PairVisitor& visitor);

}  // namespace sluice::evolution
