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

#[test]
fn scenarios_m213_hollow_knight() {
    run_set("M213-hollow-knight", 65);
}

/// A role the post names but never defines is refused, saying so.
#[test]
fn m213_undefined_role_is_refused() {
    let text = std::fs::read_to_string(root().join("rules/M213-hollow-knight.toml")).unwrap();
    let rules = engine_rules_from_toml(&text).unwrap();
    let seats = [("甲".to_string(), "阴谋家".to_string())];
    let err = bansha_engine::GameState::new(&rules, &seats)
        .unwrap_err()
        .to_string();
    assert!(err.contains("规则帖没有定义身份「阴谋家」"), "{err}");
    assert!(err.contains("阴谋家[煽动]"), "{err}");
}

/// `check-rules` shows M213's statuses, the hand-off chain, the undefined roles and every
/// reading; a skill the engine does not resolve yet is flagged.
#[test]
fn m213_support_report_shows_statuses_handoff_and_readings() {
    let text = std::fs::read_to_string(root().join("rules/M213-hollow-knight.toml")).unwrap();
    let rules = engine_rules_from_toml(&text).unwrap();
    let report = bansha_engine::rules::support_report(&rules);
    for line in [
        "状态【冰冻】：含沉默+缴械",
        "状态【守护：1】：抵消指杀（每层一次）",
        "状态【不死】：只因红牌出局",
        "<指定>交接：选择目标 → 时间逆流 → 反射 → 结算目标",
        "规则帖未定义的身份（配置中拒绝）：阴谋家",
        "女巫（村民阵营）：灵通［night，强制；see-kills］、救药［night，1次；grant-status］",
        "冲锋［night；无行为！］",
    ] {
        assert!(report.contains(line), "missing `{line}` in:\n{report}");
    }
    for r in &rules.readings {
        assert!(report.contains(r.as_str()), "reading not shown: {r}");
    }
}
