//! The commit a build comes from, read without running `git` (build.rs includes this file; the
//! library compiles it only for its tests). In order: the `BANSHA_COMMIT` variable (a
//! packager's word), the checkout's `.git` (a folder, or a worktree's `gitdir:` file), the
//! `.cargo_vcs_info.json` of a packaged crate, and `.commit`, which `git archive` fills in
//! (`export-subst` in `.gitattributes`) so a source tarball knows its commit too.

use std::path::{Path, PathBuf};

/// Where the commit was read, and the files whose change means it must be read again.
#[derive(Debug, PartialEq, Eq)]
pub struct Found {
    pub commit: Option<String>,
    pub watch: Vec<PathBuf>,
}

/// The commit of the source tree at `root`; `from_env` is `BANSHA_COMMIT` when set.
pub fn find(root: &Path, from_env: Option<&str>) -> Found {
    if let Some(c) = from_env.and_then(full_hash) {
        return Found {
            commit: Some(c),
            watch: Vec::new(),
        };
    }
    if let Some(found) = from_git(root) {
        return found;
    }
    let mut watch = Vec::new();
    for (file, read) in [
        (
            ".cargo_vcs_info.json",
            from_vcs_info as fn(&str) -> Option<String>,
        ),
        (".commit", full_hash),
    ] {
        let path = root.join(file);
        if let Ok(text) = std::fs::read_to_string(&path) {
            watch.push(path);
            if let Some(c) = read(&text) {
                return Found {
                    commit: Some(c),
                    watch,
                };
            }
        }
    }
    Found {
        commit: None,
        watch,
    }
}

/// A 40-hex commit id (SHA-1) or 64-hex (SHA-256 repositories), trimmed and lower-cased;
/// `None` for anything else (an unsubstituted `$Format:%H$`).
pub fn full_hash(text: &str) -> Option<String> {
    let t = text.trim();
    let ok = matches!(t.len(), 40 | 64) && t.bytes().all(|b| b.is_ascii_hexdigit());
    ok.then(|| t.to_ascii_lowercase())
}

/// `"sha1": "…"` of cargo's `.cargo_vcs_info.json`.
fn from_vcs_info(text: &str) -> Option<String> {
    let rest = &text[text.find("\"sha1\"")? + "\"sha1\"".len()..];
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    full_hash(&rest[..rest.find('"')?])
}

