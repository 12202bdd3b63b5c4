//! Integration tests: the night engine through the `bansha` binary — `night` (text, json,
//! bbcode, bad input, prompts), the timeline in the store (re-resolving marks later nights
//! stale), `state` (and `--at`), `tally --confirm`, `check-rules`. The rule set is the real
//! `rules/075-zhifou.toml`; expected values are worked out by hand from the rule post.

use std::path::{Path, PathBuf};

use bansha::model::PagePost;

use crate::common::{NightGame, SEATS_075, bansha, state_player};

const BASE: &str = "http://127.0.0.1:18080/";

const SEATS: &[(&str, &str)] = SEATS_075;

fn game(name: &str) -> NightGame {
    game_with_events(name, "")
}

fn game_with_events(name: &str, events: &str) -> NightGame {
    let days = format!(
        r#"[[day]]
number = 1
vote = 801
opens = "2026-03-02 09:00"
closes = "2026-03-03 21:00"
[[day]]
number = 2
vote = 802
opens = "2026-03-04 09:00"
closes = "2026-03-05 21:00"
{events}"#
    );
    NightGame::new(
        &format!("night-{name}"),
        "075-zhifou.toml",
        "[075]测试局",
        SEATS,
        100,
        &days,
    )
}

fn player<'a>(st: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    state_player(st, name)
}

const N0: &str = r#"
[[action]]
actor = "丘比"
skill = "丘比特之箭"
targets = ["民1", "民2"]
[[action]]
actor = "混血"
skill = "认亲"
targets = ["狼1"]
"#;

pub(crate) const N1: &str = r#"
[[action]]
actor = "狼2"
skill = "杀人"
targets = ["民3"]
[[action]]
actor = "预言"
skill = "预言"
targets = ["混血"]
"#;

#[test]
fn nights_are_stored_in_the_timeline_and_state_replays_them() {
    let g = game("timeline");
    let (code, out, err) = g.night(0, N0, "json");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["night"], 0);
    assert_eq!(j["deaths"], serde_json::json!([]));
    assert_eq!(j["winner"], serde_json::Value::Null);
    let fb = j["feedback"].as_array().unwrap();
    assert!(
        fb.iter()
            .any(|f| f["player"] == "混血" && f["text"].as_str().unwrap().contains("狼人阵营")),
        "{out}"
    );

    let (code, out, err) = g.night(1, N1, "json");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        j["deaths"],
        serde_json::json!([{"player": "民3", "cause": "指杀", "via": null, "step": "指杀结算", "clause": j["deaths"][0]["clause"]}])
    );
    assert!(
        j["deaths"][0]["clause"]
            .as_str()
            .unwrap()
            .contains("d. 被指杀的角色出局")
    );
    let fb = j["feedback"].as_array().unwrap();
    let witch = fb.iter().find(|f| f["player"] == "女巫").unwrap();
    assert_eq!(witch["text"], "<通灵>：今晚被指杀的角色：民3。");
    let seer = fb.iter().find(|f| f["player"] == "预言").unwrap();
    assert_eq!(seer["text"], "<预言>：混血 —— <非村民阵营>");
    assert_eq!(j["announcements"][0], "昨夜出局：民3");

    let st = g.state_json(None);
    assert_eq!(player(&st, "民3")["alive"], false);
    assert_eq!(player(&st, "民3")["out"]["cause"], "指杀");
    assert_eq!(player(&st, "丘比")["camp"], "村民阵营");
    assert_eq!(player(&st, "混血")["camp"], "狼人阵营");
    assert_eq!(st["links"][0]["members"], serde_json::json!(["民1", "民2"]));
    let tl: Vec<(String, bool)> = st["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["phase"].as_str().unwrap().to_string(),
                e["stale"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        tl,
        vec![("开局（第0夜）".into(), false), ("第1夜".into(), false)]
    );

    // As of day 2 opening minus a minute, night 1's result is not yet in.
    let before = g.state_json(Some("2026-03-04 08:59"));
    assert_eq!(player(&before, "民3")["alive"], true);
    assert_eq!(player(&before, "丘比")["camp"], "村民阵营");
    let after = g.state_json(Some("2026-03-04 09:00"));
    assert_eq!(player(&after, "民3")["alive"], false);

    // Re-resolving 开局 replaces it and marks night 1 stale.
    let n0b = N0.replace("[\"民1\", \"民2\"]", "[\"民1\", \"狼1\"]");
    let (code, out, err) = g.night(0, &n0b, "text");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("之后已结算的 第1夜 已过期"), "{out}");
    let st = g.state_json(None);
    assert_eq!(player(&st, "丘比")["camp"], "黑情侣阵营");
    assert_eq!(st["timeline"][1]["stale"], true);
    // The stale night still replays from its stored actions (狼2's kill does not depend on 开局).
    assert_eq!(player(&st, "民3")["alive"], false);

    // The grimoire as text and the public BBCode.
    let cfg = g.cfg();
    let (code, text, _) = bansha(&["state", "--config", &cfg]);
    assert_eq!(code, 0);
    assert!(text.contains("第1夜（已过期，需重新结算）"), "{text}");
    assert!(text.contains("情侣：民1—狼1（丘比）"), "{text}");
    let (code, pub_bb, _) = bansha(&["state", "--config", &cfg, "--format", "bbcode"]);
    assert_eq!(code, 0);
    assert!(pub_bb.contains("已出局（按出局顺序）：民3"), "{pub_bb}");
    assert!(
        !pub_bb.contains("狼人") && !pub_bb.contains("阵营"),
        "public BBCode leaks roles: {pub_bb}"
    );
}

