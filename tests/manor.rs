//! Integration tests: a whole 排球少年 (暴风雪山庄, M114) game through the `bansha` binary —
//! `night` (开局 and nights), `day`, `tally --confirm`, `state` — on the real
//! `rules/M114-blizzard-manor.toml`. Expected values are worked out by hand from the post.

use bansha::model::PagePost;

use crate::common::{NightGame, bansha};

const BASE: &str = "http://127.0.0.1:18080/";

const SEATS: &[(&str, &str)] = &[
    ("甲", "健身教练（男）"),
    ("乙", "医生（女）"),
    ("丙", "驴友（女）"),
    ("丁", "导游（女）"),
    ("戊", "学生（男）"),
    ("己", "程序员（男）"),
    ("庚", "灵媒（女）"),
    ("辛", "高中生（女）"),
];

const DAYS: &str = r#"[[day]]
number = 1
vote = 701
opens = "2026-03-02 09:00"
closes = "2026-03-02 20:30"
vote_closes = "2026-03-02 21:00"
[[day]]
number = 2
vote = 702
opens = "2026-03-03 09:00"
closes = "2026-03-03 20:30"
vote_closes = "2026-03-03 21:00"
"#;

const SETUP: &str = r#"
murderer = "甲"
fool = "庚"
targets = ["乙", "丙"]
motives = ["愉悦"]
[[player]]
name = "甲"
template = "健身教练（男）"
place = "大厅"
[[player]]
name = "乙"
template = "医生（女）"
place = "卧室"
[[player]]
name = "丙"
template = "驴友（女）"
place = "室内花园"
[[player]]
name = "丁"
template = "导游（女）"
place = "厨房"
[[player]]
name = "戊"
template = "学生（男）"
place = "地下室"
[[player]]
name = "己"
template = "程序员（男）"
place = "卫生间"
[[player]]
name = "庚"
template = "灵媒（女）"
place = "阳台"
[[player]]
name = "辛"
template = "高中生（女）"
place = "大厅"
"#;

/// The worked example of docs/interfaces.md.
const NIGHT1: &str = r#"
[plan]
method = "刀杀"
victim = "丁"
clues = ["手表"]
trick = { method = "钝击", clue = "眼镜" }
[[action]]
actor = "乙"
skill = "心理暗示"
targets = ["丙"]
place = "厨房"
"#;

const DAY1: &str = r#"
announce_case = ["丙"]
[[step]]
actor = "辛"
place = "地下室"
[[step]]
actor = "乙"
place = "地下室"
"#;

/// 戊 in the 地下室 survives a named victim (<封闭空间>): the plan fails, its clue stays.
const NIGHT2: &str = r#"
[plan]
method = "钝击"
victim = "戊"
clues = ["衣料"]
trick = { method = "绞杀", clue = "手机" }
"#;

fn game(name: &str) -> NightGame {
    NightGame::new(
        &format!("manor-{name}"),
        "M114-blizzard-manor.toml",
        "[M114]排球少年",
        SEATS,
        300,
        DAYS,
    )
}

fn uid(name: &str) -> u64 {
    300 + SEATS.iter().position(|(n, _)| *n == name).unwrap() as u64
}

/// The day's 投票帖: `(voter, target)` ballots at noon.
fn votes(g: &NightGame, tid: u64, date: &str, ballots: &[(&str, &str)]) {
    let mut posts: Vec<PagePost> = vec![crate::common::page_post(
        1,
        tid * 100,
        "导演",
        1,
        &format!("{date} 09:00"),
        "投票帖",
    )];
    for (i, (v, t)) in ballots.iter().enumerate() {
        posts.push(crate::common::page_post(
            2 + i as u32,
            tid * 100 + 1 + i as u64,
            v,
            uid(v),
            &format!("{date} 12:00"),
            &format!("投票对象：{t}\n投票理由：怀疑"),
        ));
    }
    let source = format!("{BASE}forum.php?mod=viewthread&tid={tid}");
    crate::common::store_one_page(&g.dir.join("game.sqlite"), BASE, tid, posts, &source);
}

