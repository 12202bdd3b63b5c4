//! Benchmark: the night engine (run with `cargo bench --bench engine`).
//!
//! A 12-night 075 game (18 players: 开局, an election, twelve nights with the doctor, wolves,
//! witch and seer acting, twelve day outcomes) is resolved once and stored in a file
//! database the way `bansha night` / `tally --confirm` store it. Then, timed:
//! - the whole replay from the stored timeline (read the rows, parse, resolve all 25
//!   phases again) — what `bansha state` and `state --at` do; target: under 50 ms;
//! - re-resolving night 12 (replay up to it, resolve it) — what `bansha night --night 12` does;
//! - the pure engine alone on the same 25 inputs.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use bansha::config::Config;
use bansha::night::{self, Until, render};
use bansha::rules::RuleSet;
use bansha::store::Store;
use bansha_engine::{Action, GameState, PhaseInput, Resolution};

const SEATS: &[(&str, &str)] = &[
    ("狼1", "狼人"),
    ("狼2", "狼人"),
    ("狼3", "狼人"),
    ("狼4", "狼人"),
    ("狼5", "狼人"),
    ("预言", "预言家"),
    ("女巫", "女巫"),
    ("村长", "村长"),
    ("医生", "医生"),
    ("猎人", "猎人"),
    ("丘比", "丘比特"),
    ("混血", "混血儿"),
    ("民1", "村民"),
    ("民2", "村民"),
    ("民3", "村民"),
    ("民4", "村民"),
    ("民5", "村民"),
    ("民6", "村民"),
];

fn act(actor: &str, skill: &str, targets: &[&str]) -> Action {
    Action::new(actor, skill, targets)
}

/// The game's inputs, in timeline order: (kind, number, input).
fn game() -> Vec<(&'static str, u32, PhaseInput)> {
    let mut v = Vec::new();
    v.push((
        "night",
        0,
        PhaseInput::night(
            0,
            vec![
                act("丘比", "丘比特之箭", &["民5", "民6"]),
                act("混血", "认亲", &["预言"]),
            ],
            1,
        ),
    ));
    let targets = [
        "民1", "民4", "猎人", "医生", "女巫", "预言", "村长", "丘比", "混血", "民2", "民4", "猎人",
    ];
    for n in 1..=12u32 {
        let (outs, sheriff) = match n {
            1 => (vec![], Some("预言".to_string())),
            2 => (vec![("狼4".to_string(), "投票".to_string())], None),
            6 => (vec![("民3".to_string(), "投票".to_string())], None),
            _ => (vec![], None),
        };
        v.push((
            "day",
            n,
            PhaseInput::day(n, outs, sheriff, vec![], u64::from(n) * 7),
        ));
        let t = targets[n as usize - 1];
        let mut a = vec![
            act("医生", "救治", &[if n == 1 { "民2" } else { t }]),
            act("狼1", "杀人", &[t]),
            act("预言", "预言", &[["狼1", "狼2", "狼3"][n as usize % 3]]),
        ];
        if n == 3 {
            a.push(act("女巫", "救药", &[t]));
        }
        if n == 5 {
            a.push(act("女巫", "毒药", &["狼5"]));
        }
        v.push(("night", n, PhaseInput::night(n, a, u64::from(n))));
    }
    v
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let dir = std::env::temp_dir().join(format!("bansha-bench-engine-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rules_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/075-zhifou.toml");
    let mut cfg_text = format!(
        "[forum]\nbase_url = \"http://127.0.0.1:18080/\"\n[game]\nname = \"bench\"\nrules = \"{}\"\ndb = \"{}\"\n",
        rules_path.display(),
        dir.join("bench.sqlite").display()
    );
    for (i, (n, r)) in SEATS.iter().enumerate() {
        cfg_text.push_str(&format!(
            "[[player]]\nname = \"{n}\"\nseat = {}\nrole = \"{r}\"\n",
            i + 1
        ));
    }
    let base = chrono::NaiveDate::from_ymd_opt(2026, 3, 2).unwrap();
    for d in 1..=12u32 {
        let o = base + chrono::Days::new(u64::from(d - 1) * 2);
        let c = o + chrono::Days::new(1);
        cfg_text.push_str(&format!(
            "[[day]]\nnumber = {d}\nvote = {}\nopens = \"{} 09:00\"\ncloses = \"{} 21:00\"\n",
            d * 1000 + 2,
            o.format("%Y-%m-%d"),
            c.format("%Y-%m-%d")
        ));
    }
    let cfg = Config::from_str(&dir.join("bench.toml"), &cfg_text).expect("bench config");
    let rules = RuleSet::load(&rules_path)
        .expect("rule file")
        .engine
        .expect("[engine]");

    // Resolve and store the game once, as the CLI does.
    let inputs = game();
    let mut store = Store::open(&cfg.db_path()).unwrap();
    let mut st: GameState = night::initial_state(&cfg, &rules).unwrap();
    let mut deaths = 0;
    for (kind, n, input) in &inputs {
        let out = match bansha_engine::resolve(&rules, &st, input).unwrap() {
            Resolution::Done(o) => o,
            Resolution::NeedInput { prompt, .. } => panic!("{kind} {n}: {}", prompt.question),
        };
        deaths += out.deaths.len();
        let json = serde_json::to_string(&render::phase_json(kind, *n, &out, vec![])).unwrap();
        store
            .put_phase(
                kind,
                *n,
                false,
                &serde_json::to_string(input).unwrap(),
                &json,
            )
            .unwrap();
        st = out.state;
    }
    assert!(
        st.winner.is_none(),
        "the bench game must last twelve nights"
    );
    println!(
        "engine: 075 game, {} players, {} phases (开局 + 12 days + 12 nights), {deaths} outs; {} alive at the end",
        SEATS.len(),
        inputs.len(),
        st.alive().count()
    );

    const RUNS: usize = 50;
    // 1. The whole replay from the stored timeline.
    let mut t_replay = Vec::new();
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let phases = store.phases().unwrap();
        let tl = night::replay(&cfg, &rules, &phases, Until::All).unwrap();
        black_box(&tl.state);
        t_replay.push(t0.elapsed().as_secs_f64() * 1000.0);
        assert!(tl.problems.is_empty());
    }
    // 2. Re-resolving night 12.
    let last = &inputs.last().unwrap().2;
    let mut t_night = Vec::new();
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let phases = store.phases().unwrap();
        let tl = night::replay(
            &cfg,
            &rules,
            &phases,
            Until::Before(night::night_key(&rules, 12)),
        )
        .unwrap();
        let r = bansha_engine::resolve(&rules, &tl.state, last).unwrap();
        black_box(r);
        t_night.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    // 3. The pure engine on the 25 inputs.
    let mut t_pure = Vec::new();
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let mut st = night::initial_state(&cfg, &rules).unwrap();
        for (_, _, input) in &inputs {
            if let Resolution::Done(o) = bansha_engine::resolve(&rules, &st, input).unwrap() {
                st = o.state;
            }
        }
        black_box(&st);
        t_pure.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "  replay of the stored timeline (state):   median {:.2} ms (min {:.2}, max {:.2}) over {RUNS} runs  [target < 50 ms]",
        median(t_replay.clone()),
        t_replay.iter().cloned().fold(f64::MAX, f64::min),
        t_replay.iter().cloned().fold(0.0, f64::max)
    );
    println!(
        "  re-resolve night 12 (replay + resolve):  median {:.2} ms",
        median(t_night)
    );
    println!(
        "  pure engine, 25 phases:                  median {:.2} ms",
        median(t_pure)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
