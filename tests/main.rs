//! The one integration-test binary: every area's end-to-end and scenario tests.

mod activity;
mod common;
mod daemon;
mod demo;
mod ingest;
mod moderation;
mod parse;
mod testforum;
mod votes;
