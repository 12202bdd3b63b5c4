//! `bansha --version` names the commit and the rule sets it ships (issue 30): checked against
//! git's own word and the rule files of the tree, not against the binary's earlier output.

use crate::common::bansha;

/// HEAD as `git rev-parse` says (the checkout the test binary was built from).
fn git_head() -> String {
    let out = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("git runs (the tests run in a git checkout)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn version_names_the_commit_and_every_shipped_rule_set_with_its_sha256() {
    let (code, out, err) = bansha(&["--version"]);
    assert_eq!(code, 0, "{err}");
    let head = git_head();
    assert!(
        out.starts_with(&format!("bansha {}\n", env!("CARGO_PKG_VERSION"))),
        "{out}"
    );
    assert!(
        out.contains(&format!("\ncommit {head}\n")),
        "HEAD {head}:\n{out}"
    );

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        n += 1;
        let bytes = std::fs::read(&path).unwrap();
        let sha: String = ring::digest::digest(&ring::digest::SHA256, &bytes)
            .as_ref()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let table: toml::Table = std::str::from_utf8(&bytes).unwrap().parse().unwrap();
        let name = table["meta"]["name"].as_str().unwrap();
        let file = path.file_name().unwrap().to_str().unwrap();
        assert!(
            out.contains(&format!("  {file}  {name}\n    sha256 {sha}\n")),
            "{file}:\n{out}"
        );
    }
    assert!(n >= 5, "the tree ships the five rule sets, found {n}");
}

#[test]
fn short_version_names_the_commit_prefix() {
    let (code, out, err) = bansha(&["-V"]);
    assert_eq!(code, 0, "{err}");
    let head = git_head();
    assert_eq!(
        out,
        format!(
            "bansha {} (commit {})\n",
            env!("CARGO_PKG_VERSION"),
            &head[..12]
        )
    );
}
