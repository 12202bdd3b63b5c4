//! Integration tests: a 红牌 recorded in the card ledger is a fact the rest of bansha uses
//! (issue 10 "Where it runs"; issue 9). Through the `bansha` binary with the real rule files:
//! `cards add` records the card; `state` (text, JSON, BBCode), `tally`, `activity` and
//! `night` then see the player out (075) or in 挂机 (灵族杀), the lover following by 殉情,
//! the hunter without <最后一枪>, the 警长's badge drawn at random from the recorded seed,
//! a red reached by 3 黄 counting the same, and two reds in one camp losing it.
//! Expected values are worked out by hand from the rule posts:
//! - 075: 「红牌罚下出局的角色没有遗言权利，其情侣须触发<殉情>出局。红牌罚下出局的猎人或因情侣
//!   红牌罚下而<殉情>的猎人不可发动<最后一枪>。红牌罚下的警长<殉职>对象随机选择。」「白天结束时
//!   红牌罚下的出局结算在投票结算之后执行。」「累计三张“黄牌”合并为一张“红牌”。」「同一阵营的角色
//!   累计获得两张或以上红牌时，阵营判负。」
//! - 灵族杀: 「被红牌罚下的角色自动进入挂机状态。」「最后一枪<1>:当猎人并非因红牌罚下和<毒药>
//!   而出局后，……」

use std::path::{Path, PathBuf};

use bansha::model::PagePost;
use serde_json::Value;

use crate::common::{bansha, scratch_dir};

const BASE: &str = "http://127.0.0.1:18080/";

pub(crate) struct Game {
    dir: PathBuf,
}

impl Drop for Game {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

use crate::common::SEATS_075;

const SEATS_LINGZU: &[(&str, &str)] = &[
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

/// 开局: 丘比 links 民1 and 民2 (both 村民: no 私奔); 混血 认亲 狼1.
pub(crate) const N0: &str = r#"
[[action]]
actor = "丘比"
skill = "丘比特之箭"
targets = ["民1", "民2"]
[[action]]
actor = "混血"
skill = "认亲"
targets = ["狼1"]
"#;

impl Game {
    pub(crate) fn new(name: &str, rules: &str, seats: &[(&str, &str)], events: &str) -> Game {
        let dir = scratch_dir(&format!("redcard-{name}"));
        let rules = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rules);
        let mut cfg = format!(
            "[forum]\nbase_url = \"{BASE}\"\n[game]\nname = \"红牌测试局\"\nrules = \"{}\"\ndb = \"game.sqlite\"\ndirectors = [\"导演\"]\n",
            rules.display()
        );
        for d in 1..=3u32 {
            cfg.push_str(&format!(
                "[[day]]\nnumber = {d}\nvote = {}\ndiscussion = [{}]\nopens = \"2026-03-0{} 09:00\"\ncloses = \"2026-03-0{} 21:00\"\n",
                800 + d,
                700 + d,
                2 * d,
                2 * d + 1
            ));
        }
        for (i, (n, r)) in seats.iter().enumerate() {
            cfg.push_str(&format!(
                "[[player]]\nname = \"{n}\"\nuid = {}\nseat = {}\nrole = \"{r}\"\n",
                100 + i,
                i + 1
            ));
        }
        cfg.push_str(events);
        std::fs::write(dir.join("game.toml"), cfg).unwrap();
        Game { dir }
    }
    pub(crate) fn cfg(&self) -> String {
        self.dir.join("game.toml").display().to_string()
    }
    pub(crate) fn db(&self) -> PathBuf {
        self.dir.join("game.sqlite")
    }
    pub(crate) fn night(&self, n: u32, actions: &str) -> (i32, String, String) {
        let f = self.dir.join(format!("n{n}.toml"));
        std::fs::write(&f, actions).unwrap();
        bansha(&[
            "night",
            "--config",
            &self.cfg(),
            "--night",
            &n.to_string(),
            "--actions",
            &f.display().to_string(),
            "--format",
            "json",
        ])
    }
    pub(crate) fn card(&self, player: &str, card: &str, at: &str) {
        let (code, out, err) = bansha(&[
            "cards",
            "add",
            "--config",
            &self.cfg(),
            "--player",
            player,
            "--card",
            card,
            "--clause",
            "（测试）",
            "--by",
            "管理",
            "--at",
            at,
        ]);
        assert_eq!(code, 0, "{out}{err}");
    }
    pub(crate) fn state(&self, format: &str, at: Option<&str>) -> String {
        let cfg = self.cfg();
        let mut args = vec!["state", "--config", &cfg, "--format", format];
        if let Some(a) = at {
            args.extend(["--at", a]);
        }
        let (code, out, err) = bansha(&args);
        assert_eq!(code, 0, "{err}");
        out
    }
    pub(crate) fn state_json(&self, at: Option<&str>) -> Value {
        serde_json::from_str(&self.state("json", at)).unwrap()
    }
    pub(crate) fn json(&self, args: &[&str]) -> Value {
        let cfg = self.cfg();
        let mut v = vec![args[0], "--config", &cfg];
        v.extend(&args[1..]);
        v.extend(["--format", "json"]);
        let (code, out, err) = bansha(&v);
        assert_eq!(code, 0, "{args:?}: {err}");
        serde_json::from_str(&out).unwrap()
    }
}

pub(crate) fn player<'a>(st: &'a Value, name: &str) -> &'a Value {
    st["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {st}"))
}

