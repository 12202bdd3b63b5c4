//! Integration tests: 皇权争霸 through the `bansha` binary with the real
//! `rules/huangquan.toml` — 开局 <征召>/<支持>, a night written with the post's older names
//! (炎盾, 守护, 预言) whose feedback comes out in the order of the timed checkpoints (Q2), a
//! night whose 判负 turns a 流民 独立 and stops for his mandatory <支持>/<起义>, the state
//! after it, `check-rules` listing every role, and day votes confirmed with `tally --confirm`
//! that spend <统领> and <避险> (the rule file's `day_checks`). Expected values are worked
//! out by hand from the rule post (rules/posts/huangquan.txt).

use crate::common::{NightGame, bansha, state_player};

const SEATS: &[(&str, &str)] = &[
    ("将", "大将军"),
    ("太子", "东宫太子"),
    ("仙", "南华老仙"),
    ("民1", "乱世流民"),
    ("民2", "乱世流民"),
    ("民3", "乱世流民"),
    ("民4", "乱世流民"),
    ("民5", "乱世流民"),
    ("民6", "乱世流民"),
    ("民7", "乱世流民"),
    ("民8", "乱世流民"),
    ("民9", "乱世流民"),
    ("民10", "乱世流民"),
    ("民11", "乱世流民"),
];

fn game(name: &str) -> NightGame {
    NightGame::new(
        &format!("huangquan-{name}"),
        "huangquan.toml",
        "皇权争霸测试局",
        SEATS,
        300,
        "",
    )
}

/// 开局: both leaders <征召> four 流民 each (the alias 征召 names each one's own skill),
/// three 流民 <支持> one leader each.
const N0: &str = r#"
[[action]]
actor = "将"
skill = "征召"
targets = ["民1", "民2", "民3", "民4"]
[[action]]
actor = "太子"
skill = "征召"
targets = ["民5", "民6", "民7", "民8"]
[[action]]
actor = "民9"
skill = "支持"
targets = ["将"]
[[action]]
actor = "民10"
skill = "支持"
targets = ["太子"]
[[action]]
actor = "民11"
skill = "支持"
targets = ["仙"]
"#;

/// Night 1 in the post's older names: 赤狼 <炎盾> on 民10, 守护 <守护> on him too (so the
/// guard is burned), the 霸道 group's kill on him (blocked by the shield), 预言 <预言> on 民1.
const N1: &str = r#"
[[action]]
actor = "民3"
skill = "炎盾"
targets = ["民10"]
[[action]]
actor = "民7"
skill = "守护"
targets = ["民10"]
[[action]]
actor = "民1"
skill = "杀人"
targets = ["民10"]
[[action]]
actor = "民5"
skill = "预言"
targets = ["民1"]
"#;

/// Night 2: two attacks on 南华老仙 — the first spends his <避险>, the second puts him out;
/// 人道 is then the unique smallest camp below 3 and loses, and its 流民 民11 turns 独立.
const N2: &str = r#"
[[action]]
actor = "民1"
skill = "杀人"
targets = ["仙"]
[[action]]
actor = "将"
skill = "冲锋"
targets = ["仙"]
"#;