fn day(g: &NightGame, n: u32, input: &str) -> (i32, String, String) {
    let f = g.file(&format!("d{n}.toml"), input);
    bansha(&[
        "day",
        "--config",
        &g.cfg(),
        "--day",
        &n.to_string(),
        "--input",
        &f,
    ])
}

fn confirm(g: &NightGame, n: u32, at: &str) -> (i32, String, String) {
    bansha(&[
        "tally",
        "--config",
        &g.cfg(),
        "--day",
        &n.to_string(),
        "--at",
        at,
        "--confirm",
        "--format",
        "json",
    ])
}

fn state(g: &NightGame, format: &str) -> String {
    let (code, out, err) = bansha(&["state", "--config", &g.cfg(), "--format", format]);
    assert_eq!(code, 0, "{err}");
    out
}

#[test]
fn a_whole_manor_game_runs_through_night_day_tally_confirm_and_state() {
    let g = game("whole");
    let (code, out, err) = g.night(0, SETUP, "text");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("你是凶手"), "{out}");

    let (code, out, err) = g.night(1, NIGHT1, "json");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        j["deaths"],
        serde_json::json!([{"player": "丁", "cause": "刀杀", "place": "厨房"}])
    );
    let fb = j["feedback"].as_array().unwrap();
    assert!(
        fb.iter().any(|f| f["player"] == "丙"
            && f["text"] == "【犯罪信息】地点：厨房；死者：丁；死因：刀杀；线索：手表"),
        "{out}"
    );
    let ann: Vec<&str> = j["announcements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(
        ann[0],
        "【天亮了】大厅：甲、辛；卧室：乙；室内花园：无人；厨房：丙；地下室：戊；卫生间：己；阳台：庚"
    );
    assert!(ann.contains(&"昨夜出局：丁"), "{ann:?}");

    // Night 2 waits for day 1's 公决.
    let (code, _, err) = g.night(2, NIGHT2, "text");
    assert_eq!(code, 2);
    assert!(err.contains("第1日 has no result yet"), "{err}");

    let (code, out, err) = day(&g, 1, DAY1);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("【发现凶案】"), "{out}");
    let (code, _, err) = g.night(2, NIGHT2, "text");
    assert_eq!(code, 2);
    assert!(err.contains("公决 is not confirmed yet"), "{err}");

    // Day 1's vote fails: two and two.
    votes(
        &g,
        701,
        "2026-03-02",
        &[("甲", "乙"), ("乙", "甲"), ("丙", "甲"), ("戊", "乙")],
    );
    let (code, out, err) = confirm(&g, 1, "2026-03-02 21:00");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["winner"], serde_json::Value::Null, "{out}");

    let (code, out, err) = g.night(2, NIGHT2, "text");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("【昨晚有人发现了凶手行踪】"), "{out}");
    assert!(out.contains("昨夜平安"), "{out}");

    let st = state(&g, "text");
    assert!(st.contains("  大厅：甲、乙\n"), "{st}");
    assert!(
        st.contains("  地下室：戊、辛\n    额外线索：遗留物：衣料\n"),
        "{st}"
    );
    assert!(
        st.contains("持有：【犯罪信息】地点：厨房；死者：丁；死因：刀杀；线索：手表"),
        "{st}"
    );
    assert!(st.contains("凶手：甲"), "{st}");
    let public = state(&g, "bbcode");
    assert!(!public.contains("凶手"), "{public}");
    assert!(public.contains("出局：丁"), "{public}");

    // Day 2: 丁 (out since night 1) cannot vote; four of the seven living vote 甲.
    day(&g, 2, "");
    votes(
        &g,
        702,
        "2026-03-03",
        &[
            ("乙", "甲"),
            ("丙", "甲"),
            ("戊", "甲"),
            ("辛", "甲"),
            ("丁", "乙"),
        ],
    );
    let (code, out, err) = confirm(&g, 2, "2026-03-03 21:00");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["winner"], "受困者阵营", "{out}");
    assert_eq!(j["deaths"][0]["player"], "甲");
    let st: serde_json::Value = serde_json::from_str(&state(&g, "json")).unwrap();
    assert_eq!(st["state"]["winner"], "Guests");
    let phases: Vec<&str> = st["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases, vec!["开局", "第1夜", "第1日", "第2夜", "第2日"]);
}

