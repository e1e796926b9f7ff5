#include "sluice/dialects/contract/contract.h"

#include <fmt/format.h>

#include "sluice/base/strings.h"

namespace sluice::dialects::contract {
namespace {

// Top-level `key: value` lines of the first few kilobytes, for sniffing without a YAML parse.
template <class F>
void ForEachTopLevelLine(std::string_view text, F&& f) {
  text = text.substr(0, 8192);
  if (StartsWith(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  for (std::string_view line : SplitString(text, '\n')) {
    if (line.empty() || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '-') {
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = TrimWhitespace(line.substr(0, colon));
    std::string_view value = TrimWhitespace(line.substr(colon + 1));
    size_t comment = value.find(" #");
    if (comment != std::string_view::npos) value = TrimWhitespace(value.substr(0, comment));
    if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') &&
        key.back() == key.front()) {
      key = key.substr(1, key.size() - 2);
    }
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    f(key, value);
  }
}

std::vector<schema::LossyNote> Merge(const std::vector<schema::LossyNote>& a,
                                     const std::vector<schema::LossyNote>& b) {
  std::vector<schema::LossyNote> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

}  // namespace

const ColumnSpec* ContractObject::FindColumn(const schema::FieldPath& path) const {
  for (const ColumnSpec& c : columns) {
    if (c.path == path) return &c;
  }
  return nullptr;
}

Result<const ContractObject*> Contract::Object(std::string_view name) const {
  if (objects.empty()) return NotFound("the contract has no schema objects");
  if (name.empty()) return &objects.front();
  std::vector<std::string> names;
  for (const ContractObject& o : objects) {
    if (o.name == name) return &o;
    names.push_back(o.name);
  }
  return NotFound(fmt::format("the contract has no schema object \"{}\" (it has: {})",
                              EscapeForMessage(name), JoinStrings(names, ", ")));
}

Result<schema::Converted<schema::SchemaPtr>> ReadSeedSchema(std::string_view yaml) {
  SLUICE_ASSIGN_OR_RETURN(Contract contract, ParseSeedContract(yaml));
  SLUICE_ASSIGN_OR_RETURN(const ContractObject* object, contract.Object());
  return schema::Converted<schema::SchemaPtr>{object->schema, Merge(contract.notes, object->notes)};
}

Result<schema::Converted<schema::SchemaPtr>> ReadOdcsSchema(std::string_view yaml,
                                                            std::string_view object_name) {
  SLUICE_ASSIGN_OR_RETURN(Contract contract, ParseOdcs(yaml));
  SLUICE_ASSIGN_OR_RETURN(const ContractObject* object, contract.Object(object_name));
  return schema::Converted<schema::SchemaPtr>{object->schema, Merge(contract.notes, object->notes)};
}

// JSON spelling: `"apiVersion": "v3...` or `"dataContractSpecification"` near the start.
bool LooksLikeJsonContract(std::string_view text) {
  text = text.substr(0, 8192);
  if (text.find("\"dataContractSpecification\"") != std::string_view::npos) return true;
  size_t at = text.find("\"apiVersion\"");
  if (at == std::string_view::npos) return false;
  std::string_view rest = TrimWhitespace(text.substr(at + 12));
  if (rest.empty() || rest[0] != ':') return false;
  rest = TrimWhitespace(rest.substr(1));
  return StartsWith(rest, "\"v3") || StartsWith(rest, "\"v2");
}

bool LooksLikeOdcs(std::string_view text) {
  if (LooksLikeJsonContract(text)) return true;
  bool found = false;
  ForEachTopLevelLine(text, [&](std::string_view key, std::string_view value) {
    if (key == "apiVersion" && (StartsWith(value, "v3") || StartsWith(value, "v2"))) found = true;
    if (key == "kind" && value == "DataContract") found = true;
    // The legacy format is routed here too, so the user hears why it is not read.
    if (key == "dataContractSpecification") found = true;
  });
  return found;
}

bool LooksLikeSeedContract(std::string_view text) {
  bool columns = false;
  ForEachTopLevelLine(text, [&](std::string_view key, std::string_view) {
    if (key == "required_columns") columns = true;
  });
  return columns && !LooksLikeOdcs(text);
}

}  // namespace sluice::dialects::contract
