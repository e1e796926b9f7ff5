// Placeholder until the contract dialect lands.
