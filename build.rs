//! Tells `bansha --version` (src/version/) the commit it is built from and the rule sets it
//! ships. Runs `git` never: a clean clone, a machine without git and a source tarball all
//! build (src/version/commit.rs says where the commit is read).

use std::path::{Path, PathBuf};

#[path = "src/version/commit.rs"]
mod commit;

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    println!("cargo:rerun-if-env-changed=BANSHA_COMMIT");
    let env = std::env::var("BANSHA_COMMIT").ok();
    let found = commit::find(&root, env.as_deref());
    for path in &found.watch {
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    let commit = found.commit.unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=BANSHA_COMMIT={commit}");

    let rules = root.join("rules");
    println!("cargo:rerun-if-changed={}", rules.display());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("rule_files.rs"), rule_files(&rules)).expect("OUT_DIR is writable");
}

/// `&[(file name, include_bytes!(path))]` for every `rules/*.toml`, sorted by name.
fn rule_files(dir: &Path) -> String {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a readable rules/ folder").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut s = String::from("&[\n");
    for p in &files {
        let name = p.file_name().expect("a file").to_string_lossy();
        s.push_str(&format!(
            "    ({name:?}, include_bytes!({:?})),\n",
            p.display().to_string()
        ));
    }
    s.push(']');
    s
}