pub(crate) fn post(
    floor: u32,
    pid: u64,
    author: &str,
    uid: u64,
    time: &str,
    text: &str,
) -> PagePost {
    crate::common::page_post(floor, pid, author, uid, time, text)
}

pub(crate) fn store_thread(db: &Path, tid: u64, posts: Vec<PagePost>) {
    let source = format!("{BASE}forum.php?mod=viewthread&tid={tid}");
    crate::common::store_one_page(db, BASE, tid, posts, &source);
}

pub(crate) fn uid(seats: &[(&str, &str)], name: &str) -> u64 {
    100 + seats.iter().position(|(n, _)| *n == name).unwrap() as u64
}

/// A day's 投票帖 (and an empty 讨论帖): each (voter, time, target) a ballot.
pub(crate) fn votes(g: &Game, seats: &[(&str, &str)], day: u32, ballots: &[(&str, &str, &str)]) {
    let opens = format!("2026-03-0{} 09:00", 2 * day);
    let mut posts = vec![post(1, 900 + 100 * day as u64, "导演", 1, &opens, "投票帖")];
    for (i, (v, t, target)) in ballots.iter().enumerate() {
        posts.push(post(
            2 + i as u32,
            901 + 100 * day as u64 + i as u64,
            v,
            uid(seats, v),
            t,
            &format!("投票对象：{target}\n投票理由：理由"),
        ));
    }
    store_thread(&g.db(), 800 + day as u64, posts);
    let disc = vec![post(1, 9000 + day as u64, "导演", 1, &opens, "讨论帖")];
    store_thread(&g.db(), 700 + day as u64, disc);
}

fn ballot<'a>(t: &'a Value, voter: &str) -> &'a Value {
    t["ballots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["voter"] == voter)
        .unwrap_or_else(|| panic!("no ballot of {voter} in {t}"))
}

