//! Benchmark: votes (run with `cargo bench --bench votes`).
//! A tally of 2,000 ballot posts by 400 players under the 075 rules: votes, 改票 replies,
//! 40 ballots naming no player exactly (name suggestions) corrected by new posts, repeated
//! 投票 posts and 改票 without a vote; target < 10 ms.

use std::path::Path;
use std::time::{Duration, Instant};

use bansha::config::Config;
use bansha::model::{Post, Revision};
use bansha::roster::Roster;
use bansha::rules::RuleSet;
use bansha::votes::{TallyInput, tally};

const PLAYERS: usize = 400;
const BALLOTS: usize = 2000;

/// Nanoseconds this thread has spent on a CPU (Linux `schedstat`), if the kernel says.
fn on_cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = RuleSet::load(&root.join("rules/075-zhifou.toml")).expect("rule file");
    let mut cfg = String::from(
        "[forum]\nbase_url = \"http://127.0.0.1:18080/\"\n[game]\nname = \"bench\"\nrules = \"rules/075-zhifou.toml\"\n",
    );
    for i in 0..PLAYERS {
        cfg.push_str(&format!("[[player]]\nname = \"玩家{i:03}\"\n"));
    }
    cfg.push_str("[[day]]\nnumber = 2\nvote = 9\ncloses = \"2026-03-05 21:00\"\n");
    cfg.push_str(
        "[[event]]\nkind = \"sheriff\"\nplayer = \"玩家000\"\nat = \"2026-03-04 21:00\"\n",
    );
    for i in 0..20 {
        cfg.push_str(&format!(
            "[[event]]\nkind = \"out\"\nplayer = \"玩家{:03}\"\nat = \"2026-03-04 21:00\"\ncause = \"night\"\n",
            PLAYERS - 1 - i
        ));
    }
    let cfg = Config::from_str(Path::new("bench.toml"), &cfg).expect("config");
    let roster = Roster::from_config(&cfg);
    let start = cfg.ts(bansha::config::LocalTime(
        bansha::time::parse_naive("2026-03-05 09:00").unwrap(),
    ));
    let closes = start + 12 * 3600;
    let mut posts = Vec::with_capacity(BALLOTS);
    let mut first_pid = vec![0u64; PLAYERS];
    for n in 0..BALLOTS {
        let voter = n % PLAYERS;
        let round = n / PLAYERS;
        let pid = 1000 + n as u64;
        let target = (voter * 7 + round * 13) % PLAYERS;
        let (text, quote) = match round {
            0 if voter % 10 == 5 => (format!("投票对象：玩家{target:03}x\n投票理由：错名"), None),
            0 => {
                first_pid[voter] = pid;
                (
                    format!("投票对象：玩家{target:03}\n投票理由：第{n}票"),
                    None,
                )
            }
            1 if voter.is_multiple_of(3) => (
                format!("改票对象：玩家{target:03}\n改票理由：改"),
                Some(first_pid[voter]),
            ),
            // A voter whose first ballot was invalid corrects it by a new post.
            1 if voter % 10 == 5 => {
                first_pid[voter] = pid;
                (format!("投票对象：玩家{target:03}\n投票理由：重投"), None)
            }
            _ => (format!("投票对象：玩家{target:03}\n投票理由：重复"), None),
        };
        posts.push(Post {
            tid: 9,
            pid,
            floor: Some(n as u32 + 2),
            author: format!("玩家{voter:03}"),
            uid: None,
            time: start + n as i64 * 15,
            quote: quote.map(|p| bansha::model::QuoteRef {
                pid: Some(p),
                ..Default::default()
            }),
            revisions: vec![Revision {
                seen_at: start + n as i64 * 15 + 5,
                hash: String::new(),
                edit: None,
                html: String::new(),
                text,
                red: String::new(),
                large: String::new(),
            }],
            missing_since: None,
            locked: None,
        });
    }
    let input = TallyInput {
        day: 2,
        rules: &rules.vote,
        readings: &rules.meta.readings,
        config: &cfg,
        roster: &roster,
        posts: &posts,
        closes: Some(closes),
        vote_closes: None,
        as_of: None,
        accelerated_since: None,
    };
    let t = tally(&input);
    assert_eq!(t.ballots.len(), BALLOTS);
    let mut cpu = Vec::new();
    let mut times: Vec<Duration> = (0..30)
        .map(|_| {
            let c = on_cpu_ns();
            let s = Instant::now();
            let t = tally(&input);
            std::hint::black_box(&t);
            let e = s.elapsed();
            if let (Some(a), Some(b)) = (c, on_cpu_ns()) {
                cpu.push(b - a);
            }
            e
        })
        .collect();
    times.sort();
    cpu.sort();
    if !cpu.is_empty() {
        println!(
            "votes/tally {BALLOTS} ballots: median CPU time {:.2} ms (this thread on a CPU; wall time below includes waiting for a busy machine)",
            cpu[cpu.len() / 2] as f64 / 1e6
        );
    }
    println!(
        "votes/tally {BALLOTS} ballots, {PLAYERS} players: median {:.2} ms, min {:.2} ms, max {:.2} ms (target < 10 ms)",
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3
    );
}