/// The checkout's git folder: `.git` itself, or where a worktree's `.git` file points.
fn git_dir(root: &Path) -> Option<PathBuf> {
    let dot_git = root.join(".git");
    if dot_git.is_dir() {
        return Some(dot_git);
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let dir = text.trim().strip_prefix("gitdir:")?.trim();
    Some(root.join(dir))
}

/// HEAD's commit: a detached HEAD holds it; a branch's is in the loose ref file, in the
/// worktree's or the common folder, else in `packed-refs`.
fn from_git(root: &Path) -> Option<Found> {
    let git = git_dir(root)?;
    let head_path = git.join("HEAD");
    let head = std::fs::read_to_string(&head_path).ok()?;
    let mut watch = vec![head_path];
    let Some(name) = head.trim().strip_prefix("ref:").map(str::trim) else {
        return Some(Found {
            commit: full_hash(&head),
            watch,
        });
    };
    let common = match std::fs::read_to_string(git.join("commondir")) {
        Ok(rel) => git.join(rel.trim()),
        Err(_) => git.clone(),
    };
    for dir in [&git, &common] {
        let loose = dir.join(name);
        if let Ok(text) = std::fs::read_to_string(&loose) {
            watch.push(loose);
            return Some(Found {
                commit: full_hash(&text),
                watch,
            });
        }
    }
    // A packed ref: a commit on the branch writes the loose file, in its folder.
    let loose = common.join(name);
    watch.extend(loose.parent().map(Path::to_path_buf));
    let packed = common.join("packed-refs");
    let text = std::fs::read_to_string(&packed).unwrap_or_default();
    watch.push(packed);
    let commit = text.lines().find_map(|line| {
        let (hash, r) = line.split_once(' ')?;
        (r.trim() == name).then(|| full_hash(hash)).flatten()
    });
    Some(Found { commit, watch })
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "43a1152e5f0b7c2d9e8f6a5b4c3d2e1f0a9b8c7d";
    const B: &str = "65380b3aaaabbbbccccddddeeeeffff000011112";

    fn tree(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let root =
            std::env::temp_dir().join(format!("bansha-commit-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, text) in files {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        std::fs::create_dir_all(&root).unwrap();
        root
    }

    fn commit(root: &Path) -> Option<String> {
        let c = find(root, None).commit;
        std::fs::remove_dir_all(root).unwrap();
        c
    }

    #[test]
    fn a_branch_head_reads_the_loose_ref() {
        let root = tree(
            "loose",
            &[
                (".git/HEAD", "ref: refs/heads/main\n"),
                (".git/refs/heads/main", &format!("{A}\n")),
            ],
        );
        let found = find(&root, None);
        assert_eq!(found.commit.as_deref(), Some(A));
        assert!(found.watch.contains(&root.join(".git/refs/heads/main")));
        assert_eq!(commit(&root).as_deref(), Some(A));
    }

    #[test]
    fn a_packed_ref_is_found_in_packed_refs() {
        let packed = format!(
            "# pack-refs with: peeled fully-peeled sorted\n{B} refs/heads/other\n{A} refs/heads/main\n"
        );
        let root = tree(
            "packed",
            &[
                (".git/HEAD", "ref: refs/heads/main\n"),
                (".git/packed-refs", &packed),
            ],
        );
        assert_eq!(commit(&root).as_deref(), Some(A));
    }

    #[test]
    fn a_detached_head_holds_the_commit() {
        let root = tree("detached", &[(".git/HEAD", &format!("{B}\n"))]);
        assert_eq!(commit(&root).as_deref(), Some(B));
    }

    #[test]
    fn a_worktree_reads_its_head_and_the_common_refs() {
        let root = tree(
            "worktree",
            &[
                ("repo/.git/worktrees/w/HEAD", "ref: refs/heads/w\n"),
                // git's own relative spelling, joined so no literal starts with `..`
                // (tests/self_contained.rs reads those as paths leaving the tree)
                ("repo/.git/worktrees/w/commondir", &["..", "/..\n"].concat()),
                ("repo/.git/refs/heads/w", A),
                ("w/.git", "gitdir: ../repo/.git/worktrees/w\n"),
            ],
        );
        assert_eq!(find(&root.join("w"), None).commit.as_deref(), Some(A));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_source_tarball_reads_the_substituted_commit_file() {
        let root = tree("tarball", &[(".commit", &format!("{A}\n"))]);
        assert_eq!(commit(&root).as_deref(), Some(A));
    }

    #[test]
    fn an_unsubstituted_commit_file_says_nothing() {
        let root = tree("unsubstituted", &[(".commit", "$Format:%H$\n")]);
        assert_eq!(commit(&root), None);
    }

    #[test]
    fn a_packaged_crate_reads_cargo_vcs_info() {
        let info =
            format!("{{\n  \"git\": {{\n    \"sha1\": \"{B}\"\n  }},\n  \"path_in_vcs\": \"\"\n}}");
        let root = tree("vcsinfo", &[(".cargo_vcs_info.json", &info)]);
        assert_eq!(commit(&root).as_deref(), Some(B));
    }

    #[test]
    fn the_variable_wins_over_the_checkout() {
        let root = tree("env", &[(".git/HEAD", &format!("{A}\n"))]);
        assert_eq!(find(&root, Some(B)).commit.as_deref(), Some(B));
        assert_eq!(find(&root, Some("not a commit")).commit.as_deref(), Some(A));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
