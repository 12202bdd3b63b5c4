//! bansha: vote, activity and compliance automation for 版杀 games on Discuz! forums.
//! See ARCHITECTURE.md for the codemap.

pub mod activity;
pub mod cli;
pub mod config;
pub mod daemon;
pub mod discuz;
pub mod fetch;
pub mod flagging;
pub mod game;

pub mod model;
pub mod moderation;
pub mod night;
pub mod report;
pub mod roster;
pub mod rules;
pub mod store;
pub mod time;
pub use bansha_base::tomlfile;
pub mod version;
pub mod votes;
pub mod web;
