//! Integration tests: votes. Scenario files in `tests/scenarios/votes/<game>/<case>.toml`
//! (game = the rule file's name in `rules/`), each written by hand from the rule post:
//! players, events, vote-thread posts, and the verdicts, totals and outcome the rule
//! sentence (`rule = "…"`) implies. One harness runs them all.

use std::path::{Path, PathBuf};

use bansha::config::Config;
use bansha::model::{EditNotice, LockKind, Post, QuoteRef, Revision};
use bansha::roster::Roster;
use bansha::rules::RuleSet;
use bansha::rules::vote::Weight;
use bansha::votes::{self, TallyInput};
use serde::Deserialize;

use crate::common::quote;

const TID: u64 = 5000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    rule: String,
    /// `false`: the case shows `rule` NOT applying (a boundary's other side), so no verdict
    /// may cite it. Default true: a verdict must cite it.
    #[serde(default = "yes")]
    applied: bool,
    /// Clauses (quotations) the scenario shows NOT applying: no verdict may cite them.
    #[serde(default)]
    not_applied: Vec<String>,
    /// Further sentences of the rule post the case rests on that no verdict cites:
    /// checked to be quotations only.
    #[serde(default)]
    context: Vec<String>,
    day: u32,
    closes: String,
    #[serde(default)]
    at: Option<String>,
    #[serde(default)]
    accelerated: bool,
    /// 加速 took effect at this moment (the request that reached the threshold, or the
    /// director's `accelerate` event's `at`).
    #[serde(default)]
    accelerated_since: Option<String>,
    /// Ballots are taken until this moment (`[[day]] vote_closes`).
    #[serde(default)]
    vote_closes: Option<String>,
    #[serde(default)]
    directors: Vec<String>,
    #[serde(rename = "player")]
    players: Vec<toml::Value>,
    #[serde(default, rename = "event")]
    events: Vec<toml::Value>,
    #[serde(default, rename = "post")]
    posts: Vec<ScPost>,
    expect: Expect,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScPost {
    author: String,
    floor: u32,
    pid: u64,
    time: String,
    text: String,
    #[serde(default)]
    html: Option<String>,
    #[serde(default)]
    quote_pid: Option<u64>,
    #[serde(default)]
    quote_author: Option<String>,
    #[serde(default)]
    quote_time: Option<String>,
    /// The legacy `回复 N# name` form: the floor quoted (with `quote_author`).
    #[serde(default)]
    quote_floor: Option<u32>,
    /// First seen already carrying an edit notice.
    #[serde(default)]
    first_seen_edited: bool,
    /// A later revision's text.
    #[serde(default)]
    later: Option<String>,
    /// The body could not be read (`banned-author`, `password`, …).
    #[serde(default)]
    locked: Option<LockKind>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    mode: String,
    outcome: String,
    #[serde(default)]
    player: Option<String>,
    #[serde(default)]
    via_contains: Vec<String>,
    #[serde(default)]
    outcome_clause_contains: Option<String>,
    totals: Vec<ExpTotal>,
    #[serde(default)]
    non_voters: Option<Vec<String>>,
    #[serde(default, rename = "ballot")]
    ballots: Vec<ExpBallot>,
    /// How many ballot-shaped posts/代投 are listed.
    #[serde(default)]
    ballot_count: Option<usize>,
    #[serde(default)]
    bbcode_contains: Vec<String>,
    #[serde(default)]
    bbcode_lacks: Vec<String>,
    #[serde(default)]
    text_contains: Vec<String>,
    #[serde(default)]
    text_lacks: Vec<String>,
    #[serde(default)]
    notes_contain: Vec<String>,
    #[serde(default)]
    edited_floors: Option<Vec<u32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpTotal {
    target: String,
    votes: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpBallot {
    /// The floor, or absent for a 代投 (then `proxy_voter`).
    #[serde(default)]
    floor: Option<u32>,
    #[serde(default)]
    proxy_voter: Option<String>,
    valid: bool,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    weight: Option<f64>,
    #[serde(default)]
    reason_contains: Vec<String>,
    #[serde(default)]
    clause_contains: Option<String>,
}

fn yes() -> bool {
    true
}

fn scenario_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios/votes")
}

fn scenario_files() -> Vec<(String, PathBuf)> {
    let mut v = Vec::new();
    let root = scenario_root();
    for g in std::fs::read_dir(&root).expect("tests/scenarios/votes exists") {
        let g = g.unwrap().path();
        if !g.is_dir() {
            continue;
        }
        let game = g.file_name().unwrap().to_string_lossy().to_string();
        for f in std::fs::read_dir(&g).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "toml") {
                v.push((game.clone(), f));
            }
        }
    }
    v.sort();
    v
}

