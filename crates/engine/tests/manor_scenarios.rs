//! The 排球少年 scenarios: every `tests/scenarios/manor/M114-blizzard-manor/*.toml` is played
//! against `rules/M114-blizzard-manor.toml`'s `[manor]` section. Each quotes the rule sentence
//! it checks (`rule`): verbatim from the post, or a reading labelled 解读/采用/按字面/bansha.

use std::path::{Path, PathBuf};

use bansha_engine::manor::rules_from_toml;
use bansha_engine::manor::scenario::ManorScenario;

const SET: &str = "M114-blizzard-manor";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn scenarios_m114_blizzard_manor() {
    let text = std::fs::read_to_string(root().join(format!("rules/{SET}.toml"))).unwrap();
    let rules = rules_from_toml(&text).unwrap_or_else(|e| panic!("rules/{SET}.toml: {e}"));
    let post = std::fs::read_to_string(root().join(format!("rules/posts/{SET}.txt")))
        .unwrap_or_else(|e| panic!("the rule post: {e}"));
    let dir = root().join(format!("tests/scenarios/manor/{SET}"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let errs = ManorScenario::check_file(&std::fs::read_to_string(f).unwrap(), &post, &rules);
        if !errs.is_empty() {
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
        files.len() >= 60,
        "only {} scenarios (want at least 60)",
        files.len()
    );
}

/// A rule file whose template names a method the rules do not list is refused by name.
#[test]
fn manor_unknown_method_is_a_rule_file_error() {
    let text = std::fs::read_to_string(root().join(format!("rules/{SET}.toml"))).unwrap();
    let bad = text.replacen(
        "methods = [\"刀杀\", \"钝击\", \"毒杀\"]",
        "methods = [\"刀杀\", \"钝击\", \"毒药\"]",
        1,
    );
    let err = rules_from_toml(&bad).unwrap_err();
    assert!(
        err.contains("manor.template.医生（女）.methods: unknown method `毒药`"),
        "{err}"
    );
}
