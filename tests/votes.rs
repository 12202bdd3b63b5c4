//! Integration tests: votes.