fn build_config(sc: &Scenario, rules: &Path) -> Config {
    let mut t = toml::Table::new();
    let mut forum = toml::Table::new();
    forum.insert("base_url".into(), "http://127.0.0.1:18080/".into());
    t.insert("forum".into(), forum.into());
    let mut game = toml::Table::new();
    game.insert("name".into(), "scenario".into());
    game.insert("rules".into(), rules.display().to_string().into());
    game.insert(
        "directors".into(),
        toml::Value::Array(sc.directors.iter().map(|d| d.as_str().into()).collect()),
    );
    t.insert("game".into(), game.into());
    t.insert("player".into(), toml::Value::Array(sc.players.clone()));
    let mut day = toml::Table::new();
    day.insert("number".into(), (sc.day as i64).into());
    day.insert("vote".into(), (TID as i64).into());
    day.insert("closes".into(), sc.closes.as_str().into());
    t.insert("day".into(), toml::Value::Array(vec![day.into()]));
    t.insert("event".into(), toml::Value::Array(sc.events.clone()));
    let text = toml::to_string(&t).unwrap();
    Config::from_str(Path::new("scenario.toml"), &text).unwrap_or_else(|e| panic!("{e}"))
}

fn to_post(cfg: &Config, p: &ScPost) -> Post {
    let ts = |s: &str| {
        cfg.ts(bansha::config::LocalTime(
            bansha::time::parse_naive(s).unwrap(),
        ))
    };
    let t = ts(&p.time);
    let rev = |text: &str, seen: i64, edit: Option<EditNotice>| Revision {
        seen_at: seen,
        hash: format!("{:x}", text.len() as u64 * 31 + seen as u64),
        edit,
        html: p
            .html
            .clone()
            .unwrap_or_else(|| text.replace('\n', "<br />")),
        text: text.to_string(),
        red: String::new(),
        large: String::new(),
    };
    let mut revisions = vec![rev(
        &p.text,
        t + 30,
        p.first_seen_edited.then(|| EditNotice {
            editor: p.author.clone(),
            time: Some(t + 10),
        }),
    )];
    if let Some(l) = &p.later {
        revisions.push(rev(
            l,
            t + 600,
            Some(EditNotice {
                editor: p.author.clone(),
                time: Some(t + 500),
            }),
        ));
    }
    let quote = if p.quote_pid.is_some() || p.quote_author.is_some() {
        Some(QuoteRef {
            pid: p.quote_pid,
            author: p.quote_author.clone(),
            time: p.quote_time.as_deref().map(ts),
            floor: p.quote_floor,
        })
    } else {
        None
    };
    Post {
        tid: TID,
        pid: p.pid,
        floor: Some(p.floor),
        author: p.author.clone(),
        uid: None,
        time: t,
        quote,
        revisions,
        missing_since: None,
        locked: p.locked,
    }
}

