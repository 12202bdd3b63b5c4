//! What bansha and its test forum (`bansha-testforum`) share, so that neither depends on the
//! other: TOML files loaded with `file:line:key: message` errors ([`tomlfile`]) and local
//! wall-clock times ([`localtime`]). bansha re-exports both (`bansha::tomlfile`,
//! `bansha::time`).

pub mod localtime;
pub mod tomlfile;

/// Unix seconds (bansha's `model::Timestamp`).
pub type Timestamp = i64;
