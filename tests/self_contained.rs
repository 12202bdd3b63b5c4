//! A clone needs nothing beside it (issue 22): no source file of the workspace names a path
//! that leaves the repository, so every file a test, bench or build reads is in the tree.

use std::path::{Component, Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The folder relative paths in `file` are read against: the file's own folder for
/// `include_str!`/`include_bytes!`/`#[path]`, else its package's (`CARGO_MANIFEST_DIR`).
fn bases(file: &Path, line: &str) -> PathBuf {
    if ["include_str!", "include_bytes!", "#[path"]
        .iter()
        .any(|m| line.contains(m))
    {
        return file.parent().unwrap().to_path_buf();
    }
    let mut d = file.parent().unwrap();
    while !d.join("Cargo.toml").exists() {
        d = d.parent().unwrap();
    }
    d.to_path_buf()
}

/// `base` joined with `rel` stays inside `top` (only the leading `..` parts matter).
fn stays_inside(top: &Path, base: &Path, rel: &str) -> bool {
    let mut depth = base
        .strip_prefix(top)
        .map(|p| p.components().count())
        .unwrap_or(0) as i64;
    for c in Path::new(rel).components() {
        match c {
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            Component::CurDir => {}
            _ => depth += 1,
        }
    }
    true
}

/// Every path literal of the workspace's Rust files that leaves the repository, as
/// `file:line: literal`.
fn escaping_paths(top: &Path) -> Vec<String> {
    let lit = regex::Regex::new(r#"(?:^|[^\\])"((?:\.\./|\.\.")[^"]*)"#).unwrap();
    let mut files = Vec::new();
    for d in ["src", "tests", "benches", "crates"] {
        rust_files(&top.join(d), &mut files);
    }
    files.sort();
    // The sibling folder a clone does not have, spelled so that this line does not name it.
    let sibling = ["/sh", "ared/"].concat();
    let mut bad = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            if code.starts_with("//") {
                continue;
            }
            for c in lit.captures_iter(line) {
                let rel = c[1].trim_end_matches('"');
                if !stays_inside(top, &bases(f, line), rel) {
                    bad.push(format!(
                        "{}:{}: \"{rel}\"",
                        f.strip_prefix(top).unwrap_or(f).display(),
                        i + 1
                    ));
                }
            }
            if line.contains(&sibling) {
                bad.push(format!(
                    "{}:{}: names the sibling folder a clone does not have",
                    f.strip_prefix(top).unwrap_or(f).display(),
                    i + 1
                ));
            }
        }
    }
    bad
}

#[test]
fn no_source_file_reads_a_path_outside_the_repository() {
    let bad = escaping_paths(&root());
    assert!(
        bad.is_empty(),
        "paths that leave the repository (a fresh clone has nothing beside it):\n  {}",
        bad.join("\n  ")
    );
}

/// The check can fail: a file that reads `../shared` from the package root is found, one that
/// includes a sibling folder's file is not.
#[test]
fn the_path_check_finds_a_path_that_leaves_the_tree() {
    let top = crate::common::scratch_dir("self-contained");
    std::fs::create_dir_all(top.join("tests")).unwrap();
    std::fs::create_dir_all(top.join("crates/x/src")).unwrap();
    std::fs::write(top.join("Cargo.toml"), "").unwrap();
    std::fs::write(top.join("crates/x/Cargo.toml"), "").unwrap();
    std::fs::write(
        top.join("tests/a.rs"),
        "let p = root.join(\"../posts/x.txt\");\nconst R: &str = include_str!(\"../rules/x.toml\");\n",
    )
    .unwrap();
    std::fs::write(
        top.join("crates/x/src/lib.rs"),
        "let r = root.join(\"../..\");\nlet s = root.join(\"../../../elsewhere\");\n",
    )
    .unwrap();
    let bad = escaping_paths(&top);
    assert_eq!(
        bad,
        vec![
            "crates/x/src/lib.rs:2: \"../../../elsewhere\"".to_string(),
            "tests/a.rs:1: \"../posts/x.txt\"".to_string(),
        ]
    );
}