/// 075: a red card in the middle of day 2 puts 民1 out at the card's time (cause 红牌), his
/// lover 民2 follows by 殉情; their ballots cast after it are void in the tally; the activity
/// report sees both out from then; `state` shows the ledger (text, JSON) and only what is
/// public in BBCode.
#[test]
fn a_red_card_puts_the_player_out_and_the_lover_follows_for_tally_activity_and_state() {
    let g = Game::new("075-midday", "rules/075-zhifou.toml", SEATS_075, "");
    assert_eq!(g.night(0, N0).0, 0);
    votes(
        &g,
        SEATS_075,
        2,
        &[
            ("民1", "2026-03-04 10:00", "狼1"),
            ("民2", "2026-03-04 12:00", "狼1"),
            ("预言", "2026-03-04 12:00", "狼2"),
        ],
    );
    // Before the card, nobody is out.
    let st = g.state_json(None);
    assert_eq!(player(&st, "民1")["alive"], true);
    g.card("民1", "red", "2026-03-04 11:00:00");

    let st = g.state_json(None);
    assert_eq!(player(&st, "民1")["out"]["cause"], "红牌", "{st}");
    assert_eq!(player(&st, "民2")["out"]["cause"], "殉情", "{st}");
    let c = &st["cards"]["players"][0];
    assert_eq!(c["name"], "民1");
    assert_eq!(
        (c["red"].as_u64(), c["red_carded"].as_bool()),
        (Some(1), Some(true))
    );
    assert_eq!(c["red_card_effect"], "出局");
    assert_eq!(c["red_carded_at"], "2026-03-04 11:00:00");
    // `--at` before the card: the ledger and the state as they stood.
    let before = g.state_json(Some("2026-03-04 10:30"));
    assert_eq!(player(&before, "民1")["alive"], true);
    assert!(before["cards"]["players"].as_array().unwrap().is_empty());

    let text = g.state("text", None);
    assert!(
        text.contains("民1：蓝牌 0 / 黄牌 0 / 红牌 1 — 红牌罚下"),
        "{text}"
    );
    assert!(text.contains("民2 出局（殉情）"), "{text}");
    let bb = g.state("bbcode", None);
    assert!(bb.contains("判罚：民1 红牌1（红牌罚下）"), "{bb}");
    assert!(bb.contains("已出局（按出局顺序）：民1、民2"), "{bb}");
    // Public: no clause, no role, no card id.
    assert!(
        !bb.contains("（测试）") && !bb.contains("村民") && !bb.contains("殉情"),
        "{bb}"
    );

    // The tally sees both out from the card's time: 民1's ballot cast before it no longer
    // counts (the tally's rule for a voter out during the day), 民2's, cast after, neither.
    let t = g.json(&["tally", "--day", "2", "--at", "2026-03-05 21:00"]);
    let b1 = ballot(&t, "民1");
    assert_eq!(b1["valid"], false, "{t}");
    assert!(b1["reason"].as_str().unwrap().contains("红牌"), "{b1}");
    let b2 = ballot(&t, "民2");
    assert_eq!(b2["valid"], false, "{t}");
    assert!(b2["reason"].as_str().unwrap().contains("殉情"), "{b2}");
    assert_eq!(ballot(&t, "预言")["valid"], true, "{t}");
    // The activity report: both were in the game only part of day 2, and not on day 3.
    let a = g.json(&["activity", "--day", "2"]);
    for n in ["民1", "民2"] {
        let p = a["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == n)
            .unwrap();
        assert_eq!(p["presence"], "partial", "{n}: {p}");
    }
    votes(&g, SEATS_075, 3, &[]);
    let a = g.json(&["activity", "--day", "3"]);
    let names: Vec<&str> = a["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert!(
        !names.contains(&"民1") && !names.contains(&"民2"),
        "{names:?}"
    );
    assert!(names.contains(&"民3"), "{names:?}");
}

/// 075: a card given at 关门 is settled after the vote — the day's ballots for and by the
/// player count, the vote's elimination comes first, the red is recorded on the player
/// already out.
#[test]
fn a_red_card_at_close_is_settled_after_the_vote() {
    let g = Game::new("075-close", "rules/075-zhifou.toml", SEATS_075, "");
    assert_eq!(g.night(0, N0).0, 0);
    let n1 = "[[action]]\nactor = \"狼1\"\nskill = \"杀人\"\ntargets = [\"民3\"]\n";
    assert_eq!(g.night(1, n1).0, 0);
    votes(
        &g,
        SEATS_075,
        2,
        &[
            ("民1", "2026-03-04 10:00", "狼2"),
            ("预言", "2026-03-04 11:00", "狼2"),
            ("女巫", "2026-03-04 11:00", "狼2"),
            ("狼2", "2026-03-04 11:00", "预言"),
        ],
    );
    g.card("狼2", "red", "2026-03-05 21:00");
    let t = g.json(&["tally", "--day", "2", "--at", "2026-03-05 21:00"]);
    assert_eq!(ballot(&t, "狼2")["valid"], true, "{t}");
    assert_eq!(t["outcome"]["player"], "狼2", "{t}");
    let j = g.json(&[
        "tally",
        "--day",
        "2",
        "--at",
        "2026-03-05 21:00",
        "--confirm",
    ]);
    assert_eq!(j["deaths"][0]["player"], "狼2", "{j}");
    assert_eq!(j["deaths"][0]["cause"], "投票", "{j}");
    let st = g.state_json(None);
    let out = &player(&st, "狼2")["out"];
    assert_eq!(out["cause"], "投票", "{st}");
    assert_eq!(out["causes"], serde_json::json!(["投票", "红牌"]), "{st}");
}

/// 075: the red-carded hunter may not shoot (no prompt, no exit 3), and the red-carded 警长's
/// badge passes at random, drawn from the seed recorded for the card (the same every replay).
#[test]
fn a_red_carded_hunter_does_not_shoot_and_a_red_carded_sheriffs_badge_is_drawn() {
    let events = "[[event]]\nkind = \"sheriff\"\nplayer = \"猎人\"\nat = \"2026-03-03 21:00\"\n";
    let g = Game::new("075-hunter", "rules/075-zhifou.toml", SEATS_075, events);
    assert_eq!(g.night(0, N0).0, 0);
    votes(&g, SEATS_075, 2, &[]);
    g.card("猎人", "red", "2026-03-04 15:00");
    let st = g.state_json(None);
    assert_eq!(player(&st, "猎人")["out"]["cause"], "红牌", "{st}");
    let sheriff = st["sheriff"]
        .as_str()
        .expect("the badge passed")
        .to_string();
    assert_ne!(sheriff, "猎人");
    assert_eq!(player(&st, &sheriff)["alive"], true);
    // Nobody was shot: only the hunter is out.
    let outs: Vec<&str> = st["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["alive"] == false)
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(outs, vec!["猎人"]);
    let text = g.state("text", None);
    assert!(
        text.contains("猎人 因红牌出局，不可发动<最后一枪>"),
        "{text}"
    );
    assert!(text.contains("<殉职>对象随机"), "{text}");
    assert!(text.contains("随机种子"), "{text}");
    // The draw is recorded: the same badge on every replay.
    assert_eq!(g.state_json(None)["sheriff"], sheriff.as_str());
}

/// 075: three 黄 merge into a 红 that counts the same (out, 红牌); a second red in 狼人阵营
/// loses the camp in the engine's win check, and 村民阵营 is left to win.
#[test]
fn three_yellows_make_a_red_and_two_reds_lose_the_camp() {
    let g = Game::new("075-escalate", "rules/075-zhifou.toml", SEATS_075, "");
    assert_eq!(g.night(0, N0).0, 0);
    votes(&g, SEATS_075, 2, &[]);
    for t in ["10:00", "11:00", "12:00"] {
        g.card("狼1", "yellow", &format!("2026-03-04 {t}"));
    }
    let st = g.state_json(None);
    assert_eq!(player(&st, "狼1")["out"]["cause"], "红牌", "{st}");
    let c = &st["cards"]["players"][0];
    assert_eq!(
        (c["yellow"].as_u64(), c["red"].as_u64()),
        (Some(0), Some(1)),
        "{c}"
    );
    assert_eq!(c["escalations"][0]["to"], "红牌", "{c}");
    assert_eq!(c["red_carded_at"], "2026-03-04 12:00:00");
    assert!(
        !st["camps_lost"]
            .as_array()
            .unwrap()
            .contains(&"狼人阵营".into())
    );
    assert_eq!(st["game_over"], false);
    // 混血 joined 狼人阵营 by 认亲 狼1: the second red of the camp.
    g.card("混血", "red", "2026-03-04 13:00");
    let st = g.state_json(None);
    assert!(
        st["camps_lost"]
            .as_array()
            .unwrap()
            .contains(&"狼人阵营".into()),
        "{st}"
    );
    assert_eq!(st["winner"], "村民阵营", "{st}");
    // Withdrawing a yellow undoes the merged red: the camp stands again.
    let cards = g.json(&["cards"]);
    let id = cards["cards"][0]["id"].as_i64().unwrap();
    let (code, _, err) = bansha(&[
        "cards",
        "withdraw",
        "--config",
        &g.cfg(),
        &id.to_string(),
        "--by",
        "导演",
    ]);
    assert_eq!(code, 0, "{err}");
    let st = g.state_json(None);
    assert_eq!(player(&st, "狼1")["alive"], true, "{st}");
    assert_eq!(st["game_over"], false, "{st}");
}

/// 灵族杀: a red card puts the player in 挂机, not out; his later ballot is void; when the
/// 挂机 hunter is 指杀'd he goes out without a prompt for <最后一枪>.
#[test]
fn lingzu_a_red_card_is_idle_and_the_hunter_never_shoots() {
    let g = Game::new("lingzu", "rules/lingzu.toml", SEATS_LINGZU, "");
    let n1 = "[[action]]\nactor = \"丙\"\nskill = \"杀人\"\ntargets = [\"甲\"]\n";
    assert_eq!(g.night(1, n1).0, 0);
    votes(
        &g,
        SEATS_LINGZU,
        2,
        &[
            ("子", "2026-03-04 12:00", "丙"),
            ("乙", "2026-03-04 12:00", "丙"),
        ],
    );
    g.card("子", "red", "2026-03-04 11:00:00");
    let st = g.state_json(None);
    let z = player(&st, "子");
    assert_eq!(z["alive"], true, "{st}");
    assert!(z["statuses"].to_string().contains("挂机"), "{z}");
    assert_eq!(st["cards"]["players"][0]["red_card_effect"], "挂机");
    let t = g.json(&["tally", "--day", "2", "--at", "2026-03-05 21:00"]);
    assert_eq!(ballot(&t, "子")["valid"], false, "{t}");
    assert_eq!(ballot(&t, "乙")["valid"], true, "{t}");
    // Night 2 (before day 2 in 灵族杀) precedes the card; night 3 follows it.
    let n2 = "[[action]]\nactor = \"丙\"\nskill = \"杀人\"\ntargets = [\"乙\"]\n";
    assert_eq!(g.night(2, n2).0, 0);
    let n3 = "[[action]]\nactor = \"丙\"\nskill = \"杀人\"\ntargets = [\"子\"]\n";
    let (code, out, err) = g.night(3, n3);
    assert_eq!(code, 0, "no prompt for the shot: {out}{err}");
    let j: Value = serde_json::from_str(&out).unwrap();
    let deaths: Vec<&str> = j["deaths"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["player"].as_str().unwrap())
        .collect();
    assert_eq!(deaths, vec!["子"], "{j}");
}

/// 075: the lover of a red-carded player is the 警长 and goes out by 殉情. He is not
/// red-carded, so his <殉职> is his own choice (「殉职<强制> —— 警长出局时，须选择一名未出局
/// 角色移交警长。」): the director records it as `[[event]] kind = "answer"` keyed to the card
/// and the badge goes where he says. Without an answer the rule file's reading applies: drawn
/// with the card's recorded seed, as for a 警长 who does not contact the director in time
/// (「…关门十分钟内仍未与导演取得联系，…警长<殉职>对象随机决定。」), and said so.
#[test]
fn a_lover_sheriff_following_a_red_card_passes_the_badge_by_answer_or_by_draw() {
    let events = "[[event]]\nkind = \"sheriff\"\nplayer = \"民2\"\nat = \"2026-03-03 21:00\"\n";
    let g = Game::new(
        "075-lover-sheriff",
        "rules/075-zhifou.toml",
        SEATS_075,
        events,
    );
    assert_eq!(g.night(0, N0).0, 0);
    votes(&g, SEATS_075, 2, &[]);
    g.card("民1", "red", "2026-03-04 15:00");

    // No answer: drawn from the card's seed, the same on every replay, and noted.
    let st = g.state_json(None);
    assert_eq!(player(&st, "民1")["out"]["cause"], "红牌", "{st}");
    assert_eq!(player(&st, "民2")["out"]["cause"], "殉情", "{st}");
    let drawn = st["sheriff"]
        .as_str()
        .unwrap_or_else(|| panic!("the badge was not passed: {st}"))
        .to_string();
    assert!(drawn != "民1" && drawn != "民2", "{drawn}");
    assert_eq!(player(&st, &drawn)["alive"], true);
    assert_eq!(g.state_json(None)["sheriff"], drawn.as_str());
    let text = g.state("text", None);
    assert!(text.contains("民2 的<殉职>未记录"), "{text}");
    assert!(text.contains("随机决定"), "{text}");

    // The director's answer, keyed to the card: the badge goes to the one named.
    let cards = g.json(&["cards"]);
    let id = cards["cards"][0]["id"].as_i64().unwrap();
    let chosen = if drawn == "预言" {
        "女巫"
    } else {
        "预言"
    };
    let mut cfg = std::fs::read_to_string(g.cfg()).unwrap();
    cfg.push_str(&format!(
        "[[event]]\nkind = \"answer\"\ncard = {id}\nactor = \"民2\"\nskill = \"殉职\"\ntargets = [\"{chosen}\"]\n"
    ));
    std::fs::write(g.cfg(), &cfg).unwrap();
    let st = g.state_json(None);
    assert_eq!(st["sheriff"], chosen, "{st}");
    let text = g.state("text", None);
    assert!(!text.contains("民2 的<殉职>未记录"), "{text}");
    // The roster the tally reads follows the same badge.
    assert_eq!(player(&st, "民2")["alive"], false);

    // An answer naming a player already out is refused with the reason (exit 2).
    let bad = cfg.replace(&format!("targets = [\"{chosen}\"]"), "targets = [\"民1\"]");
    std::fs::write(g.cfg(), &bad).unwrap();
    let (code, _, err) = bansha(&["state", "--config", &g.cfg()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("red card") && err.contains("须选择一名未出局角色移交警长"),
        "{err}"
    );

    // An answer for a card the ledger does not hold is refused too, naming the card: the
    // bug was that it was silently ignored.
    let unknown = cfg.replace(&format!("card = {id}\n"), "card = 9999\n");
    std::fs::write(g.cfg(), &unknown).unwrap();
    let (code, _, err) = bansha(&["state", "--config", &g.cfg()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("card 9999 is not a red card of the ledger"),
        "{err}"
    );
}

const SEATS_HUANGQUAN: &[(&str, &str)] = &[
    ("将", "大将军"),
    ("军师", "妙算军师"),
    ("战将", "摧坚战将"),
    ("精锐", "奇袭精锐"),
    ("祭司", "巫蛊祭司"),
    ("太子", "东宫太子"),
    ("密探", "大内密探"),
    ("太医", "妙手太医"),
    ("侍卫", "御前侍卫"),
    ("锦衣", "锦衣卫"),
    ("仙", "南华老仙"),
];

/// 皇权争霸: 「同一阵营的角色累计获得两张或以上红牌时，阵营判负。」 Two reds in 霸道阵营 lose it;
/// its specials go out (判负), among them the 警长 战将, who is not red-carded and so chooses
/// his successor (「殉职【强制】—— 警长并非因红牌罚下而出局后，须选择一名未出局的角色来继任
/// 警长。」): without the director's answer the badge is drawn with the card's seed and noted.
#[test]
fn huangquan_two_reds_lose_the_camp_and_its_sheriff_passes_the_badge() {
    let events = "[[event]]\nkind = \"sheriff\"\nplayer = \"战将\"\nat = \"2026-03-03 21:00\"\n";
    let g = Game::new(
        "hq-two-reds",
        "rules/huangquan.toml",
        SEATS_HUANGQUAN,
        events,
    );
    votes(&g, SEATS_HUANGQUAN, 2, &[]);
    g.card("军师", "red", "2026-03-04 11:00");
    let st = g.state_json(None);
    assert_eq!(st["game_over"], false, "{st}");
    assert_eq!(player(&st, "将")["alive"], true, "{st}");
    g.card("精锐", "red", "2026-03-04 12:00");
    let st = g.state_json(None);
    assert!(
        st["camps_lost"]
            .as_array()
            .unwrap()
            .contains(&"霸道阵营".into()),
        "{st}"
    );
    for n in ["将", "战将", "祭司"] {
        assert_eq!(player(&st, n)["out"]["cause"], "判负", "{n}: {st}");
    }
    let s = st["sheriff"]
        .as_str()
        .unwrap_or_else(|| panic!("the badge was not passed: {st}"));
    assert_eq!(player(&st, s)["alive"], true, "{st}");
    let text = g.state("text", None);
    assert!(text.contains("战将 的<殉职>未记录"), "{text}");
}
