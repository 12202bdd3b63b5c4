//! The one integration-test binary: every area's end-to-end and scenario tests.

mod activity;
mod common;
mod daemon;
mod demo;
mod director;
mod first_hours;
mod ingest;
mod interfaces;
mod manor;
mod moderation;
mod night;
mod night_huangquan;
mod night_lingzu;
mod night_m213;
mod parse;
mod real_pages;
mod red_cards;
mod requests;
mod self_contained;
mod testforum;
mod timeline;
mod version;
mod votes;
mod web;
