//! Leader Migration (KEP-2436): configuration and enforcement.
