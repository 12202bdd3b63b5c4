//! Integration tests: testforum.