/// Run one scenario; every mismatch is returned, naming the scenario.
fn run(game: &str, file: &Path) -> Vec<String> {
    let name = file.display().to_string();
    let text = std::fs::read_to_string(file).unwrap();
    let sc: Scenario = match bansha::tomlfile::parse_toml(file, &text) {
        Ok(s) => s,
        Err(e) => return vec![format!("{e}")],
    };
    let mut errs = Vec::new();
    let rules_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("rules/{game}.toml"));
    let rs = RuleSet::load(&rules_path).unwrap_or_else(|e| panic!("{e}"));
    if let Err(e) = quote::check_quotation(&sc.rule, &quote::post_text(&rs.meta.source)) {
        errs.push(format!("{name}: {e}"));
    }
    let cfg = build_config(&sc, &rules_path);
    let roster = Roster::from_config(&cfg);
    let posts: Vec<Post> = sc.posts.iter().map(|p| to_post(&cfg, p)).collect();
    let ts = |s: &str| {
        cfg.ts(bansha::config::LocalTime(
            bansha::time::parse_naive(s).unwrap(),
        ))
    };
    let t = votes::tally(&TallyInput {
        day: sc.day,
        rules: &rs.vote,
        readings: &rs.meta.readings,
        config: &cfg,
        roster: &roster,
        posts: &posts,
        closes: Some(ts(&sc.closes)),
        vote_closes: sc.vote_closes.as_deref().map(ts),
        as_of: sc.at.as_deref().map(ts),
        accelerated_since: match &sc.accelerated_since {
            Some(s) => Some(ts(s)),
            None => sc.accelerated.then_some(i64::MIN),
        },
    });
    // The sentence quoted is one the verdicts cite: an invalid ballot's clause, a weight's
    // or the outcome's, a note (readings, 加速).
    let cited = t
        .ballots
        .iter()
        .filter_map(|b| b.clause.as_deref())
        .chain(
            t.ballots
                .iter()
                .flat_map(|b| b.weight_notes.iter().map(String::as_str)),
        )
        .chain(t.notes.iter().map(String::as_str))
        .chain([t.outcome.clause.as_str(), t.secrecy_clause.as_str()]);
    let cited: Vec<&str> = cited.collect();
    for e in quote::check_scenario_citations(
        &sc.rule,
        sc.applied,
        &sc.context,
        &sc.not_applied,
        &rs.meta.source,
        &cited,
        "a verdict",
    ) {
        errs.push(format!("{name}: {e}"));
    }
    let e = &sc.expect;
    let mut check = |ok: bool, what: String| {
        if !ok {
            errs.push(format!("{name}: {what}"));
        }
    };
    check(t.mode == e.mode, format!("mode {} != {}", t.mode, e.mode));
    check(
        t.outcome.kind.as_str() == e.outcome && t.outcome.player == e.player,
        format!(
            "outcome {} {:?} (via {}) != {} {:?}",
            t.outcome.kind.as_str(),
            t.outcome.player,
            t.outcome.via,
            e.outcome,
            e.player
        ),
    );
    for v in &e.via_contains {
        check(
            t.outcome.via.contains(v.as_str()),
            format!("outcome via `{}` lacks `{v}`", t.outcome.via),
        );
    }
    if let Some(c) = &e.outcome_clause_contains {
        check(
            t.outcome.clause.contains(c.as_str()),
            format!("outcome clause `{}` lacks `{c}`", t.outcome.clause),
        );
    }
    let got: Vec<(String, Weight)> = t
        .totals
        .iter()
        .map(|x| (x.target.clone(), x.votes))
        .collect();
    let want: Vec<(String, Weight)> = e
        .totals
        .iter()
        .map(|x| (x.target.clone(), Weight::from_f64(x.votes).unwrap()))
        .collect();
    check(got == want, format!("totals {got:?} != {want:?}"));
    if let Some(nv) = &e.non_voters {
        check(
            &t.non_voters == nv,
            format!("non_voters {:?} != {nv:?}", t.non_voters),
        );
    }
    if let Some(n) = e.ballot_count {
        check(
            t.ballots.len() == n,
            format!("{} ballots listed, want {n}", t.ballots.len()),
        );
    }
    for eb in &e.ballots {
        let found = t
            .ballots
            .iter()
            .find(|b| match (&eb.proxy_voter, eb.floor) {
                (Some(v), _) => b.proxy && &b.voter == v,
                (None, Some(f)) => b.floor == Some(f) && !b.proxy,
                _ => false,
            });
        let label = eb
            .floor
            .map(|f| format!("floor {f}"))
            .unwrap_or_else(|| format!("代投 by {:?}", eb.proxy_voter));
        let Some(b) = found else {
            check(false, format!("{label}: no such ballot listed"));
            continue;
        };
        check(
            b.valid == eb.valid,
            format!(
                "{label}: valid {} (reason {:?}), want {}",
                b.valid, b.reason, eb.valid
            ),
        );
        if eb.valid {
            check(
                b.reason.is_none(),
                format!("{label}: valid but has a reason"),
            );
        } else {
            check(
                b.reason.is_some(),
                format!("{label}: invalid without a reason"),
            );
            check(
                b.clause.as_deref().is_some_and(|c| !c.is_empty()),
                format!("{label}: invalid without a clause"),
            );
        }
        if let Some(tg) = &eb.target {
            check(
                b.target.as_ref() == Some(tg),
                format!("{label}: target {:?} != {tg}", b.target),
            );
        }
        if let Some(w) = eb.weight {
            check(
                b.weight == Weight::from_f64(w).unwrap(),
                format!("{label}: weight {} != {w} ({:?})", b.weight, b.weight_notes),
            );
        }
        for r in &eb.reason_contains {
            check(
                b.reason.as_deref().unwrap_or("").contains(r.as_str()),
                format!("{label}: reason {:?} lacks `{r}`", b.reason),
            );
        }
        if let Some(c) = &eb.clause_contains {
            check(
                b.clause.as_deref().unwrap_or("").contains(c.as_str()),
                format!("{label}: clause {:?} lacks `{c}`", b.clause),
            );
        }
    }
    let bb = votes::render::bbcode(&t, &cfg.game.name);
    for s in &e.bbcode_contains {
        check(
            bb.contains(s.as_str()),
            format!("bbcode lacks `{s}`:\n{bb}"),
        );
    }
    for s in &e.bbcode_lacks {
        check(
            !bb.contains(s.as_str()),
            format!("bbcode contains `{s}`:\n{bb}"),
        );
    }
    let tx = votes::render::text(&t, &cfg.game.name);
    for s in &e.text_contains {
        check(tx.contains(s.as_str()), format!("text lacks `{s}`:\n{tx}"));
    }
    for s in &e.text_lacks {
        check(
            !tx.contains(s.as_str()),
            format!("text contains `{s}`:\n{tx}"),
        );
    }
    for s in &e.notes_contain {
        check(
            t.notes.iter().any(|n| n.contains(s.as_str())),
            format!("notes {:?} lack `{s}`", t.notes),
        );
    }
    if let Some(ef) = &e.edited_floors {
        let got: Vec<u32> = t.edited_posts.iter().filter_map(|p| p.floor).collect();
        check(&got == ef, format!("edited floors {got:?} != {ef:?}"));
    }
    // The contract's JSON keys.
    let j = serde_json::to_value(&t).unwrap();
    for k in ["day", "mode", "ballots", "totals", "outcome"] {
        check(j.get(k).is_some(), format!("json lacks `{k}`"));
    }
    for b in j["ballots"].as_array().unwrap() {
        for k in [
            "voter", "target", "floor", "pid", "time", "weight", "valid", "reason",
        ] {
            check(b.get(k).is_some(), format!("json ballot lacks `{k}`"));
        }
        check(
            b["weight"].is_number(),
            "json weight is not a number".into(),
        );
    }
    for k in ["kind", "player", "via"] {
        check(
            j["outcome"].get(k).is_some(),
            format!("json outcome lacks `{k}`"),
        );
    }
    errs
}

