// Placeholder until the sql dialect lands.