/// Regression (issue 25): `night --format bbcode` printed the 公示 and the private messages
/// (致 X：…) in one stream divided by a line; pasting it whole revealed roles. The standard
/// output is now the public 公示 alone; the private blocks go to `--private-out FILE`.
#[test]
fn bbcode_is_the_public_announcement_alone_and_the_private_blocks_a_file_of_their_own() {
    let g = game("bbcode");
    assert_eq!(g.night(0, N0, "text").0, 0);
    let actions = g.file("n1.toml", N1);
    let private = g.dir.join("private.txt");
    let (code, out, err) = bansha(&[
        "night",
        "--config",
        &g.cfg(),
        "--night",
        "1",
        "--actions",
        &actions,
        "--format",
        "bbcode",
        "--private-out",
        &private.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("[b]第2天公示[/b]\n前一天出局角色（按出局顺序）：民3\n遗言：\n民3：（遗言）\n当日警长：无\n"), "{out}");
    assert!(!out.contains("致 ") && !out.contains("私信"), "{out}");
    assert!(!out.contains("预言") && !out.contains("女巫"), "{out}");
    let p = std::fs::read_to_string(&private).unwrap();
    assert!(
        p.contains("[b]致 预言[/b]\n<预言>：混血 —— <非村民阵营>\n"),
        "{p}"
    );
    assert!(
        p.contains("[b]致 女巫[/b]\n<通灵>：今晚被指杀的角色：民3。\n"),
        "{p}"
    );
    assert!(p.contains("[b]致 民3[/b]\n你已出局（指杀）。\n"), "{p}");
    assert!(err.contains("私信反馈已写入"), "{err}");
    // Without --private-out the director is told where the messages are; none is printed.
    let (code, out, err) = g.night(1, N1, "bbcode");
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("致 "), "{out}");
    assert!(err.contains("--private-out"), "{err}");
}

#[test]
fn an_invalid_action_is_rejected_with_exit_2_naming_it_and_nothing_is_stored() {
    let g = game("invalid");
    assert_eq!(g.night(0, N0, "text").0, 0);
    let bad = "[[action]]\nactor = \"民1\"\nskill = \"预言\"\ntargets = [\"狼1\"]\n";
    let (code, _, err) = g.night(1, bad, "text");
    assert_eq!(code, 2);
    assert!(
        err.contains("n1.toml")
            && err.contains("action[1] (民1 <预言> → 狼1)")
            && err.contains("没有技能<预言>"),
        "{err}"
    );
    let st = g.state_json(None);
    assert_eq!(st["timeline"].as_array().unwrap().len(), 1);
    // An unknown key in the actions file names the file.
    let (code, _, err) = g.night(1, "[[action]]\nactor = \"狼1\"\nskil = \"杀人\"\n", "text");
    assert_eq!(code, 2);
    assert!(err.contains("n1.toml") && err.contains("skil"), "{err}");
}