#[test]
fn vote_scenarios() {
    let files = scenario_files();
    assert!(
        !files.is_empty(),
        "no scenario files under {}",
        scenario_root().display()
    );
    let mut errs = Vec::new();
    for (g, f) in &files {
        errs.extend(run(g, f));
    }
    for g in [
        "075-zhifou",
        "huangquan",
        "M213-hollow-knight",
        "lingzu",
        "M114-blizzard-manor",
    ] {
        if !files.iter().any(|(game, _)| game == g) {
            errs.push(format!("no scenarios for {g}"));
        }
    }
    assert!(
        errs.is_empty(),
        "{} mismatches in {} scenarios:\n{}",
        errs.len(),
        files.len(),
        errs.join("\n")
    );
}

// ---------------------------------------------------------------------------
// `bansha tally` end to end: config + rule file + store → text / json / bbcode.
// ---------------------------------------------------------------------------

fn page_post(
    pid: u64,
    floor: u32,
    author: &str,
    time: i64,
    text: &str,
    quote: Option<u64>,
) -> bansha::model::PagePost {
    bansha::model::PagePost {
        pid: Some(pid),
        floor: Some(floor),
        floor_label: format!("{floor}#"),
        author: author.into(),
        uid: None,
        time,
        edit: None,
        quote: quote.map(|p| QuoteRef {
            pid: Some(p),
            ..Default::default()
        }),
        html: text.replace('\n', "<br />"),
        text: text.into(),
        red: String::new(),
        large: String::new(),
        locked: None,
        deleted: false,
        duplicate: false,
    }
}

