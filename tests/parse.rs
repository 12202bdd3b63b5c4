//! Integration tests: parse (golden pages).