fn texts(j: &serde_json::Value, key: &str, player: &str) -> Vec<String> {
    j[key]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["player"] == player)
        .map(|f| f["text"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn huangquan_start_recruits_in_the_combined_order_and_supports() {
    let g = game("start");
    let (code, out, err) = g.night(0, N0, "json");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    // 「大将军可随时知道四个手下的名单但是不知道对应的种类」
    assert_eq!(
        texts(&j, "feedback", "将"),
        ["<征召（霸道）>：你的新手下：民1、民2、民3、民4。"]
    );
    assert_eq!(texts(&j, "feedback", "民6"), ["你被征召，成为妙手太医。"]);
    let st = g.state_json(None);
    // 「军师/密探/战将/太医/精锐/侍卫/祭司/锦衣」, each leader's list in its order
    for (p, role, camp) in [
        ("民1", "妙算军师", "霸道阵营"),
        ("民2", "摧坚战将", "霸道阵营"),
        ("民3", "奇袭精锐", "霸道阵营"),
        ("民4", "巫蛊祭司", "霸道阵营"),
        ("民5", "大内密探", "王道阵营"),
        ("民6", "妙手太医", "王道阵营"),
        ("民7", "御前侍卫", "王道阵营"),
        ("民8", "锦衣卫", "王道阵营"),
        ("民9", "乱世流民", "霸道阵营"),
        ("民10", "乱世流民", "王道阵营"),
        ("民11", "乱世流民", "人道阵营"),
    ] {
        assert_eq!(state_player(&st, p)["role"], role, "{p}");
        assert_eq!(state_player(&st, p)["camp"], camp, "{p}");
    }
}

#[test]
fn huangquan_feedback_comes_out_in_checkpoint_order_with_old_names() {
    let g = game("checkpoints");
    assert_eq!(g.night(0, N0, "text").0, 0);
    let (code, out, err) = g.night(1, N1, "json");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["deaths"], serde_json::json!([]));
    // E3: the guard and the 霸道 specials are told; not the 霸道 流民 民9
    assert_eq!(texts(&j, "feedback", "民7"), ["[民7被烧伤了]"]);
    assert_eq!(texts(&j, "feedback", "将"), ["[民7被烧伤了]"]);
    assert!(texts(&j, "feedback", "民9").is_empty(), "{out}");
    assert_eq!(
        texts(&j, "feedback", "民5"),
        ["<验人>：民1 的阵营是 霸道阵营"]
    );
    // Q2: the burned guard at 30, 通灵 (「告知女巫刀法」) and 验人 at 45
    let rel: Vec<(String, String)> = j["releases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["at"].as_str().unwrap_or("").to_string(),
                f["player"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let at = |p: &str| rel.iter().find(|(_, q)| q == p).map(|(a, _)| a.clone());
    assert_eq!(at("民7").as_deref(), Some("关门后30分"), "{rel:?}");
    assert_eq!(at("民6").as_deref(), Some("关门后45分"), "{rel:?}");
    assert_eq!(at("民5").as_deref(), Some("关门后45分"), "{rel:?}");
    let pos = |p: &str| rel.iter().position(|(_, q)| q == p).unwrap();
    assert!(
        pos("民7") < pos("民6") && pos("民6") < pos("民5"),
        "{rel:?}"
    );
    // the director's text lists the releases under their checkpoints, in order
    let (code, text, err) = g.night(1, N1, "text");
    assert_eq!(code, 0, "{err}");
    let list = text.split("按时间点发出：").nth(1).expect(&text);
    let (i30, i45) = (
        list.find("[关门后30分]").unwrap(),
        list.find("[关门后45分]").unwrap(),
    );
    assert!(i30 < i45, "{text}");
    assert!(list[i30..i45].contains("民7：[民7被烧伤了]"), "{text}");
    assert!(
        list[i45..].contains("民6：<通灵>：今晚被指杀的角色：民10。"),
        "{text}"
    );
    let st = g.state_json(None);
    assert_eq!(
        state_player(&st, "民7")["statuses"][0]["name"],
        "烧伤",
        "{st}"
    );
}

#[test]
fn huangquan_lost_camp_turns_its_pool_independent_and_asks_for_support() {
    let g = game("independent");
    assert_eq!(g.night(0, N0, "text").0, 0);
    assert_eq!(g.night(1, N1, "text").0, 0);
    // 民11 is 独立 at the night's end and gave nothing: the night stops for the director
    let (code, out, err) = g.night(2, N2, "text");
    assert_eq!(code, 3, "{out}{err}");
    let both = format!("{out}{err}");
    assert!(both.contains("民11") && both.contains("支持"), "{both}");
    assert!(both.contains("这次没有保存任何结果"), "{both}");
    assert_eq!(state_player(&g.state_json(None), "仙")["alive"], true);

    let answered =
        format!("{N2}[[action]]\nactor = \"民11\"\nskill = \"支持\"\ntargets = [\"太子\"]\n");
    let (code, out, err) = g.night(2, &answered, "json");
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["deaths"][0]["player"], "仙");
    assert_eq!(j["deaths"].as_array().unwrap().len(), 1, "{out}");
    assert_eq!(j["camps_lost"], serde_json::json!(["人道阵营"]));
    assert_eq!(
        texts(&j, "feedback", "仙")[0],
        "你即将出局，自动消耗一次<避险>，免疫此次出局。\n你已出局（指杀）。"
    );
    assert!(
        j["announcements"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "人道阵营判负，所有角色的吹笛状态解除"),
        "{out}"
    );
    let st = g.state_json(None);
    assert_eq!(state_player(&st, "民11")["camp"], "王道阵营");
    assert_eq!(st["camps_lost"], serde_json::json!(["人道阵营"]));
    assert_eq!(st["game_over"], false);
}

#[test]
fn huangquan_check_rules_lists_every_role_and_alias() {
    let rules = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules/huangquan.toml");
    let (code, out, err) = bansha(&["check-rules", &rules.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    for line in [
        "大将军（霸道阵营；又名狼王）：征召（霸道）［start+night，又名征召；recruit］、冲锋［night；kill］、统领［passive，强制；attack-immunity+first-out-immunity］、激励［night，3次；refresh-limited］",
        "东宫太子（王道阵营；又名长老）：",
        "南华老仙（人道阵营；又名吹笛）：普度［night，又名吹笛；pipe］、妖术［night，又名魔音；force］、避险［passive，1次，强制；dodge］",
        "奇袭精锐（霸道阵营；又名赤狼）：劫火［night，又名炎盾；burn］",
        "摧坚战将（霸道阵营；又名猎狼）：杀人［night，团队；kill］、摧坚［night，1次，又名捕猎；attacks-as-poison］",
        "乱世流民（开局决定）：支持［start，强制；follow-camp］",
        "起义［night；become-role］",
        "起义军（起义军阵营）：杀人［night，团队；kill］、集群［passive，强制；tally］",
        "警长（非身份）：殉职［on-out，强制；pass-badge］",
        "人道阵营 判负时：特殊身份全员出局，乱世流民变为独立阵营，吹笛状态解除",
        "起义军阵营 判负时：公示「起义军阵营判负」",
        "独立阵营（各自判定）：出局、或游戏结束时仍属于该阵营，个人判负",
        "白天出局前：first-out-immunity+dodge（红牌除外）",
    ] {
        assert!(out.contains(line), "missing `{line}` in:\n{out}");
    }
    // every role of the post, none without behaviour
    for role in [
        "妙算军师",
        "巫蛊祭司",
        "大内密探",
        "妙手太医",
        "御前侍卫",
        "锦衣卫",
    ] {
        assert!(
            out.contains(&format!("  {role}（")),
            "{role} missing:\n{out}"
        );
    }
    assert!(!out.contains('！'), "a skill without behaviour:\n{out}");
}

/// A director's `out` event is a fact: the state keeps it even for 南华老仙, whose <避险>
/// would have stopped the same out put through the engine as a result still to settle.
#[test]
fn huangquan_recorded_out_event_is_not_dodged() {
    let g = NightGame::new(
        "huangquan-event",
        "huangquan.toml",
        "皇权争霸测试局",
        SEATS,
        300,
        r#"[[day]]
number = 1
vote = 901
opens = "2026-03-02 09:00"
closes = "2026-03-03 21:00"
[[event]]
kind = "out"
player = "仙"
at = "2026-03-03 21:00"
cause = "vote"
"#,
    );
    assert_eq!(g.night(0, N0, "text").0, 0);
    let st = g.state_json(None);
    assert_eq!(state_player(&st, "仙")["alive"], false, "{st}");
    assert_eq!(state_player(&st, "仙")["out"]["cause"], "投票");
}

const BASE: &str = "http://127.0.0.1:18080/";

/// Days 2 and 3 of a 皇权争霸 game, each with its 投票帖 (902, 903).
const VOTE_DAYS: &str = r#"[[day]]
number = 1
vote = 901
opens = "2026-03-02 09:00"
closes = "2026-03-03 21:00"
[[day]]
number = 2
vote = 902
opens = "2026-03-04 09:00"
closes = "2026-03-05 21:00"
[[day]]
number = 3
vote = 903
opens = "2026-03-06 09:00"
closes = "2026-03-07 21:00"
"#;

/// Store day `day`'s 投票帖 `tid`: one ballot for `target` from each of `voters` at noon.
fn store_votes(g: &NightGame, tid: u64, date: &str, voters: &[&str], target: &str) {
    g.store_votes(BASE, (SEATS, 300), (tid, date), voters, target);
}

/// `tally --day N --at <closes> --confirm --format json`, which must succeed.
fn confirm(g: &NightGame, day: u32, at: &str) -> serde_json::Value {
    let cfg = g.cfg();
    let day = day.to_string();
    let (code, out, err) = bansha(&[
        "tally",
        "--config",
        &cfg,
        "--day",
        &day,
        "--at",
        at,
        "--confirm",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn deaths(j: &serde_json::Value) -> Vec<(String, String)> {
    j["deaths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["player"].as_str().unwrap().to_string(),
                d["cause"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const VOTERS: &[&str] = &["民1", "民2", "民3", "民4", "民5", "民6", "民7"];

/// 「统领【强制】—— 大将军免疫指杀，并且免疫第一次出局。」 through `tally --confirm`: day 2's
/// vote puts 大将军 out, <统领> spends its first-out immunity (he is told) and he stays in;
/// he acts on night 2; day 3's vote puts him out for good.
#[test]
fn huangquan_vote_out_through_tally_confirm_spends_tongling() {
    let g = NightGame::new(
        "huangquan-tally-tongling",
        "huangquan.toml",
        "皇权争霸测试局",
        SEATS,
        300,
        VOTE_DAYS,
    );
    assert_eq!(g.night(0, N0, "text").0, 0);
    assert_eq!(g.night(1, N1, "text").0, 0);
    store_votes(&g, 902, "2026-03-04", VOTERS, "将");
    let j = confirm(&g, 2, "2026-03-05 21:00");
    assert_eq!(j["day"], 2);
    assert!(deaths(&j).is_empty(), "{j}");
    assert_eq!(
        texts(&j, "feedback", "将"),
        ["你即将出局（投票），<统领>免疫了第一次出局。"],
        "{j}"
    );
    let st = g.state_json(None);
    let general = state_player(&st, "将");
    assert_eq!(general["alive"], true, "{st}");
    assert_eq!(general["counters"]["统领"], 1, "{st}");
    // night 2 starts from day 2's outcome: 大将军 still acts
    let (code, out, err) = g.night(
        2,
        "[[action]]\nactor = \"将\"\nskill = \"冲锋\"\ntargets = [\"民11\"]\n",
        "json",
    );
    assert_eq!(code, 0, "{err}");
    let n2: serde_json::Value = serde_json::from_str(&out).unwrap();
    let gone: Vec<String> = deaths(&n2).into_iter().map(|(p, _)| p).collect();
    let voters: Vec<&str> = VOTERS
        .iter()
        .copied()
        .filter(|v| !gone.iter().any(|g| g == v))
        .collect();
    // the immunity is for the first out only: day 3's vote puts him out
    store_votes(&g, 903, "2026-03-06", &voters, "将");
    let j = confirm(&g, 3, "2026-03-07 21:00");
    assert_eq!(deaths(&j), [("将".to_string(), "投票".to_string())], "{j}");
    let st = g.state_json(None);
    assert_eq!(state_player(&st, "将")["alive"], false, "{st}");
}

/// 「若南华老仙即将出局，南华老仙将收到通知，将自动消耗该技能一个次数以免疫此次出局」 (避险【1】)
/// through `tally --confirm`: day 2's vote on 南华老仙 spends his one <避险>, he is told and
/// stays in.
#[test]
fn huangquan_vote_out_through_tally_confirm_spends_bixian() {
    let g = NightGame::new(
        "huangquan-tally-bixian",
        "huangquan.toml",
        "皇权争霸测试局",
        SEATS,
        300,
        VOTE_DAYS,
    );
    assert_eq!(g.night(0, N0, "text").0, 0);
    assert_eq!(g.night(1, N1, "text").0, 0);
    store_votes(&g, 902, "2026-03-04", VOTERS, "仙");
    let j = confirm(&g, 2, "2026-03-05 21:00");
    assert!(deaths(&j).is_empty(), "{j}");
    assert_eq!(
        texts(&j, "feedback", "仙"),
        ["你即将出局，自动消耗一次<避险>，免疫此次出局。"],
        "{j}"
    );
    let st = g.state_json(None);
    let xian = state_player(&st, "仙");
    assert_eq!(xian["alive"], true, "{st}");
    let bixian = xian["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "避险")
        .unwrap();
    assert_eq!(bixian["uses_left"], 0, "{st}");
}

/// Regression (issue 25): 「皇权 —— 东宫太子投出的票可暗记当做1至X票计算，X为[当前存活手下数量+1]」
/// counted the 手下 among the config's dealt roles (all 乱世流民), not the four the engine
/// recruited at 开局, so a legal declared weight of 5 was refused and counted as 1. The tally
/// reads roles from the timeline.
#[test]
fn huangquan_declared_weight_counts_the_subordinates_recruited_at_the_start() {
    let events = format!(
        "{VOTE_DAYS}[[event]]\nkind = \"vote-weight\"\nday = 2\nplayer = \"太子\"\nweight = 5\n"
    );
    let g = NightGame::new(
        "huangquan-declared-weight",
        "huangquan.toml",
        "皇权争霸测试局",
        SEATS,
        300,
        &events,
    );
    assert_eq!(g.night(0, N0, "text").0, 0);
    store_votes(&g, 902, "2026-03-04", &["太子", "民1"], "将");
    let t = g.tally_json(2, "2026-03-05 21:00", &[]);
    let b = t["ballots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["voter"] == "太子")
        .unwrap()
        .clone();
    assert_eq!(b["valid"], true, "{t}");
    assert_eq!(b["weight"], 5.0, "{t}");
}