/// A game directory with a config, and a store holding the day-2 vote thread.
fn cli_game(name: &str, extra: &str) -> PathBuf {
    let dir = crate::common::scratch_dir(&format!("votes-{name}"));
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/075-zhifou.toml");
    let cfg_text = format!(
        r#"[forum]
base_url = "http://127.0.0.1:18080/"

[game]
name = "[075]测试"
rules = "{}"
db = "game.sqlite"
directors = ["[075]导演A"]

[[player]]
name = "傻树"
[[player]]
name = "不见"
[[player]]
name = "白色防御者"
[[player]]
name = "大黄蜂"

[[day]]
number = 2
vote = 7002
closes = "2026-03-05 21:00"

[[event]]
kind = "sheriff"
player = "傻树"
at = "2026-03-04 21:00"
{extra}"#,
        rules.display()
    );
    let cfg_path = dir.join("game.toml");
    std::fs::write(&cfg_path, cfg_text).unwrap();
    let cfg = Config::load(&cfg_path).unwrap();
    let ts = |s: &str| {
        cfg.ts(bansha::config::LocalTime(
            bansha::time::parse_naive(s).unwrap(),
        ))
    };
    let posts = vec![
        page_post(
            1,
            1,
            "[075]导演A",
            ts("2026-03-05 09:00"),
            "第二天投票帖",
            None,
        ),
        page_post(
            2,
            2,
            "傻树",
            ts("2026-03-05 10:00"),
            "投票对象：大黄蜂\n投票理由：[/quote][size=7]大",
            None,
        ),
        page_post(
            3,
            3,
            "不见",
            ts("2026-03-05 11:00"),
            "投票对象：白色防御者\n投票理由：b",
            None,
        ),
        page_post(
            4,
            4,
            "不见",
            ts("2026-03-05 15:00"),
            "改票对象：大黄蜂\n改票理由：c",
            Some(3),
        ),
        page_post(
            5,
            5,
            "白色防御者",
            ts("2026-03-05 16:00"),
            "投票对象：大黄\n投票理由：d",
            None,
        ),
    ];
    let page = bansha::model::ThreadPage {
        tid: 7002,
        title: "第二天投票".into(),
        page: 1,
        total_pages: 1,
        posts,
        author_filtered: false,
        viewer_uid: Some(1),
    };
    let mut store = bansha::store::Store::open(&cfg.db_path()).unwrap();
    store
        .store_page(
            &cfg.forum_key(),
            &page,
            &bansha::store::FetchInfo {
                source: "test".into(),
                kind: bansha::store::SourceKind::File,
                page: 1,
                fetched_at: ts("2026-03-05 16:30"),
            },
        )
        .unwrap();
    cfg_path
}

fn bansha_cmd(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(args)
        .output()
        .unwrap()
}

