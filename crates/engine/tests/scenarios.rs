//! The night scenarios: every `tests/scenarios/night/<rule set>/*.toml` of the workspace is
//! played against `rules/<rule set>.toml`'s `[engine]` section. Each scenario quotes the rule
//! sentence it checks (`rule`): verbatim from the post, or a reading labelled 解读/采用/按字面/bansha.

use std::path::{Path, PathBuf};

use bansha_engine::quote;
use bansha_engine::scenario::{Scenario, engine_rules_from_toml};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_set(set: &str, min: usize) {
    let rules_path = root().join(format!("rules/{set}.toml"));
    let text = std::fs::read_to_string(&rules_path).unwrap();
    let rules =
        engine_rules_from_toml(&text).unwrap_or_else(|e| panic!("{}: {e}", rules_path.display()));
    let post_path = root().join(format!("rules/posts/{set}.txt"));
    let post = quote::normalize(
        &std::fs::read_to_string(&post_path)
            .unwrap_or_else(|e| panic!("{}: the rule post: {e}", post_path.display())),
    );
    let dir = root().join(format!("tests/scenarios/night/{set}"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let sc = match Scenario::parse(&std::fs::read_to_string(f).unwrap()) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        if let Err(e) = quote::check_quotation(&sc.rule, &post) {
            failures.push(format!("{name}: {e}"));
        }
        if let Err(errs) = sc.run(&rules) {
            failures.push(format!("{name}:\n  {}", errs.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    assert!(
        files.len() >= min,
        "{set}: only {} scenarios (want at least {min})",
        files.len()
    );
}

#[test]
fn scenarios_075_zhifou() {
    run_set("075-zhifou", 30);
}

#[test]
fn scenarios_lingzu() {
    run_set("lingzu", 30);
}

/// A typo in a camp or role an effect names is a rule-file error, not a silent no-op.
#[test]
fn lingzu_effect_names_are_checked() {
    let text = std::fs::read_to_string(root().join("rules/lingzu.toml")).unwrap();
    let bad = text
        .replace(
            r#"{ kind = "exorcise", camp = "灵族阵营""#,
            r#"{ kind = "exorcise", camp = "灵族""#,
        )
        .replace(
            r#"{ kind = "follow-out", role = "灵主" }"#,
            r#"{ kind = "follow-out", role = "灵王" }"#,
        );
    let err = engine_rules_from_toml(&bad).unwrap_err();
    assert!(
        err.contains("engine.skill.驱魔.effects[0]: unknown camp `灵族`"),
        "{err}"
    );
    assert!(
        err.contains("engine.skill.灵散.effects[0]: unknown role `灵王`"),
        "{err}"
    );
}

#[test]
fn scenarios_huangquan() {
    run_set("huangquan", 40);
}