#[test]
fn manor_plan_that_cannot_be_carried_out_asks_the_director_with_exit_3() {
    let g = game("ask");
    assert_eq!(g.night(0, SETUP, "text").0, 0);
    let garden = "[plan]\nmethod = \"刀杀\"\nplace = \"室内花园\"\nclues = [\"手表\"]\ntrick = { method = \"钝击\", clue = \"眼镜\" }\n";
    let (code, out, err) = g.night(1, garden, "json");
    assert_eq!(code, 3, "{out}{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["need_input"]["player"], "甲");
    assert!(
        j["need_input"]["question"]
            .as_str()
            .unwrap()
            .contains("室内花园"),
        "{out}"
    );
    assert!(err.contains("nothing was stored"), "{err}");
    let st: serde_json::Value = serde_json::from_str(&state(&g, "json")).unwrap();
    assert_eq!(st["timeline"].as_array().unwrap().len(), 1);
}

#[test]
fn manor_setup_naming_a_stranger_is_refused_with_the_key() {
    let g = game("stranger");
    let (code, _, err) = g.night(
        0,
        &SETUP.replace("name = \"辛\"", "name = \"路人\""),
        "text",
    );
    assert_eq!(code, 2);
    assert!(
        err.contains("player[7].name: `路人` is not a [[player]] of the game config"),
        "{err}"
    );
}

/// <镇压>「所有身处该地点的玩家……投票无效」 reaches the tally without being announced.
#[test]
fn manor_suppressed_place_votes_do_not_count() {
    let g = game("suppress");
    let setup = SETUP.replace("template = \"高中生（女）\"", "template = \"军人（男）\"");
    assert_eq!(g.night(0, &setup, "text").0, 0);
    assert_eq!(g.night(1, NIGHT1, "text").0, 0);
    let (code, out, err) = day(
        &g,
        1,
        "[[step]]\nactor = \"辛\"\nskill = \"镇压\"\nplace = \"大厅\"\n",
    );
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("公告：\n  【镇压】"), "{out}");
    votes(&g, 701, "2026-03-02", &[("甲", "乙"), ("乙", "甲")]);
    let (code, out, err) = bansha(&[
        "tally",
        "--config",
        &g.cfg(),
        "--day",
        "1",
        "--at",
        "2026-03-02 21:00",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let t: serde_json::Value = serde_json::from_str(&out).unwrap();
    let valid = |v: &str| {
        t["ballots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["voter"] == v)
            .unwrap()["valid"]
            .clone()
    };
    assert_eq!(valid("甲"), false, "{out}");
    assert_eq!(valid("乙"), true, "{out}");
}

/// A red card is an out (「出局有以下情况：……红牌罚下出局」); the murderer's is
/// 「②凶手出局」: 受困者阵营 wins, and the next night is not played on a dead murderer.
#[test]
fn manor_red_card_of_the_murderer_ends_the_game() {
    let g = game("red");
    assert_eq!(g.night(0, SETUP, "text").0, 0);
    assert_eq!(g.night(1, NIGHT1, "text").0, 0);
    let (code, _, err) = bansha(&[
        "cards",
        "add",
        "--config",
        &g.cfg(),
        "--player",
        "甲",
        "--card",
        "red",
        "--clause",
        "12、其他（3）导演认为违规的其他行为",
        "--by",
        "导演",
        "--at",
        "2026-03-02 12:00",
    ]);
    assert_eq!(code, 0, "{err}");
    let st: serde_json::Value = serde_json::from_str(&state(&g, "json")).unwrap();
    assert_eq!(st["state"]["winner"], "Guests", "{st}");
    let jia = st["state"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "甲")
        .unwrap();
    assert_eq!(jia["out_cause"], "红牌");
    let kinds: Vec<&str> = st["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, vec!["night", "night", "red-card"]);
}
