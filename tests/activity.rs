//! Integration tests: activity. Scenario files in `tests/scenarios/activity/*.toml` describe
//! a game (players, days, events, posts, who voted) and the report the rule post calls for,
//! written by hand from the rule text; `rule` quotes the sentence each scenario checks.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use bansha::activity::{self, Game};
use bansha::config::Config;
use bansha::model::{Post, Revision};
use bansha::roster::Roster;
use bansha::rules::RuleSet;
use serde::Deserialize;

use crate::common::quote;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    /// The rule sentence this scenario checks (quoted from the rule post).
    rule: String,
    /// Rule file name in `rules/` without `.toml`.
    rules: String,
    day: u32,
    #[serde(default)]
    directors: Vec<String>,
    #[serde(default)]
    player: Vec<toml::Value>,
    #[serde(default, rename = "day_")]
    days: Vec<toml::Value>,
    #[serde(default)]
    event: Vec<toml::Value>,
    /// Day number (as a string key) → the players whose ballot the tally must count. Who
    /// voted always comes from the tally of the scenario's 投票帖 posts (as in `bansha
    /// activity`); this only checks that answer.
    #[serde(default)]
    voted: BTreeMap<String, Vec<String>>,
    /// `false`: the case shows `rule` NOT applying (a boundary's other side), so no verdict
    /// may cite it. Default true: a verdict must cite it.
    #[serde(default = "yes")]
    applied: bool,
    /// Clauses (quotations) the scenario shows NOT applying: no violation may cite them.
    #[serde(default)]
    not_applied: Vec<String>,
    /// Further sentences of the rule post the case rests on that no verdict cites (the
    /// 电梯's layout, the day's length, 不投票不吃牌): checked to be quotations only.
    #[serde(default)]
    context: Vec<String>,
    #[serde(default)]
    post: Vec<ScPost>,
    /// Settings changed from the rule file's, to exercise them.
    #[serde(default)]
    settings: Settings,
    expect: Expect,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Settings {
    count_vote_thread: Option<bool>,
    partial_day: Option<bansha::rules::activity::PartialDay>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScPost {
    tid: u64,
    author: String,
    time: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    html: Option<String>,
    #[serde(default)]
    floor: Option<u32>,
    #[serde(default)]
    uid: Option<u64>,
    #[serde(default)]
    missing: bool,
    /// Repeat this post n times, one minute apart.
    #[serde(default)]
    n: Option<u32>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    accelerated: Option<bool>,
    /// When 加速 took effect (`YYYY-MM-DD HH:MM:SS`), or "" for not accelerated.
    accelerated_since: Option<String>,
    delayed: Option<bool>,
    overridden_by_director: Option<bool>,
    accelerate_requests: Option<usize>,
    delay_requests: Option<usize>,
    living: Option<usize>,
    /// Words the 加速 decision's explanation must contain (what the director reads).
    explanation_contains: Option<String>,
    /// Names that must not appear in the report.
    #[serde(default)]
    absent: Vec<String>,
    #[serde(default)]
    player: Vec<ExpPlayer>,
    /// The exact 电梯楼 BBCode for `day`.
    elevator_bbcode: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpPlayer {
    name: String,
    posts: Option<u32>,
    voted: Option<bool>,
    judged: Option<bool>,
    presence: Option<String>,
    /// Exactly these rules, in any order (repeats count).
    violations: Vec<String>,
    /// The card of each violation, in the order of `violations` after sorting by rule.
    #[serde(default)]
    cards: Vec<String>,
    /// Floors cited as evidence, all violations together, sorted.
    #[serde(default)]
    floors: Vec<u32>,
    /// Words the note must contain.
    note_contains: Option<String>,
}

fn yes() -> bool {
    true
}

fn scenario_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/activity")
}

fn build_config(sc: &Scenario, file: &Path) -> Config {
    let mut root = toml::Table::new();
    let mut forum = toml::Table::new();
    forum.insert("base_url".into(), "http://127.0.0.1:18080/".into());
    root.insert("forum".into(), forum.into());
    let mut game = toml::Table::new();
    game.insert("name".into(), "scenario".into());
    game.insert(
        "rules".into(),
        format!("{}/rules/{}.toml", env!("CARGO_MANIFEST_DIR"), sc.rules).into(),
    );
    game.insert(
        "directors".into(),
        toml::Value::Array(sc.directors.iter().map(|d| d.as_str().into()).collect()),
    );
    root.insert("game".into(), game.into());
    root.insert("player".into(), toml::Value::Array(sc.player.clone()));
    root.insert("day".into(), toml::Value::Array(sc.days.clone()));
    root.insert("event".into(), toml::Value::Array(sc.event.clone()));
    let text = toml::to_string(&root).unwrap();
    Config::from_str(file, &text).unwrap_or_else(|e| panic!("{}: config: {e}", file.display()))
}

fn build_posts(sc: &Scenario, cfg: &Config, file: &Path) -> HashMap<u64, Vec<Post>> {
    let mut by_tid: HashMap<u64, Vec<Post>> = HashMap::new();
    let mut next_floor: HashMap<u64, u32> = HashMap::new();
    let mut pid = 1u64;
    for p in &sc.post {
        let t0 = bansha::time::parse_local(&p.time, cfg.tz)
            .unwrap_or_else(|| panic!("{}: bad post time {}", file.display(), p.time));
        for i in 0..p.n.unwrap_or(1) {
            let nf = next_floor.entry(p.tid).or_insert(2);
            let floor = match p.floor {
                Some(f) if i == 0 => f,
                _ => *nf,
            };
            *nf = floor.max(*nf) + 1;
            let text = p
                .text
                .clone()
                .unwrap_or_else(|| "我觉得今天要好好分析一下".into());
            by_tid.entry(p.tid).or_default().push(Post {
                tid: p.tid,
                pid,
                floor: Some(floor),
                author: p.author.clone(),
                uid: p.uid,
                time: t0 + 60 * i64::from(i),
                quote: None,
                revisions: vec![Revision {
                    seen_at: t0,
                    hash: format!("h{pid}"),
                    edit: None,
                    html: p.html.clone().unwrap_or_else(|| text.clone()),
                    text,
                    red: String::new(),
                    large: String::new(),
                }],
                missing_since: p.missing.then_some(t0 + 1),
                locked: None,
            });
            pid += 1;
        }
    }
    by_tid
}

/// The tally's rejected ballots of day `d` (voter, floor, reason), for failure messages.
fn rejections(
    cfg: &Config,
    rs: &RuleSet,
    roster: &Roster,
    posts: &HashMap<u64, Vec<Post>>,
    d: u32,
) -> Vec<String> {
    let Some(day) = cfg.days.iter().find(|x| x.number == d) else {
        return Vec::new();
    };
    let Ok(w) = activity::day_window(cfg, &rs.activity, d) else {
        return Vec::new();
    };
    let vp = day
        .vote
        .and_then(|t| posts.get(&t))
        .cloned()
        .unwrap_or_default();
    let t = bansha::votes::tally(&bansha::votes::TallyInput {
        day: d,
        rules: &rs.vote,
        readings: &rs.meta.readings,
        config: cfg,
        roster,
        posts: &vp,
        closes: Some(w.closes),
        vote_closes: cfg.vote_closes(d),
        as_of: None,
        accelerated_since: None,
    });
    t.ballots
        .iter()
        .filter(|b| !b.valid)
        .map(|b| {
            format!(
                "{} {:?}: {}",
                b.voter,
                b.floor,
                b.reason.as_deref().unwrap_or("")
            )
        })
        .collect()
}

fn run(file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    // `[[day]]` in the file would clash with the scenario's `day = N`; the file writes
    // `[[day_]]` for the config's days.
    let sc: Scenario = toml::from_str(&text).map_err(|e| format!("parse: {e}"))?;
    let rs = RuleSet::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("rules/{}.toml", sc.rules)),
    )
    .map_err(|e| e.to_string())?;
    let mut rs = rs;
    if let Some(v) = sc.settings.count_vote_thread {
        rs.activity.count_vote_thread = v;
    }
    if let Some(v) = sc.settings.partial_day {
        rs.activity.partial_day = v;
    }
    quote::check_quotation(&sc.rule, &quote::post_text(&rs.meta.source))?;
    let cfg = build_config(&sc, file);
    let roster = Roster::from_config(&cfg);
    let posts = build_posts(&sc, &cfg, file);
    // Who voted: the tally of the day's 投票帖, exactly as `bansha activity` computes it.
    let voted: BTreeMap<u32, BTreeSet<String>> =
        bansha::game::activity::voted_by_tally(&cfg, &rs, &roster, &posts, sc.day);
    let mut errs = Vec::new();
    for (k, v) in &sc.voted {
        let d: u32 = k
            .parse()
            .map_err(|_| format!("voted: `{k}` is no day number"))?;
        let want: BTreeSet<String> = v.iter().cloned().collect();
        // Earlier days too (the report judges only `day`'s 未投票).
        let got = bansha::game::activity::voted_by_tally(&cfg, &rs, &roster, &posts, d)
            .remove(&d)
            .unwrap_or_default();
        if got != want {
            errs.push(format!(
                "voted on day {d}: want {want:?}, the tally gives {got:?}; its rejections: {:?}",
                rejections(&cfg, &rs, &roster, &posts, d)
            ));
        }
    }
    let g = Game {
        cfg: &cfg,
        rules: &rs.activity,
        roster: &roster,
        posts: &posts,
        voted: &voted,
        void_ballots: &BTreeMap::new(),
    };
    let r = activity::report(&g, sc.day).map_err(|e| e.to_string())?;
    // The sentence quoted is one the report cites: a violation's clause, the 加速 decision's,
    // a note (the report's or a player's).
    let mut cited: Vec<String> = r
        .players
        .iter()
        .flat_map(|p| p.violations.iter().map(|v| v.clause.clone()))
        .collect();
    cited.push(r.accel.clause.clone());
    cited.push(r.accel.explanation.clone());
    // The decision has one `clause`; a 延时 that cancels the acceleration applies the
    // delay clause, an acceleration applies the exemption.
    if let Some(a) = &rs.activity.acceleration {
        if r.accel.delayed {
            cited.push(a.delay_clause.clone());
        }
        if r.accel.accelerated {
            cited.push(a.exempt_clause.clone());
        }
    }
    cited.extend(r.notes.iter().cloned());
    cited.extend(r.players.iter().filter_map(|p| p.note.clone()));
    let cited: Vec<&str> = cited.iter().map(String::as_str).collect();
    errs.extend(quote::check_scenario_citations(
        &sc.rule,
        sc.applied,
        &sc.context,
        &sc.not_applied,
        &rs.meta.source,
        &cited,
        "the report",
    ));
    let ex = &sc.expect;
    let mut chk = |what: &str, want: Option<String>, got: String| {
        if let Some(w) = want
            && w != got
        {
            errs.push(format!("{what}: want {w}, got {got}"));
        }
    };
    chk(
        "accelerated",
        ex.accelerated.map(|b| b.to_string()),
        r.accel.accelerated.to_string(),
    );
    chk(
        "accelerated_since",
        ex.accelerated_since.clone(),
        r.accel.since.map(|t| cfg.fmt_time(t)).unwrap_or_default(),
    );
    chk(
        "delayed",
        ex.delayed.map(|b| b.to_string()),
        r.accel.delayed.to_string(),
    );
    chk(
        "overridden_by_director",
        ex.overridden_by_director.map(|b| b.to_string()),
        r.accel.overridden_by_director.to_string(),
    );
    chk(
        "accelerate_requests",
        ex.accelerate_requests.map(|b| b.to_string()),
        r.accel.accelerate_count.to_string(),
    );
    chk(
        "delay_requests",
        ex.delay_requests.map(|b| b.to_string()),
        r.accel.delay_count.to_string(),
    );
    chk(
        "living",
        ex.living.map(|b| b.to_string()),
        r.accel.living.to_string(),
    );
    if let Some(w) = &ex.explanation_contains
        && !r.accel.explanation.contains(w.as_str())
    {
        errs.push(format!(
            "explanation: want it to contain {w}, got {}",
            r.accel.explanation
        ));
    }
    for a in &ex.absent {
        if r.players.iter().any(|p| &p.name == a) {
            errs.push(format!("{a} should not be in the report"));
        }
    }
    for ep in &ex.player {
        let Some(p) = r.players.iter().find(|p| p.name == ep.name) else {
            errs.push(format!("{} missing from the report", ep.name));
            continue;
        };
        let n = &ep.name;
        let mut chk = |what: &str, want: Option<String>, got: String| {
            if let Some(w) = want
                && w != got
            {
                errs.push(format!("{n}.{what}: want {w}, got {got}"));
            }
        };
        chk(
            "posts",
            ep.posts.map(|x| x.to_string()),
            p.posts.to_string(),
        );
        chk(
            "voted",
            ep.voted.map(|x| x.to_string()),
            p.voted.to_string(),
        );
        chk(
            "judged",
            ep.judged.map(|x| x.to_string()),
            p.judged.to_string(),
        );
        chk(
            "presence",
            ep.presence.clone(),
            serde_json::to_value(p.presence)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string(),
        );
        let mut got: Vec<(String, String)> = p
            .violations
            .iter()
            .map(|v| (v.rule.as_str().to_string(), v.card.as_str().to_string()))
            .collect();
        got.sort();
        let mut want = ep.violations.clone();
        want.sort();
        let got_rules: Vec<String> = got.iter().map(|(r, _)| r.clone()).collect();
        if got_rules != want {
            errs.push(format!("{n}.violations: want {want:?}, got {got_rules:?}"));
        } else if !ep.cards.is_empty() {
            let got_cards: Vec<String> = got.iter().map(|(_, c)| c.clone()).collect();
            if got_cards != ep.cards {
                errs.push(format!("{n}.cards: want {:?}, got {got_cards:?}", ep.cards));
            }
        }
        for v in &p.violations {
            if v.clause.trim().is_empty() {
                errs.push(format!(
                    "{n}: violation {} names no clause",
                    v.rule.as_str()
                ));
            }
        }
        if !ep.floors.is_empty() {
            let mut fl: Vec<u32> = p
                .violations
                .iter()
                .flat_map(|v| v.evidence.iter().filter_map(|e| e.floor))
                .collect();
            fl.sort();
            if fl != ep.floors {
                errs.push(format!("{n}.floors: want {:?}, got {fl:?}", ep.floors));
            }
        }
        if let Some(w) = &ep.note_contains
            && !p.note.as_deref().unwrap_or("").contains(w.as_str())
        {
            errs.push(format!(
                "{n}.note: want it to contain {w}, got {:?}",
                p.note
            ));
        }
    }
    if let Some(want) = &ex.elevator_bbcode {
        let e = activity::elevator(&g, sc.day).map_err(|e| e.to_string())?;
        let got = activity::render::elevator_bbcode(&cfg, &e);
        if got.trim_end() != want.trim_end() {
            errs.push(format!("elevator:\n--- want\n{want}\n--- got\n{got}"));
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n  "))
    }
}

