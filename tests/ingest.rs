//! Integration tests: ingest.