#[test]
fn a_hunter_going_out_without_an_answer_stops_with_exit_3_then_resumes_with_it() {
    let g = game("prompt");
    assert_eq!(g.night(0, N0, "text").0, 0);
    let kill = "[[action]]\nactor = \"狼1\"\nskill = \"杀人\"\ntargets = [\"猎人\"]\n";
    let (code, out, err) = g.night(1, kill, "text");
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains("猎人 出局（指杀），可发动<最后一枪>"), "{out}");
    assert!(err.contains("这次没有保存任何结果"), "{err}");
    assert_eq!(g.state_json(None)["timeline"].as_array().unwrap().len(), 1);
    let (code, out, _) = g.night(1, kill, "json");
    assert_eq!(code, 3);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["need_input"]["player"], "猎人");
    assert_eq!(j["need_input"]["skill"], "最后一枪");
    let answered =
        format!("{kill}[[action]]\nactor = \"猎人\"\nskill = \"最后一枪\"\ntargets = [\"狼2\"]\n");
    let (code, out, err) = g.night(1, &answered, "json");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let deaths: Vec<(&str, &str)> = j["deaths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["player"].as_str().unwrap(), d["cause"].as_str().unwrap()))
        .collect();
    assert_eq!(deaths, vec![("猎人", "指杀"), ("狼2", "最后一枪")]);
}

#[test]
fn a_night_needs_the_nights_before_it() {
    let g = game("order");
    let (code, _, err) = g.night(1, N1, "text");
    assert_eq!(code, 2);
    assert!(err.contains("开局（第0夜）还没有结算结果"), "{err}");
}

fn post(floor: u32, pid: u64, author: &str, uid: u64, time: &str, text: &str) -> PagePost {
    crate::common::page_post(floor, pid, author, uid, time, text)
}

fn store_thread(db: &Path, tid: u64, posts: Vec<PagePost>) {
    let source = format!("{BASE}forum.php?mod=viewthread&tid={tid}");
    crate::common::store_one_page(db, BASE, tid, posts, &source);
}

/// Day 2's 投票帖: six ballots for `target`, one for 民1.
fn day2_votes(g: &NightGame, target: &str) {
    let mut posts = vec![post(1, 900, "导演", 1, "2026-03-04 09:00", "投票帖")];
    let voters = ["预言", "女巫", "村长", "医生", "民1", "民2"];
    for (i, v) in voters.iter().enumerate() {
        let uid = 100 + SEATS.iter().position(|(n, _)| n == v).unwrap() as u64;
        posts.push(post(
            2 + i as u32,
            901 + i as u64,
            v,
            uid,
            "2026-03-04 12:00",
            &format!("投票对象：{target}\n投票理由：查杀"),
        ));
    }
    posts.push(post(
        9,
        920,
        "狼1",
        100,
        "2026-03-04 13:00",
        "投票对象：民1\n投票理由：乱说",
    ));
    // 民3 went out on night 1 (stored in the timeline, no [[event]] for it).
    posts.push(post(
        10,
        921,
        "民3",
        109,
        "2026-03-04 13:30",
        "投票对象：狼1\n投票理由：我还想投",
    ));
    store_thread(&g.dir.join("game.sqlite"), 802, posts);
}