#[test]
fn activity_scenarios() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(scenario_dir())
        .expect("tests/scenarios/activity exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no scenarios in tests/scenarios/activity"
    );
    let mut failed = Vec::new();
    for f in &files {
        if let Err(e) = run(f) {
            failed.push(format!(
                "{}:\n  {e}",
                f.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failed.len(),
        files.len(),
        failed.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// End to end: the commands read the store and print the report.
// ---------------------------------------------------------------------------------------

mod cli {
    use std::path::PathBuf;

    use bansha::model::PagePost;

    use crate::common::bansha;

    const BASE: &str = "http://127.0.0.1:18080/";

    fn dir(name: &str) -> PathBuf {
        crate::common::scratch_dir(&format!("activity-{name}"))
    }

    fn post(floor: u32, pid: u64, author: &str, uid: u64, time: &str, text: &str) -> PagePost {
        crate::common::page_post(floor, pid, author, uid, time, text)
    }

    fn store(db: &std::path::Path, tid: u64, posts: Vec<PagePost>) {
        let source = format!("{BASE}forum.php?mod=viewthread&tid={tid}");
        crate::common::store_one_page(db, BASE, tid, posts, &source);
    }

    /// A [075] day 2: 甲 posts five times and votes; 乙 posts twice and votes with a ballot
    /// the tally rejects (a target who is no player); 丙 is out since day 1 and posts in the
    /// 投票帖 (诈尸).
    /// Removes the game's folder when the test ends.
    struct Cleanup(PathBuf);
    impl Drop for Cleanup {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// The day's 讨论帖 of [`game`]: 甲 five posts, 乙 two.
    fn discussion() -> Vec<PagePost> {
        let mut disc = vec![post(1, 100, "导演", 1, "2026-03-04 09:00", "开门")];
        for i in 0..5 {
            disc.push(post(
                2 + i,
                101 + u64::from(i),
                "甲",
                11,
                "2026-03-04 10:00",
                "分析一下",
            ));
        }
        disc.push(post(7, 110, "乙", 12, "2026-03-04 11:00", "我是好人"));
        disc.push(post(8, 111, "乙", 12, "2026-03-04 11:05", "真的"));
        disc
    }

    /// The day's 投票帖 of [`game`]: 甲 votes 乙, 乙 names no player, 丙 (out) posts.
    fn ballots() -> Vec<PagePost> {
        vec![
            post(1, 200, "导演", 1, "2026-03-04 09:00", "投票帖"),
            post(
                2,
                201,
                "甲",
                11,
                "2026-03-04 12:00",
                "投票对象：乙\n投票理由：话少",
            ),
            post(
                3,
                202,
                "乙",
                12,
                "2026-03-04 12:00",
                "投票对象：路人\n投票理由：随便",
            ),
            post(4, 203, "丙", 13, "2026-03-04 12:30", "我出局了但我要说"),
        ]
    }

    fn game(name: &str) -> (PathBuf, Cleanup) {
        let d = dir(name);
        let rules = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules/075-zhifou.toml");
        let cfg = format!(
            r#"[forum]
base_url = "{BASE}"
[game]
name = "e2e"
rules = "{}"
db = "game.sqlite"
directors = ["导演"]
[[player]]
name = "甲"
seat = 2
[[player]]
name = "乙"
seat = 1
uid = 12
[[player]]
name = "丙"
seat = 3
[[day]]
number = 2
discussion = [701]
vote = 702
process = 703
opens = "2026-03-04 09:00"
closes = "2026-03-05 21:00"
[[event]]
kind = "out"
player = "丙"
at = "2026-03-03 21:10"
cause = "vote"
"#,
            rules.display()
        );
        let cfgp = d.join("game.toml");
        std::fs::write(&cfgp, cfg).unwrap();
        let db = d.join("game.sqlite");
        store(&db, 701, discussion());
        store(&db, 702, ballots());
        // The 进程帖 holds only the director's opening floor (no 加速/延时 requests).
        store(
            &db,
            703,
            vec![post(1, 300, "导演", 1, "2026-03-04 09:00", "进程帖")],
        );
        (cfgp, Cleanup(d))
    }

    /// Regression (issue 25): on a day whose `[[day]]` names no thread, `activity`,
    /// `elevator` and `cards from-activity` judged from nothing (潜水 黄牌 for everyone, a camp
    /// lost). They refuse, as `tally` does, saying what to add; nothing is recorded.
    #[test]
    fn a_day_without_threads_is_refused_by_every_day_report() {
        let (cfg, _cleanup) = game("nothreads");
        let text = std::fs::read_to_string(&cfg).unwrap();
        let text = text.replace(
            "[[event]]",
            "[[day]]\nnumber = 3\nopens = \"2026-03-06 09:00\"\ncloses = \"2026-03-07 21:00\"\n[[event]]",
        );
        std::fs::write(&cfg, text).unwrap();
        let c = cfg.to_str().unwrap();
        for args in [
            vec!["activity", "--config", c, "--day", "3"],
            vec!["elevator", "--config", c, "--day", "3"],
            vec![
                "cards",
                "from-activity",
                "--config",
                c,
                "--day",
                "3",
                "--by",
                "导演",
            ],
        ] {
            let (code, out, err) = bansha(&args);
            assert_eq!(code, 2, "{args:?}: {out}{err}");
            assert!(
                err.contains("第3天") && err.contains("没有"),
                "{args:?}: {err}"
            );
            assert!(!out.contains("黄牌"), "{args:?}: {out}");
        }
        let (code, out, _) = bansha(&["cards", "--config", c, "--format", "json"]);
        assert_eq!(code, 0);
        assert!(!out.contains("\"yellow\": 1"), "{out}");
    }

    /// Regression (issue 25): a player whose forum name changed mid-game (same uid) lost their
    /// posts and ballots (不是本局玩家, 未投票, 潜水); an alias, and a 替补 on their own account
    /// from the substitution on, keep the seat's posts and ballots together.
    #[test]
    fn renamed_aliased_and_substituted_accounts_post_and_vote_for_their_seat() {
        let (cfg, _cleanup) = game("renamed");
        let text = std::fs::read_to_string(&cfg).unwrap().replace(
            "[[day]]",
            "[[player]]\nname = \"丁\"\nseat = 4\naliases = [\"丁的新名\"]\n[[player]]\nname = \"戊\"\nseat = 5\n[[day]]",
        ) + "[[event]]\nkind = \"substitute\"\nplayer = \"戊\"\nat = \"2026-03-04 12:00\"\nby = \"替补戊\"\n";
        std::fs::write(&cfg, text).unwrap();
        let db = cfg.parent().unwrap().join("game.sqlite");
        // 乙 (uid 12) renamed to 乙改名: three more posts and a valid ballot.
        // 丁 posts as 丁的新名 (an alias; uid unknown to the config).
        // 戊's 替补 posts as 替补戊: once before the substitution (a stranger's), five after.
        let mut disc = discussion();
        for i in 0..3 {
            disc.push(post(
                9 + i,
                120 + u64::from(i),
                "乙改名",
                12,
                "2026-03-05 10:00",
                "改名了",
            ));
        }
        for i in 0..5 {
            disc.push(post(
                12 + i,
                130 + u64::from(i),
                "丁的新名",
                99,
                "2026-03-05 10:00",
                "新名字",
            ));
        }
        disc.push(post(
            17,
            140,
            "替补戊",
            77,
            "2026-03-04 11:00",
            "我先来看看",
        ));
        for i in 0..5 {
            disc.push(post(
                18 + i,
                141 + u64::from(i),
                "替补戊",
                77,
                "2026-03-04 13:00",
                "我是替补",
            ));
        }
        store(&db, 701, disc);
        let mut votes = ballots();
        votes.extend([
            post(
                5,
                204,
                "乙改名",
                12,
                "2026-03-05 12:00",
                "投票对象：甲\n投票理由：改名后",
            ),
            post(
                6,
                205,
                "丁的新名",
                99,
                "2026-03-05 12:00",
                "投票对象：甲\n投票理由：别名",
            ),
            post(
                7,
                206,
                "替补戊",
                77,
                "2026-03-05 12:00",
                "投票对象：甲\n投票理由：替补",
            ),
        ]);
        store(&db, 702, votes);
        let c = cfg.to_str().unwrap();
        let (code, out, err) =
            bansha(&["activity", "--config", c, "--day", "2", "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let player = |n: &str| {
            v["players"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == n)
                .unwrap_or_else(|| panic!("no {n} in {v}"))
                .clone()
        };
        assert_eq!(player("乙")["posts"], 5, "{v}");
        assert_eq!(player("乙")["voted"], true, "{v}");
        assert_eq!(player("丁")["posts"], 5, "{v}");
        assert_eq!(player("丁")["voted"], true, "{v}");
        assert_eq!(player("戊")["posts"], 5, "{v}");
        assert_eq!(player("戊")["voted"], true, "{v}");
        for n in ["乙", "丁", "戊"] {
            assert!(
                player(n)["violations"].as_array().unwrap().is_empty(),
                "{n}: {v}"
            );
        }
        assert!(
            !out.contains("乙改名") && !out.contains("丁的新名"),
            "{out}"
        );
        let (code, out, err) = bansha(&[
            "tally",
            "--config",
            c,
            "--day",
            "2",
            "--at",
            "2026-03-05 21:00",
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{err}");
        let t: serde_json::Value = serde_json::from_str(&out).unwrap();
        let valid: Vec<&str> = t["ballots"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["valid"] == true)
            .map(|b| b["voter"].as_str().unwrap())
            .collect();
        assert_eq!(valid, ["甲", "乙", "丁", "戊"], "{t}");
    }

    /// 「每名角色仅限更换一次替补」: a second substitute for the same player is refused, naming
    /// the red-card clause for a role that cannot go on.
    #[test]
    fn a_second_substitute_for_one_role_is_refused_with_the_red_card_clause() {
        let (cfg, _cleanup) = game("twosubs");
        let sub = |at: &str| {
            format!("[[event]]\nkind = \"substitute\"\nplayer = \"甲\"\nat = \"{at}\"\n")
        };
        let text = std::fs::read_to_string(&cfg).unwrap()
            + &sub("2026-03-04 12:00")
            + &sub("2026-03-05 12:00");
        std::fs::write(&cfg, text).unwrap();
        let (code, _, err) = bansha(&["activity", "--config", cfg.to_str().unwrap(), "--day", "2"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("每名角色仅限更换一次替补"), "{err}");
        assert!(
            err.contains("无法继续进行游戏的角色无法更换替补时红牌罚下"),
            "{err}"
        );
    }

    /// 排球少年 <镇压>: 「PS：①该技能发动后导演不会公告。」 乙 is suppressed (status 投票无效)
    /// and votes at 20:40, after 关门 (20:30) and before 投票结束 (21:00). Neither public
    /// output may tell: the activity BBCode says 乙 voted, the tally BBCode lists the ballot
    /// as cast; the director's JSON says why it is void.
    #[test]
    fn suppression_stays_out_of_every_public_output() {
        let d = dir("suppression");
        let _cleanup = Cleanup(d.clone());
        let rules =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rules/M114-blizzard-manor.toml");
        let cfg = format!(
            r#"[forum]
base_url = "{BASE}"
[game]
name = "m114"
rules = "{}"
db = "game.sqlite"
[[player]]
name = "甲"
[[player]]
name = "乙"
[[player]]
name = "丙"
[[day]]
number = 2
discussion = [801]
vote = 802
opens = "2026-03-05 09:00"
closes = "2026-03-05 20:30"
vote_closes = "2026-03-05 21:00"
[[event]]
kind = "status"
player = "乙"
status = "投票无效"
from_day = 2
to_day = 2
"#,
            rules.display()
        );
        let cfgp = d.join("game.toml");
        std::fs::write(&cfgp, cfg).unwrap();
        let db = d.join("game.sqlite");
        // The 讨论帖 is stored too (a report never answers from a thread it has no page of).
        store(
            &db,
            801,
            vec![post(1, 201, "丙", 13, "2026-03-05 10:00", "早上好")],
        );
        store(
            &db,
            802,
            vec![
                post(
                    2,
                    301,
                    "甲",
                    11,
                    "2026-03-05 20:35",
                    "投票对象：丙\n投票理由：a",
                ),
                post(
                    3,
                    302,
                    "乙",
                    12,
                    "2026-03-05 20:40",
                    "投票对象：丙\n投票理由：b",
                ),
            ],
        );
        let c = cfgp.to_str().unwrap();
        let (code, out, err) = bansha(&[
            "activity", "--config", c, "--day", "2", "--format", "bbcode",
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("乙：0 帖，已投票"), "{out}");
        let (code, out, err) = bansha(&[
            "tally",
            "--config",
            c,
            "--day",
            "2",
            "--at",
            "2026-03-05 21:00",
            "--format",
            "bbcode",
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains("乙 → 丙") && !out.contains("无效") && !out.contains("[s]"),
            "{out}"
        );
        let (_, out, _) = bansha(&[
            "tally",
            "--config",
            c,
            "--day",
            "2",
            "--at",
            "2026-03-05 21:00",
            "--format",
            "json",
        ]);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let b = v["ballots"].as_array().unwrap();
        assert_eq!(
            b[0]["valid"], true,
            "20:35 is inside the vote window: {out}"
        );
        assert_eq!(b[1]["valid"], false);
        assert!(b[1]["reason"].as_str().unwrap().contains("投票无效"));
    }

    #[test]
    fn activity_json_follows_the_contract() {
        let (cfg, _cleanup) = game("json");
        let c = cfg.to_str().unwrap();
        let (code, out, err) =
            bansha(&["activity", "--config", c, "--day", "2", "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["day"], 2);
        assert_eq!(v["accelerated"], false);
        let players = v["players"].as_array().unwrap();
        // Seat order: 乙 (1), 甲 (2), 丙 (3, out, listed for 诈尸); the director never.
        let names: Vec<&str> = players
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["乙", "甲", "丙"]);
        let rules = |i: usize| -> Vec<String> {
            players[i]["violations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["rule"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(players[1]["posts"], 5);
        assert_eq!(players[1]["voted"], true);
        assert!(rules(1).is_empty());
        assert_eq!(players[0]["posts"], 2);
        // 乙's ballot names no player: the tally does not count it, so 乙 did not vote.
        assert_eq!(players[0]["voted"], false);
        assert_eq!(rules(0), ["few-posts", "no-vote"]);
        // Regression (issue 25): it was reported as plain 未投票; it is 投票无效, with its
        // floor and why (the public reason).
        assert!(
            players[0]["void_ballot"]
                .as_str()
                .is_some_and(|v| v.starts_with("投票帖 3 楼：") && v.contains("路人")),
            "{}",
            players[0]
        );
        let no_vote = players[0]["violations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["rule"] == "no-vote")
            .unwrap();
        assert!(
            no_vote["detail"]
                .as_str()
                .unwrap()
                .contains("投票无效（投票帖 3 楼"),
            "{no_vote}"
        );
        assert!(players[1].get("void_ballot").is_none(), "{}", players[1]);
        let (code, bb, err) = bansha(&[
            "activity", "--config", c, "--day", "2", "--format", "bbcode",
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(bb.contains("乙：2 帖，投票无效"), "{bb}");
        assert!(bb.contains("甲：5 帖，已投票"), "{bb}");
        assert_eq!(rules(2), ["zombie-post"]);
        let z = &players[2]["violations"][0];
        assert_eq!(z["card"], "blue");
        assert!(z["clause"].as_str().unwrap().contains("诈尸"));
        assert_eq!(z["floors"][0]["floor"], 4);
        assert_eq!(
            z["floors"][0]["url"],
            "http://127.0.0.1:18080/forum.php?mod=redirect&goto=findpost&ptid=702&pid=203"
        );
        for p in players {
            for v in p["violations"].as_array().unwrap() {
                assert!(v["detail"].is_string() && v["card"].is_string());
            }
        }
    }

    #[test]
    fn activity_text_and_bbcode_name_the_clause() {
        let (cfg, _cleanup) = game("text");
        let c = cfg.to_str().unwrap();
        let (code, out, err) = bansha(&["activity", "--config", c, "--day", "2"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("乙 黄牌 [few-posts]"), "{out}");
        assert!(out.contains("在未执行加速的讨论日发言不足五帖"), "{out}");
        let (code, out, _) = bansha(&[
            "activity", "--config", c, "--day", "2", "--format", "bbcode",
        ]);
        assert_eq!(code, 0);
        // The 潜水 card is the rule post's own (固定判罚一张“黄牌”): a ruling in the 公示.
        assert!(out.contains("乙 黄牌"), "{out}");
        // The rule post names no card for 诈尸 (丙 posting at 投票帖4楼): bansha's blue card
        // is a suggestion for the director, never printed as a ruling in public BBCode.
        assert!(!out.contains("ptid=702&pid=203"), "{out}");
        assert!(!out.contains("丙 蓝牌"), "{out}");
    }

    /// cargo-mutants survivors in `src/activity/render.rs` (fourth session): no test read the
    /// text report's evidence floors (`floor_label`), its presence column (`presence_zh`) or
    /// the 电梯楼's text and JSON forms (`elevator_text`, `elevator_json`).
    #[test]
    fn activity_text_names_the_floor_and_presence_and_the_elevator_has_text_and_json() {
        let (cfg, _cleanup) = game("textfloors");
        let c = cfg.to_str().unwrap();
        let (code, out, err) = bansha(&["activity", "--config", c, "--day", "2"]);
        assert_eq!(code, 0, "{err}");
        // 丙's 诈尸 is 投票帖4楼 (pid 203): the evidence names the thread and the floor.
        assert!(out.contains("投票帖4楼"), "{out}");
        assert!(out.contains("已出局"), "{out}");
        assert!(
            out.contains("全天在场") || out.contains("部分在场"),
            "{out}"
        );
        let (code, text, err) = bansha(&["elevator", "--config", c, "--day", "2"]);
        assert_eq!(code, 0, "{err}");
        // The same order and counts as the BBCode form (`elevator_bbcode_from_the_store`).
        assert!(text.starts_with("第2天 电梯\n"), "{text}");
        let rows: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(rows.len(), 2, "{text}");
        assert!(rows[0].contains("乙") && rows[0].contains("2 帖"), "{text}");
        assert!(rows[1].contains("甲") && rows[1].contains("5 帖"), "{text}");
        assert!(rows[1].contains("tid=701&page=1&authorid=11"), "{text}");
        let (code, json, err) =
            bansha(&["elevator", "--config", c, "--day", "2", "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        let j: serde_json::Value = serde_json::from_str(&json).expect("elevator JSON");
        assert!(
            j.is_object() && !j.as_object().unwrap().is_empty(),
            "{json}"
        );
        assert!(json.contains("乙") && json.contains("甲"), "{json}");
    }

    #[test]
    fn a_card_the_rule_post_does_not_name_is_a_suggestion_in_the_directors_report() {
        let (cfg, _cleanup) = game("suggest");
        let c = cfg.to_str().unwrap();
        let (code, out, err) = bansha(&["activity", "--config", c, "--day", "2"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("丙 建议蓝牌（规则帖未规定牌色"), "{out}");
        assert!(out.contains("ptid=702&pid=203"), "{out}");
        let (_, json, _) = bansha(&["activity", "--config", c, "--day", "2", "--format", "json"]);
        let j: serde_json::Value = serde_json::from_str(&json).unwrap();
        let named: Vec<(String, bool)> = j["players"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| p["violations"].as_array().unwrap().clone())
            .map(|v| {
                (
                    v["rule"].as_str().unwrap().to_string(),
                    v["card_named_by_rule"].as_bool().unwrap(),
                )
            })
            .collect();
        assert!(named.contains(&("zombie-post".into(), false)), "{named:?}");
        assert!(named.contains(&("few-posts".into(), true)), "{named:?}");
    }

    #[test]
    fn elevator_bbcode_from_the_store() {
        let (cfg, _cleanup) = game("elevator");
        let c = cfg.to_str().unwrap();
        let (code, out, err) = bansha(&[
            "elevator", "--config", c, "--day", "2", "--format", "bbcode",
        ]);
        assert_eq!(code, 0, "{err}");
        // 甲's uid is not in the config: it comes from 甲's stored posts. 丙 is out.
        assert_eq!(
            out.trim_end(),
            "[b]第2天 电梯[/b]\n\
             1. [url=http://127.0.0.1:18080/forum.php?mod=viewthread&tid=701&page=1&authorid=12]乙[/url]（2 帖）\n\
             2. [url=http://127.0.0.1:18080/forum.php?mod=viewthread&tid=701&page=1&authorid=11]甲[/url]（5 帖）"
        );
    }

    #[test]
    fn unknown_day_is_a_usage_error_naming_the_config() {
        let (cfg, _cleanup) = game("noday");
        let c = cfg.to_str().unwrap();
        let (code, _, err) = bansha(&["activity", "--config", c, "--day", "9"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("game.toml") && err.contains("day 9"), "{err}");
    }
}
