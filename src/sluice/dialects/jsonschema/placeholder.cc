// Placeholder until the jsonschema dialect lands.
