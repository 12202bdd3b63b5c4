//! Clauses are quotations: every string a rule file cites as a clause (a key named
//! `*clause*`, or any entry of a `*.clauses` table) occurs in its rule post, or it is
//! labelled as a reading (starts with 解读 / 按字面 / 采用 / bansha).
//!
//! The checker itself is the workspace's one, `bansha_engine::quote` (the engine crate
//! cannot depend on bansha), re-exported here: a clause is cut at the marks a quotation may
//! use for omissions and joins (……, …, ——, —, （ ）, ( ), ；, 。, ：) and every piece of six or
//! more characters must occur in the post, whitespace, 【】 and quote styles ignored.

pub use bansha_engine::quote::{check_quotation, is_reading, missing_piece, normalize, pieces};

/// One clause string that its post does not contain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unquoted {
    /// Dotted key path in the rule file (`vote.clauses.change-reply`).
    pub key: String,
    pub clause: String,
    /// The first piece not found in the post.
    pub missing: String,
}

/// Every cited clause of a parsed rule file, with its key path.
pub fn cited_clauses(doc: &toml::Value) -> Vec<(String, String)> {
    fn walk(x: &toml::Value, path: &str, out: &mut Vec<(String, String)>) {
        match x {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(v, &p, out);
                }
            }
            toml::Value::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    walk(v, &format!("{path}[{i}]"), out);
                }
            }
            toml::Value::String(s) => {
                let leaf = path.rsplit('.').next().unwrap_or(path);
                if leaf.contains("clause") || format!(".{path}").contains(".clauses.") {
                    out.push((path.to_string(), s.clone()));
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(doc, "", &mut out);
    out
}

/// The clauses of `rule_file` (TOML text) that `post` (the rule post's text) does not
/// contain and that are not labelled as readings.
pub fn unquoted(rule_file: &str, post: &str) -> Result<Vec<Unquoted>, toml::de::Error> {
    let doc: toml::Value = toml::from_str(rule_file)?;
    let post = normalize(post);
    let mut bad = Vec::new();
    for (key, clause) in cited_clauses(&doc) {
        if let Some(missing) = missing_piece(&clause, &post) {
            bad.push(Unquoted {
                key,
                clause,
                missing,
            });
        }
    }
    Ok(bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_cited_clauses_of_a_rule_file_not_in_its_post() {
        let post = "【改票格式】改票需回复原投票楼层\n“执行加速”状态";
        let file = "[vote.clauses]\na = \"改票需回复原投票楼层\"\nb = \"不在帖子里的一句话啊\"\nc = \"解读：不在帖子里的一句话啊\"\n[x]\nclause = \"执行加速”状态\"\nother = \"不是条款不是条款不是条款\"\n";
        let bad = unquoted(file, post).unwrap();
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert_eq!(bad[0].key, "vote.clauses.b");
    }

    /// Every rule file's clauses are quotations of its post (`[meta] source` in
    /// `rules/posts/`), or labelled readings.
    #[test]
    fn every_rule_file_quotes_its_post() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let posts = root.join(crate::rules::POSTS_DIR);
        let mut files: Vec<_> = std::fs::read_dir(root.join("rules"))
            .expect("rules/")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        assert!(files.len() >= 5, "{files:?}");
        let mut errs = Vec::new();
        for f in &files {
            let text = std::fs::read_to_string(f).unwrap();
            let doc: toml::Value = toml::from_str(&text).unwrap();
            let src = doc["meta"]["source"].as_str().unwrap_or_default();
            let post_path = posts.join(src);
            let post = std::fs::read_to_string(&post_path).unwrap_or_else(|e| {
                panic!(
                    "{}: [meta] source: {}: {e} (the rule posts live in rules/posts/)",
                    f.display(),
                    post_path.display()
                )
            });
            for u in unquoted(&text, &post).unwrap() {
                errs.push(format!(
                    "{}: {}: 「{}」 is not in {src} (missing: {}); quote the post or start the string with 解读/采用/按字面/bansha",
                    f.display(),
                    u.key,
                    u.clause,
                    u.missing
                ));
            }
        }
        assert!(errs.is_empty(), "{}", errs.join("\n"));
    }
}
