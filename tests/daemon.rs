//! Integration tests: daemon.
