// Placeholder until the avro dialect lands.
