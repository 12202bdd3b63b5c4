//! Benchmark: activity (run with `cargo bench --bench activity`).
//!
//! The activity report (counts, 潜水 with the three-day look-back, 加速/延时, 诈尸) for the
//! last day of a 20,000-post game: 20 players, 10 days, each day a discussion thread of
//! ~1,900 posts, a vote thread and a process thread. Target: under 100 ms.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use bansha::activity::{self, Game};
use bansha::config::Config;
use bansha::model::{Post, Revision};
use bansha::roster::Roster;
use bansha::rules::RuleSet;

const PLAYERS: usize = 20;
const DAYS: u32 = 10;
const POSTS: usize = 20_000;

fn main() {
    let mut cfg_text = String::from(
        "[forum]\nbase_url = \"http://127.0.0.1:18080/\"\n[game]\nname = \"bench\"\nrules = \"rules/075-zhifou.toml\"\ndirectors = [\"导演\"]\n",
    );
    for i in 0..PLAYERS {
        cfg_text.push_str(&format!(
            "[[player]]\nname = \"玩家{i}\"\nuid = {}\nseat = {}\n",
            100 + i,
            i + 1
        ));
    }
    // Day d: Monday-based two-day windows, threads 1000d+1/2/3.
    let base = chrono::NaiveDate::from_ymd_opt(2026, 3, 2).unwrap();
    for d in 1..=DAYS {
        let o = base + chrono::Days::new(u64::from(d - 1) * 2);
        let c = o + chrono::Days::new(1);
        cfg_text.push_str(&format!(
            "[[day]]\nnumber = {d}\ndiscussion = [{}]\nvote = {}\nprocess = {}\nopens = \"{} 09:00\"\ncloses = \"{} 21:00\"\n",
            d * 1000 + 1,
            d * 1000 + 2,
            d * 1000 + 3,
            o.format("%Y-%m-%d"),
            c.format("%Y-%m-%d")
        ));
    }
    // Two players go out along the way; one of them keeps posting (诈尸).
    cfg_text.push_str(
        "[[event]]\nkind = \"out\"\nplayer = \"玩家3\"\nat = \"2026-03-05 21:10\"\ncause = \"vote\"\n\
         [[event]]\nkind = \"out\"\nplayer = \"玩家7\"\nat = \"2026-03-09 21:10\"\ncause = \"night\"\n",
    );
    let cfg = Config::from_str(Path::new("bench.toml"), &cfg_text).expect("bench config");
    let rules = RuleSet::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/075-zhifou.toml"))
        .expect("rule file");
    let roster = Roster::from_config(&cfg);

    let mut posts: HashMap<u64, Vec<Post>> = HashMap::new();
    let per_day = POSTS / DAYS as usize;
    let mut pid = 1u64;
    let mut rng = fastrand::Rng::with_seed(7);
    for d in 1..=DAYS {
        let day = cfg.days.iter().find(|x| x.number == d).unwrap();
        let opens = cfg.ts(day.opens.unwrap());
        let closes = cfg.ts(day.closes.unwrap());
        for k in 0..per_day {
            let author = format!("玩家{}", rng.usize(0..PLAYERS));
            let (tid, text) = match k % 20 {
                0 => (
                    d as u64 * 1000 + 2,
                    "投票对象：玩家1\n投票理由：划水".to_string(),
                ),
                1 => (d as u64 * 1000 + 3, "申请加速".to_string()),
                _ => (
                    d as u64 * 1000 + 1,
                    format!("第{k}帖，我觉得今天的情况很复杂"),
                ),
            };
            let time = opens + (closes - opens) * k as i64 / per_day as i64;
            let list = posts.entry(tid).or_default();
            let floor = list.len() as u32 + 2;
            list.push(Post {
                tid,
                pid,
                floor: Some(floor),
                author,
                uid: None,
                time,
                quote: None,
                revisions: vec![Revision {
                    seen_at: time,
                    hash: String::new(),
                    edit: None,
                    html: text.clone(),
                    text,
                    red: String::new(),
                    large: String::new(),
                }],
                missing_since: None,
                locked: None,
            });
            pid += 1;
        }
    }
    let voted: BTreeMap<u32, BTreeSet<String>> = (1..=DAYS)
        .map(|d| {
            (
                d,
                (0..PLAYERS)
                    .step_by(2)
                    .map(|i| format!("玩家{i}"))
                    .collect(),
            )
        })
        .collect();
    let g = Game {
        cfg: &cfg,
        rules: &rules.activity,
        roster: &roster,
        posts: &posts,
        voted: &voted,
        void_ballots: &std::collections::BTreeMap::new(),
    };
    let total: usize = posts.values().map(Vec::len).sum();

    // Warm up, then time.
    let r = activity::report(&g, DAYS).expect("report");
    assert!(!r.players.is_empty());
    let runs = 20;
    let t = Instant::now();
    for _ in 0..runs {
        black_box(activity::report(black_box(&g), DAYS).unwrap());
    }
    let per = t.elapsed() / runs;
    println!(
        "activity report, day {DAYS} of a {total}-post game ({PLAYERS} players): {:.2} ms per report (target < 100 ms)",
        per.as_secs_f64() * 1e3
    );
    let t = Instant::now();
    for _ in 0..runs {
        black_box(activity::render::report_json(
            &cfg,
            &activity::report(&g, DAYS).unwrap(),
        ));
    }
    println!(
        "activity report + JSON rendering: {:.2} ms",
        (t.elapsed() / runs).as_secs_f64() * 1e3
    );
    let t = Instant::now();
    for _ in 0..runs {
        black_box(activity::elevator(&g, DAYS).unwrap());
    }
    println!(
        "电梯楼 for day {DAYS}: {:.2} ms",
        (t.elapsed() / runs).as_secs_f64() * 1e3
    );
}
