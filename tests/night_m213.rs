//! Integration tests: 空洞骑士 (M213) through the `bansha` binary with the real
//! `rules/M213-hollow-knight.toml` — a night with a freeze, a check and a poison, the day's
//! vote confirmed with `tally --confirm`, a second night against [不死], and `state` after
//! each. Expected values are worked out by hand from the rule post
//! (rules/posts/M213-hollow-knight.txt).

use crate::common::{NightGame, bansha, state_player};

const SEATS: &[(&str, &str)] = &[
    ("甲", "狼王"),
    ("乙", "狼兄"),
    ("丙", "预言家"),
    ("丁", "女巫"),
    ("戊", "企鹅"),
    ("己", "九尾狐"),
    ("庚", "猎人"),
    ("辛", "乌鸦"),
    ("壬", "隐者"),
    ("癸", "士兵"),
];

const UID: u32 = 500;
const BASE: &str = "http://127.0.0.1:18080/";

const DAYS: &str = r#"[[day]]
number = 1
vote = 951
opens = "2026-03-02 09:00"
closes = "2026-03-02 21:00"
[[day]]
number = 2
vote = 952
opens = "2026-03-03 09:00"
closes = "2026-03-03 21:00"
"#;

fn json(code: i32, out: &str, err: &str) -> serde_json::Value {
    assert_eq!(code, 0, "{err}{out}");
    serde_json::from_str(out).unwrap()
}

fn deaths(j: &serde_json::Value) -> Vec<String> {
    j["deaths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{}:{}",
                d["player"].as_str().unwrap(),
                d["cause"].as_str().unwrap()
            )
        })
        .collect()
}

/// Night 1: 企鹅 freezes 甲 at (10), so the 狼王's check-free night is quiet; 丙's <预言> on
/// 乙 reads 非村民阵营; 丁's <毒药> on 辛 is a 穿透. Day 1's vote puts 乙 out. Night 2: the
/// pack's <杀人> on 九尾狐 fails against her [不死], 癸's [守护：1] is untouched.
#[test]
fn m213_night_vote_and_night_through_night_tally_and_state() {
    let g = NightGame::new(
        "m213-game",
        "M213-hollow-knight.toml",
        "空洞骑士测试局",
        SEATS,
        UID,
        DAYS,
    );
    let n1 = r#"
[[action]]
actor = "戊"
skill = "冰冻"
targets = ["甲"]
[[action]]
actor = "丙"
skill = "预言"
targets = ["乙"]
[[action]]
actor = "丁"
skill = "毒药"
targets = ["辛"]
"#;
    let (code, out, err) = g.night(1, n1, "json");
    let j = json(code, &out, &err);
    assert_eq!(deaths(&j), ["辛:穿透"], "{j}");
    let fb: Vec<String> = j["feedback"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}: {}",
                f["player"].as_str().unwrap(),
                f["text"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        fb.contains(&"丙: <预言>：乙 —— 选择目标为非村民阵营".to_string()),
        "{fb:?}"
    );
    assert!(fb.iter().any(|f| f.starts_with("甲: 你被冰冻")), "{fb:?}");
    let st = g.state_json(None);
    assert_eq!(state_player(&st, "辛")["alive"], false, "{st}");
    assert_eq!(state_player(&st, "丁")["alive"], true, "{st}");

    let voters = ["甲", "丙", "丁", "戊", "己", "庚", "壬", "癸"];
    g.store_votes(
        BASE,
        (SEATS, u64::from(UID)),
        (951, "2026-03-02"),
        &voters,
        "乙",
    );
    let cfg = g.cfg();
    let (code, out, err) = bansha(&[
        "tally",
        "--config",
        &cfg,
        "--day",
        "1",
        "--at",
        "2026-03-02 21:00",
        "--confirm",
        "--format",
        "json",
    ]);
    let day = json(code, &out, &err);
    assert_eq!(deaths(&day), ["乙:投票"], "{day}");

    let n2 = "[[action]]\nactor = \"甲\"\nskill = \"杀人\"\ntargets = [\"己\"]\n";
    let (code, out, err) = g.night(2, n2, "json");
    let j = json(code, &out, &err);
    assert!(deaths(&j).is_empty(), "{j}");
    let st = g.state_json(None);
    assert_eq!(state_player(&st, "己")["alive"], true, "{st}");
    assert_eq!(state_player(&st, "乙")["alive"], false, "{st}");
    assert_eq!(state_player(&st, "乙")["out"]["cause"], "投票", "{st}");
}

/// 「规则帖提到但从未定义的身份……不能出现在配置中」: a config dealing 阴谋家 is refused by
/// `night` with a message naming the role and saying the post does not define it.
#[test]
fn m213_config_with_an_undefined_role_is_refused() {
    let seats = [("甲", "狼王"), ("乙", "阴谋家"), ("丙", "预言家")];
    let g = NightGame::new(
        "m213-undefined",
        "M213-hollow-knight.toml",
        "空洞骑士测试局",
        &seats,
        UID,
        DAYS,
    );
    let (code, out, err) = g.night(1, "", "text");
    assert_ne!(code, 0, "{out}");
    assert!(err.contains("规则帖没有定义身份「阴谋家」"), "{err}");
}