#[test]
fn tally_confirm_puts_the_days_outcome_through_the_engine() {
    let g = game("confirm");
    assert_eq!(g.night(0, N0, "text").0, 0);
    assert_eq!(g.night(1, N1, "text").0, 0);
    day2_votes(&g, "民1");
    let cfg = g.cfg();
    // The tally knows from the timeline that 民3 is out since night 1.
    let (code, out, err) = bansha(&[
        "tally",
        "--config",
        &cfg,
        "--day",
        "2",
        "--at",
        "2026-03-05 21:00",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let t: serde_json::Value = serde_json::from_str(&out).unwrap();
    let b = t["ballots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["voter"] == "民3")
        .unwrap();
    assert_eq!(b["valid"], false, "{b}");
    let j = g.tally_json(2, "2026-03-05 21:00", &["--confirm"]);
    assert_eq!(j["day"], 2);
    let deaths: Vec<(&str, &str)> = j["deaths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["player"].as_str().unwrap(), d["cause"].as_str().unwrap()))
        .collect();
    // 民1's lover 民2 follows by 殉情.
    assert_eq!(deaths, vec![("民1", "投票"), ("民2", "殉情")]);
    let st = g.state_json(None);
    assert_eq!(player(&st, "民2")["out"]["cause"], "殉情");
    let phases: Vec<&str> = st["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases, vec!["开局（第0夜）", "第1夜", "第2天"]);
    // Night 2 now starts from day 2's outcome: 民2 cannot be targeted.
    let (code, _, err) = g.night(
        2,
        "[[action]]\nactor = \"狼1\"\nskill = \"杀人\"\ntargets = [\"民2\"]\n",
        "text",
    );
    assert_eq!(code, 2);
    assert!(err.contains("目标 民2 已出局"), "{err}");
}

/// Regression (issue 25): `tally --confirm` was accepted in the middle of a day (the interim
/// leader went out), and confirming an unchanged day again marked every later phase stale.
#[test]
fn confirm_is_refused_before_close_and_an_identical_reconfirm_changes_nothing() {
    let g = game("confirm-order");
    assert_eq!(g.night(0, N0, "text").0, 0);
    assert_eq!(g.night(1, N1, "text").0, 0);
    day2_votes(&g, "民1");
    let cfg = g.cfg();
    let confirm = |at: &str| {
        bansha(&[
            "tally",
            "--config",
            &cfg,
            "--day",
            "2",
            "--at",
            at,
            "--confirm",
            "--format",
            "json",
        ])
    };
    let (code, out, err) = confirm("2026-03-05 12:00");
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("尚未关门") && err.contains("第2天"), "{err}");
    assert_eq!(g.state_json(None)["timeline"].as_array().unwrap().len(), 2);
    let (code, _, err) = confirm("2026-03-05 21:00");
    assert_eq!(code, 0, "{err}");
    assert_eq!(g.night(2, "", "text").0, 0);
    // The same outcome again: nothing stored, night 2 stays fresh.
    let (code, out, err) = confirm("2026-03-05 21:30");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(j["stale"].as_array().is_none_or(|s| s.is_empty()), "{j}");
    let st = g.state_json(None);
    let stale: Vec<bool> = st["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["stale"].as_bool().unwrap())
        .collect();
    assert_eq!(stale, vec![false; 4], "{st}");
}

/// Regression: `tally --confirm` cited the unique-top clause (「票数最高的角色如只有一个，则其出局」)
/// for an out decided by the 警长 tie rule. 警长 预言 (two votes) and 医生 vote 狼1, three others
/// 狼2: 3 to 3, no 替罪羊, so 「若警长投票有效，则警长投票对象出局」 puts 狼1 out, and says so.
#[test]
fn tally_confirm_cites_the_sheriff_tie_break_clause_not_the_unique_top_one() {
    let g = game_with_events(
        "confirm-tie",
        "[[event]]\nkind = \"sheriff\"\nplayer = \"预言\"\nat = \"2026-03-03 21:00\"\n",
    );
    assert_eq!(g.night(0, N0, "text").0, 0);
    assert_eq!(g.night(1, N1, "text").0, 0);
    let mut posts = vec![post(1, 900, "导演", 1, "2026-03-04 09:00", "投票帖")];
    let ballots = [
        ("预言", "狼1"),
        ("医生", "狼1"),
        ("女巫", "狼2"),
        ("村长", "狼2"),
        ("猎人", "狼2"),
    ];
    for (i, (v, target)) in ballots.iter().enumerate() {
        let uid = 100 + SEATS.iter().position(|(n, _)| n == v).unwrap() as u64;
        posts.push(post(
            2 + i as u32,
            901 + i as u64,
            v,
            uid,
            "2026-03-04 12:00",
            &format!("投票对象：{target}\n投票理由：查杀"),
        ));
    }
    store_thread(&g.dir.join("game.sqlite"), 802, posts);
    let j = g.tally_json(2, "2026-03-05 21:00", &["--confirm"]);
    let d = &j["deaths"][0];
    assert_eq!(
        (d["player"].as_str(), d["cause"].as_str()),
        (Some("狼1"), Some("投票")),
        "{j}"
    );
    assert_eq!(
        d["clause"], "2、若警长投票有效，则警长投票对象出局；",
        "{j}"
    );
}

#[test]
fn tally_confirm_of_the_hunter_asks_for_his_shot() {
    let g = game("confirm-hunter");
    assert_eq!(g.night(0, N0, "text").0, 0);
    assert_eq!(g.night(1, N1, "text").0, 0);
    day2_votes(&g, "猎人");
    let cfg = g.cfg();
    let args = [
        "tally",
        "--config",
        &cfg,
        "--day",
        "2",
        "--at",
        "2026-03-05 21:00",
        "--confirm",
    ];
    let (code, out, _) = bansha(&args);
    assert_eq!(code, 3);
    assert!(out.contains("<最后一枪>"), "{out}");
    let ans = g.file(
        "d2.toml",
        "[[action]]\nactor = \"猎人\"\nskill = \"最后一枪\"\ntargets = [\"狼1\"]\n",
    );
    let mut with = args.to_vec();
    with.extend(["--answers", &ans]);
    let (code, out, err) = bansha(&with);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("1. 猎人（投票）") && out.contains("2. 狼1（最后一枪，因 猎人）"),
        "{out}"
    );
}

#[test]
fn check_rules_lists_every_role_with_its_supported_skills() {
    let rules = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules/075-zhifou.toml");
    let (code, out, err) = bansha(&["check-rules", &rules.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    for line in [
        "狼人（狼人阵营；又名黑狼）：杀人［night，团队；kill］",
        "女巫（村民阵营）：通灵［night，强制；see-kills］、救药［night，1次；save］、毒药［night，1次；poison］",
        "村长（村民阵营）：长寿之命［passive，强制；first-attack-immunity+strip-on-out］",
        "丘比特（开局决定）：丘比特之箭［start，1次，强制；link］",
        "混血儿（开局决定；又名混血）：认亲［start，1次，强制；follow-camp］",
        "猎人（村民阵营）：最后一枪［on-out，1次；shoot］",
        "情侣（非身份）：殉情［on-out，强制；die-with-link］",
        "警长（非身份）：殉职［on-out，强制；pass-badge］",
    ] {
        assert!(out.contains(line), "missing `{line}` in:\n{out}");
    }
    assert!(!out.contains('！'), "a skill without behaviour:\n{out}");
}

#[test]
fn the_directors_out_and_lose_events_go_through_the_death_path() {
    // 村长 out by vote at day 1's 关门 (the contract's English cause), the wolves surrender.
    let g = game_with_events(
        "events",
        r#"
[[event]]
kind = "out"
player = "村长"
at = "2026-03-03 21:00"
cause = "vote"
[[event]]
kind = "lose"
camp = "狼人阵营"
at = "2026-03-03 21:00"
"#,
    );
    // Cupid links 狼1 and 民1: they elope into 黑情侣阵营, so the game goes on after the surrender.
    let n0 = N0.replace("[\"民1\", \"民2\"]", "[\"民1\", \"狼1\"]");
    assert_eq!(g.night(0, &n0, "text").0, 0);
    let st = g.state_json(None);
    assert_eq!(player(&st, "村长")["out"]["cause"], "投票");
    let seer = player(&st, "预言")["skills"].as_array().unwrap().clone();
    assert_eq!(seer[0]["name"], "预言");
    assert_eq!(
        seer[0]["lost"], true,
        "村长 out by vote: the seer loses 预言"
    );
    assert_eq!(st["camps_lost"], serde_json::json!(["狼人阵营"]));
    assert_eq!(st["winner"], serde_json::Value::Null);
    // 寡妇刀: the lovers gain 杀人.
    let kill = |n: &str| {
        player(&st, n)["skills"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name"] == "杀人" && s["lost"] == false)
    };
    assert!(kill("民1") && kill("狼1") && !kill("狼2"));
    // Night 1: the wolves' kill is bad input now, and so is the seer's check.
    let (code, _, err) = g.night(1, N1, "text");
    assert_eq!(code, 2);
    assert!(
        err.contains("狼2 已失去技能<杀人>") && err.contains("预言 已失去技能<预言>"),
        "{err}"
    );
}

/// 075 空救: the engine counts 「一名角色累计两次空救」 on the protected player (the rule file's
/// reading, labelled 解读); `night --format text` shows that reading on the nights it applies,
/// and not on a night the protected player was attacked.
#[test]
fn the_wasted_protect_reading_is_shown_in_the_notes_when_it_applies() {
    let g = game("wasted-reading");
    assert_eq!(g.night(0, N0, "text").0, 0);
    let reading = "读法（规则帖未明言，本规则文件采用）：解读：「一名角色累计两次空救」的「一名角色」是被<救治>的角色";
    // Night 1: the doctor protects 民3, the wolves attack 民3: no 空救, no reading.
    let n1 = "[[action]]\nactor = \"医生\"\nskill = \"救治\"\ntargets = [\"民3\"]\n[[action]]\nactor = \"狼1\"\nskill = \"杀人\"\ntargets = [\"民3\"]\n";
    let (code, out, err) = g.night(1, n1, "text");
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains(reading), "{out}");
    // Night 2: nobody attacks 民3: one 空救 on 民3, with the reading.
    let n2 = "[[action]]\nactor = \"医生\"\nskill = \"救治\"\ntargets = [\"民3\"]\n[[action]]\nactor = \"狼1\"\nskill = \"杀人\"\ntargets = [\"村长\"]\n";
    let (code, out, err) = g.night(2, n2, "text");
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("民3 没有成为指杀目标，民3 累计空救（1）"),
        "{out}"
    );
    assert!(out.contains("民3 的空救按本规则文件的读法计"), "{out}");
    assert!(out.contains(reading), "{out}");
    let st = g.state_json(None);
    assert_eq!(player(&st, "民3")["counters"]["空救"], 1, "{st}");
    assert!(
        player(&st, "医生")["counters"].get("空救").is_none(),
        "{st}"
    );
}

/// Issue 9 "Done when": every skill of the 075 and 灵族杀 rule posts (each line that opens with
/// a skill header, `名称<强制> —— …` or `名称<1>：…`) is named by `bansha check-rules`, as a
/// skill the engine supports for a role, a link or the badge, or as a parameter of another
/// declaration (恋爱, 私奔, 寡妇刀, 带队); 075's 竞岗 is the tally's day-1 election.
#[test]
fn check_rules_names_every_skill_of_the_075_and_lingzu_posts() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let head = regex::Regex::new(r"^([\p{Han}]{2,6})\s*(?:(<[^>]*>)\s*(?:——|:|：)|——)").unwrap();
    for set in ["075-zhifou", "lingzu"] {
        let post = std::fs::read_to_string(
            root.join(bansha::rules::POSTS_DIR)
                .join(format!("{set}.txt")),
        )
        .unwrap();
        let rules = root.join(format!("rules/{set}.toml"));
        let (code, out, err) = bansha(&["check-rules", &rules.display().to_string()]);
        assert_eq!(code, 0, "{err}");
        let mut names: Vec<String> = post
            .lines()
            .filter_map(|l| head.captures(l.trim()).map(|c| c[1].to_string()))
            .collect();
        names.dedup();
        assert!(names.len() >= 12, "{set}: {names:?}");
        for n in &names {
            let listed = out.contains(n.as_str())
                || (n == "竞岗" && out.contains("警长竞选〔vote.election_days"));
            assert!(
                listed,
                "{set}: skill {n} is not named by check-rules:\n{out}"
            );
        }
        assert!(!out.contains("无行为！"), "{out}");
    }
}