/// `bansha tally --day 2 --at 关门 --format json` on a game config; it must succeed.
fn tally_json_at_close(cfg: &str) -> serde_json::Value {
    let out = bansha_cmd(&[
        "tally",
        "--config",
        cfg,
        "--day",
        "2",
        "--at",
        "2026-03-05 21:00",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn tally_command_json_at_and_bbcode() {
    let cfg = cli_game("cli", "");
    let cfg = cfg.to_str().unwrap();
    // As of 关门: 傻树 (警长, 2) + 不见 (改票) for 大黄蜂; 白色防御者 misspelt.
    let j = tally_json_at_close(cfg);
    assert_eq!(j["day"], 2);
    assert_eq!(j["mode"], "elimination");
    assert_eq!(
        j["totals"],
        serde_json::json!([{"target": "大黄蜂", "votes": 3}])
    );
    assert_eq!(j["outcome"]["kind"], "eliminated");
    assert_eq!(j["outcome"]["player"], "大黄蜂");
    let b = j["ballots"].as_array().unwrap();
    // The director's opening post holds no ballot.
    assert_eq!(b.len(), 4, "{b:?}");
    let by_floor = |f: u64| b.iter().find(|x| x["floor"] == f).unwrap();
    assert_eq!(by_floor(2)["weight"], 2);
    assert_eq!(by_floor(2)["time"], "2026-03-05 10:00:00");
    assert_eq!(by_floor(3)["valid"], false);
    assert_eq!(by_floor(3)["reason"], "已被 4 楼改票取代");
    assert!(
        by_floor(5)["reason"]
            .as_str()
            .unwrap()
            .contains("最接近的玩家：大黄蜂"),
        "{}",
        by_floor(5)
    );

    // As of 12:00 the 改票 and the misspelt ballot are not there yet: 不见's first vote counts.
    let out = bansha_cmd(&[
        "tally",
        "--config",
        cfg,
        "--day",
        "2",
        "--at",
        "2026-03-05 12:00",
        "--format",
        "json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let b = j["ballots"].as_array().unwrap();
    assert_eq!(b.len(), 2, "{b:?}");
    assert_eq!(b[1]["floor"], 3);
    assert_eq!(b[1]["valid"], true);
    assert_eq!(
        j["totals"],
        serde_json::json!([{"target": "大黄蜂", "votes": 2}, {"target": "白色防御者", "votes": 1}])
    );

    let out = bansha_cmd(&[
        "tally",
        "--config",
        cfg,
        "--day",
        "2",
        "--at",
        "2026-03-05 21:00",
        "--format",
        "bbcode",
    ]);
    let bb = String::from_utf8(out.stdout).unwrap();
    assert!(bb.contains("投票出局：大黄蜂"), "{bb}");
    assert!(!bb.contains("[/quote][size=7]"), "{bb}");

    let out = bansha_cmd(&[
        "tally",
        "--config",
        cfg,
        "--day",
        "2",
        "--at",
        "2026-03-05 21:00",
    ]);
    let tx = String::from_utf8(out.stdout).unwrap();
    assert!(tx.contains("未投票：白色防御者、大黄蜂"), "{tx}");
    assert!(tx.contains("goto=findpost&ptid=7002&pid=2"), "{tx}");
}

#[test]
fn tally_command_rejects_unknown_day_and_bad_time() {
    let cfg = cli_game("bad", "");
    let cfg = cfg.to_str().unwrap();
    let out = bansha_cmd(&["tally", "--config", cfg, "--day", "9"]);
    assert_eq!(out.status.code(), Some(2));
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("game.toml") && e.contains("no [[day]] with number = 9"),
        "{e}"
    );
    let out = bansha_cmd(&["tally", "--config", cfg, "--day", "2", "--at", "tomorrow"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--at: `tomorrow`"));
}

#[test]
fn tally_command_takes_the_directors_acceleration() {
    // 「执行加速时，所有人不可改票」: with the day accelerated, 不见's 改票 (floor 4) fails.
    let cfg = cli_game("accel", "\n[[event]]\nkind = \"accelerate\"\nday = 2\n");
    let j = tally_json_at_close(cfg.to_str().unwrap());
    assert_eq!(j["accelerated"], true);
    let b = j["ballots"].as_array().unwrap();
    let f4 = b.iter().find(|x| x["floor"] == 4).unwrap();
    assert_eq!(f4["valid"], false);
    assert!(
        f4["reason"].as_str().unwrap().contains("本日已加速"),
        "{f4}"
    );
    let f3 = b.iter().find(|x| x["floor"] == 3).unwrap();
    assert_eq!(f3["valid"], true);
}

#[test]
fn tally_command_applies_acceleration_from_its_moment() {
    // 「执行加速时，所有人不可改票」 bans a 改票 made while the day is accelerated: with the
    // director's `accelerate` taking effect at 15:30, 不见's 改票 at 15:00 (floor 4) stands.
    let cfg = cli_game(
        "accel-at",
        "\n[[event]]\nkind = \"accelerate\"\nday = 2\nat = \"2026-03-05 15:30\"\n",
    );
    let j = tally_json_at_close(cfg.to_str().unwrap());
    assert_eq!(j["accelerated"], true);
    assert_eq!(j["accelerated_since"], "2026-03-05 15:30:00");
    let b = j["ballots"].as_array().unwrap();
    let f4 = b.iter().find(|x| x["floor"] == 4).unwrap();
    assert_eq!(f4["valid"], true, "{f4}");
    assert_eq!(
        j["totals"],
        serde_json::json!([{"target": "大黄蜂", "votes": 3}])
    );
}
