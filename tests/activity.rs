//! Integration tests: activity.
