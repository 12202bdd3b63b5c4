//! Integration tests: 灵族杀 nights through the `bansha` binary with the real
//! `rules/lingzu.toml` — dusk <驱灵> in the night's actions file, 灵力 in the 公示, the
//! converted player's true and apparent identity in `state`, a 驱灵 the 灵主 cannot pay
//! rejected with exit 2, and a hunter blown up by <自爆> stopping the night for his answer.
//! Expected values are worked out by hand from the rule post (rules/posts/lingzu.txt).

use crate::common::{NightGame, state_player};

const SEATS: &[(&str, &str)] = &[
    ("甲", "村民"),
    ("乙", "先知"),
    ("丙", "狼人"),
    ("丁", "天师"),
    ("戊", "通灵师"),
    ("己", "狼人"),
    ("庚", "女巫"),
    ("辛", "灵主"),
    ("壬", "守卫"),
    ("癸", "自爆狼"),
    ("子", "猎人"),
    ("丑", "狼人"),
];

fn game(name: &str) -> NightGame {
    NightGame::new(
        &format!("lingzu-{name}"),
        "lingzu.toml",
        "灵族杀测试局",
        SEATS,
        200,
        "",
    )
}

const N1: &str = r#"
[[action]]
actor = "辛"
skill = "驱灵"
targets = ["庚"]
[[action]]
actor = "丙"
skill = "杀人"
targets = ["甲"]
[[action]]
actor = "乙"
skill = "预言"
targets = ["庚"]
"#;

#[test]
fn lingzu_dusk_conversion_and_lingli_through_night_and_state() {
    let g = game("convert");
    let (code, out, err) = g.night(1, N1, "json");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["deaths"][0]["player"], "甲");
    assert_eq!(j["deaths"][0]["cause"], "指杀");
    assert_eq!(j["deaths"].as_array().unwrap().len(), 1);
    let fb = |p: &str| -> Vec<String> {
        j["feedback"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["player"] == p)
            .map(|f| f["text"].as_str().unwrap().to_string())
            .collect()
    };
    // 「灵主可以得知所有灵魁的原有身份」; 「立刻得知灵主的身份」; the seer sees the old role
    assert_eq!(fb("辛"), ["<驱灵>：庚 成为灵魁，其原有身份为 女巫。"]);
    assert!(fb("庚").iter().any(|t| t.contains("灵主是 辛")), "{out}");
    assert_eq!(fb("乙"), ["<预言>：庚 的身份是 女巫"]);
    // 甲 (seat 1) sits between 丑 and 乙: no 灵族 neighbour
    assert_eq!(
        fb("戊"),
        ["<感魔>：甲 出局，其相邻位置（丑、乙）没有灵族阵营的角色。"]
    );
    let ann: Vec<&str> = j["announcements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(ann.contains(&"昨夜出局：甲"), "{ann:?}");
    assert!(ann.contains(&"灵主灵力：50"), "{ann:?}");
    assert!(ann.contains(&"黄昏后灵主灵力：0"), "{ann:?}");

    // the state keeps true and apparent identity and the 灵力
    let st = g.state_json(None);
    let p = |n: &str| state_player(&st, n).clone();
    assert_eq!(p("庚")["role"], "灵魁");
    assert_eq!(p("庚")["apparent_role"], "女巫");
    assert_eq!(p("庚")["camp"], "灵族阵营");
    assert_eq!(p("辛")["counters"]["灵力"], 50);

    // 50 灵力 cannot pay for another 驱灵: bad input, exit 2, naming the action
    let (code, out, err) = g.night(
        2,
        "[[action]]\nactor = \"辛\"\nskill = \"驱灵\"\ntargets = [\"丁\"]\n",
        "text",
    );
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("驱灵") && err.contains("灵力"), "{err}");
}

#[test]
fn lingzu_bbcode_publishes_lingli_and_the_blast_but_no_identity() {
    let g = game("bbcode");
    let (code, _, err) = g.night(1, N1, "json");
    assert_eq!(code, 0, "{err}");
    // night 2: the 自爆狼 (seat 10) blows up; neighbours 壬 (9) and the hunter 子 (11), who
    // answers up front
    let n2 = "[[action]]\nactor = \"癸\"\nskill = \"自爆\"\n[[action]]\nactor = \"子\"\nskill = \"最后一枪\"\ntargets = [\"丑\"]\n";
    let (code, out, err) = g.night(2, n2, "bbcode");
    assert_eq!(code, 0, "{err}");
    let public = out.split("私信反馈").next().unwrap();
    assert!(public.contains("癸、壬、子、丑"), "{out}");
    assert!(public.contains("癸玩家自爆了"), "{out}");
    // 50 + 癸, 壬, 子, 丑 (four non-灵族 outs)
    assert!(public.contains("灵主灵力：250"), "{out}");
    // 「游戏进行期间以任何方式出局的角色均不公示其身份」
    for role in ["自爆狼", "守卫", "猎人", "狼人", "灵魁"] {
        assert!(!public.contains(role), "{role} leaked: {public}");
    }
}

#[test]
fn lingzu_hunter_hit_by_blast_stops_the_night_for_his_answer() {
    let g = game("prompt");
    let (code, _, err) = g.night(1, N1, "json");
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = g.night(2, "[[action]]\nactor = \"癸\"\nskill = \"自爆\"\n", "text");
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        format!("{out}{err}").contains("子") && format!("{out}{err}").contains("最后一枪"),
        "{out}{err}"
    );
}

/// Regression: 灵族杀's night N comes before day N (「不公示死讯，进行警长竞选与讨论」, then
/// 「警长竞选结束后，公示第一晚死讯」), so night N's deaths are announced on day N. The 公示
/// was titled as if night N followed day N (第2天 for the first night).
#[test]
fn lingzu_night_n_is_announced_on_day_n() {
    let g = game("daynumber");
    let (code, out, err) = g.night(1, N1, "bbcode");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("[b]第1天公示[/b]"), "{out}");
    let (code, out, err) = g.night(2, "", "bbcode");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("[b]第2天公示[/b]"), "{out}");
}
