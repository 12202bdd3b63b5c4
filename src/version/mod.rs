//! What `bansha --version` says: the package version, the commit the binary was built from
//! and the rule sets it ships (the `rules/*.toml` of that commit, which the release archive
//! carries beside the binary), each with its 规则帖 name and the SHA-256 of its file, so a
//! director can tell whether the rule file a game names is the shipped one (`sha256sum`,
//! PowerShell's `Get-FileHash`). build.rs reads the commit and lists the rule files.

#[cfg(test)]
mod commit;

use std::sync::LazyLock;

/// The commit the binary was built from (40 hex digits), or `unknown`.
pub const COMMIT: &str = env!("BANSHA_COMMIT");

/// Every `rules/*.toml` at build time, by file name, sorted.
const RULE_FILES: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/rule_files.rs"));

/// One shipped rule set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSetVersion {
    pub file: &'static str,
    /// `[meta] name`, or what is wrong with the file instead.
    pub name: String,
    /// SHA-256 of the file's bytes, lower-case hex.
    pub sha256: String,
}

/// The shipped rule sets.
pub fn rule_sets() -> Vec<RuleSetVersion> {
    RULE_FILES
        .iter()
        .map(|(file, bytes)| RuleSetVersion {
            file,
            name: meta_name(bytes),
            sha256: sha256_hex(bytes),
        })
        .collect()
}

fn meta_name(bytes: &[u8]) -> String {
    let table = std::str::from_utf8(bytes)
        .map_err(|e| e.to_string())
        .and_then(|t| t.parse::<toml::Table>().map_err(|e| e.to_string()));
    match table {
        Ok(t) => match t.get("meta").and_then(|m| m.get("name")) {
            Some(toml::Value::String(name)) => name.clone(),
            _ => "(no [meta] name)".to_string(),
        },
        Err(e) => format!("(unreadable: {})", e.lines().next().unwrap_or("")),
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    let d = ring::digest::digest(&ring::digest::SHA256, bytes);
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// `-V`: the version and the commit's first 12 digits.
pub fn short() -> &'static str {
    static S: LazyLock<String> =
        LazyLock::new(|| format!("{} ({})", env!("CARGO_PKG_VERSION"), short_commit(COMMIT)));
    &S
}

fn short_commit(commit: &str) -> String {
    match commit.get(..12) {
        Some(s) if commit != "unknown" => format!("commit {s}"),
        _ => "commit unknown".to_string(),
    }
}

/// `--version`: the version, the full commit and one line per shipped rule set.
pub fn long() -> &'static str {
    static S: LazyLock<String> =
        LazyLock::new(|| render_long(env!("CARGO_PKG_VERSION"), COMMIT, &rule_sets()));
    &S
}

fn render_long(version: &str, commit: &str, sets: &[RuleSetVersion]) -> String {
    let mut s = format!("{version}\ncommit {commit}\n");
    s.push_str(
        "rule sets (rules/; SHA-256 of the file, as sha256sum or Get-FileHash prints it):\n",
    );
    for r in sets {
        s.push_str(&format!(
            "  {}  {}\n    sha256 {}\n",
            r.file, r.name, r.sha256
        ));
    }
    // clap ends the output with its own newline.
    s.truncate(s.trim_end().len());
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_file_of_the_tree_is_shipped_with_its_meta_name() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        files.sort();
        let sets = rule_sets();
        assert_eq!(sets.iter().map(|r| r.file).collect::<Vec<_>>(), files);
        for r in &sets {
            let path = dir.join(r.file);
            let loaded = crate::rules::RuleSet::load(&path).unwrap();
            assert_eq!(r.name, loaded.meta.name, "{}", r.file);
        }
    }

    #[test]
    fn a_rule_file_without_a_name_or_unparsable_says_so() {
        assert_eq!(meta_name(b"[vote]\nmode = 1\n"), "(no [meta] name)");
        assert!(meta_name(b"[meta\n").starts_with("(unreadable: "));
        assert!(meta_name(&[0xff, 0xfe]).starts_with("(unreadable: "));
    }

    #[test]
    fn sha256_is_the_standard_digest() {
        // FIPS 180-2's "abc" example.
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_short_version_cuts_the_commit_and_keeps_unknown() {
        assert_eq!(
            short_commit("43a1152e5f0b7c2d9e8f6a5b4c3d2e1f0a9b8c7d"),
            "commit 43a1152e5f0b"
        );
        assert_eq!(short_commit("unknown"), "commit unknown");
    }

    #[test]
    fn the_long_version_lists_each_rule_set() {
        let sets = [RuleSetVersion {
            file: "075-zhifou.toml",
            name: "[075]知否知否应是绿肥红瘦".into(),
            sha256: "ab".repeat(32),
        }];
        let text = render_long("0.1.0", "unknown", &sets);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "0.1.0");
        assert_eq!(lines[1], "commit unknown");
        assert_eq!(lines[3], "  075-zhifou.toml  [075]知否知否应是绿肥红瘦");
        assert_eq!(lines[4], format!("    sha256 {}", "ab".repeat(32)));
    }
}
