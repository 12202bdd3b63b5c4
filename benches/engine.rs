//! Benchmark: the night engine (run with `cargo bench --bench engine`).
//!
//! Two games, each resolved once and stored, then replayed from the stored timeline:
//!
//! A 12-night 075 game (18 players: 开局, an election, twelve nights with the doctor, wolves,
//! witch and seer acting, twelve day outcomes) is resolved once and stored in a file
//! database the way `bansha night` / `tally --confirm` store it. Then, timed:
//! - the whole replay from the stored timeline (read the rows, parse, resolve all 25
//!   phases again) — what `bansha state` and `state --at` do; target: under 50 ms;
//! - re-resolving night 12 (replay up to it, resolve it) — what `bansha night --night 12` does;
//! - the pure engine alone on the same 25 inputs.
//!
//! A 12-night 灵族杀 game: the scenario `tests/scenarios/night/lingzu/twelve_nights.toml`
//! (12 players; dusk 驱灵, 自爆, 驱魔 refreshes, 灵散, shots, the badge; 12 nights and 11
//! days, night N before day N: the scenario's empty day 2 folded into day 1), stored in
//! timeline order and timed the same three ways; the replay must end with the scenario's
//! winner.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use bansha::config::Config;
use bansha::night::{self, Until, render};
use bansha::rules::RuleSet;
use bansha::store::{Store, StoredPhase};
use bansha_engine::scenario::Scenario;
use bansha_engine::{Action, EngineRules, GameState, PhaseInput, Resolution};

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

/// The 灵族杀 game: the scenario's seats and phases, in timeline order (night N, day N).
/// Seats (name, role), phases in timeline order, and the winner the game ends with.
type LingzuGame = (
    Vec<(String, String)>,
    Vec<(String, u32, PhaseInput)>,
    String,
);

fn lingzu_game(root: &Path) -> LingzuGame {
    let text =
        std::fs::read_to_string(root.join("tests/scenarios/night/lingzu/twelve_nights.toml"))
            .expect("scenario");
    let sc = Scenario::parse(&text).expect("scenario parses");
    let seats = sc
        .setup
        .seats
        .iter()
        .map(|s| {
            let (n, r) = s.split_once(':').expect("name:role");
            (n.to_string(), r.to_string())
        })
        .collect();
    // The scenario plays night 1, day 1, day 2, night 2, day 3, night 3, …, day 12, night 12
    // (day k before night k from day 2 on). 灵族杀's timeline is night N, day N: its day 2 is
    // empty, so days 1 and 2 are day 1 and the scenario's day k (k ≥ 3) is day k − 1 — the
    // same sequence of phases, stored in timeline order (23 phases).
    let mut phases: Vec<(String, u32, PhaseInput)> = Vec::new();
    for p in &sc.phases {
        let empty = p.outs.is_empty() && p.sheriff.is_none() && p.lose.is_empty();
        if p.kind == "day" && p.number == 2 && empty && p.actions.is_empty() {
            continue;
        }
        let mut input = p.input().expect("phase input");
        let n = if p.kind == "day" {
            p.number.saturating_sub(1).max(1)
        } else {
            p.number
        };
        input.moment.day = n;
        phases.push((p.kind.clone(), n, input));
    }
    let ords: Vec<i64> = phases
        .iter()
        .map(|(k, n, _)| StoredPhase::ord(k, *n, true))
        .collect();
    assert!(ords.windows(2).all(|w| w[0] < w[1]), "timeline order");
    let winner = sc
        .phases
        .iter()
        .rev()
        .find_map(|p| p.expect.winner.clone())
        .expect("the scenario names its winner");
    (seats, phases, winner)
}

struct Game<'a> {
    label: &'a str,
    rules_file: &'a str,
    seats: Vec<(String, String)>,
    inputs: Vec<(String, u32, PhaseInput)>,
    /// The winner the replay must end with (None: the game must still be running).
    winner: Option<String>,
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (seats, inputs, winner) = lingzu_game(root);
    let games = [
        Game {
            label: "075",
            rules_file: "rules/075-zhifou.toml",
            seats: SEATS
                .iter()
                .map(|(n, r)| (n.to_string(), r.to_string()))
                .collect(),
            inputs: game()
                .into_iter()
                .map(|(k, n, i)| (k.to_string(), n, i))
                .collect(),
            winner: None,
        },
        Game {
            label: "灵族杀",
            rules_file: "rules/lingzu.toml",
            seats,
            inputs,
            winner: Some(winner),
        },
    ];
    for g in &games {
        bench(root, g);
    }
}

fn bench(root: &Path, g: &Game) {
    let dir = std::env::temp_dir().join(format!(
        "bansha-bench-engine-{}-{}",
        std::process::id(),
        g.rules_file.len()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rules_path = root.join(g.rules_file);
    let mut cfg_text = format!(
        "[forum]\nbase_url = \"http://127.0.0.1:18080/\"\n[game]\nname = \"bench\"\nrules = \"{}\"\ndb = \"{}\"\n",
        rules_path.display(),
        dir.join("bench.sqlite").display()
    );
    for (i, (n, r)) in g.seats.iter().enumerate() {
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
    let rules: EngineRules = RuleSet::load(&rules_path)
        .expect("rule file")
        .engine
        .expect("[engine]");
    let nbd = rules.night_before_day;

    // Resolve and store the game once, as the CLI does.
    let inputs = &g.inputs;
    let mut store = Store::open(&cfg.db_path()).unwrap();
    let mut st: GameState = night::initial_state(&cfg, &rules).unwrap();
    let mut deaths = 0;
    for (kind, n, input) in inputs {
        let out = match bansha_engine::resolve(&rules, &st, input).unwrap() {
            Resolution::Done(o) => o,
            Resolution::NeedInput { prompt, .. } => panic!("{kind} {n}: {}", prompt.question),
        };
        deaths += out.deaths.len();
        let json = serde_json::to_string(&render::phase_json(kind, *n, &out, vec![])).unwrap();
        store
            .put_phase(kind, *n, nbd, &serde_json::to_string(input).unwrap(), &json)
            .unwrap();
        st = out.state;
    }
    let won = |s: &GameState| s.winner.as_ref().map(|w| w.join("、"));
    assert_eq!(
        won(&st),
        g.winner,
        "{}: the bench game must end as written",
        g.label
    );
    let (last_kind, last_n, last) = inputs.last().unwrap();
    println!(
        "engine: {} game, {} players, {} phases ({} days + {} nights{}), {deaths} outs; {} alive at the end; winner {}",
        g.label,
        g.seats.len(),
        inputs.len(),
        inputs.iter().filter(|(k, _, _)| k == "day").count(),
        inputs
            .iter()
            .filter(|(k, n, _)| k == "night" && *n > 0)
            .count(),
        if inputs.iter().any(|(k, n, _)| k == "night" && *n == 0) {
            " + 开局"
        } else {
            ""
        },
        st.alive().count(),
        won(&st).unwrap_or_else(|| "none yet".into())
    );

    const RUNS: usize = 50;
    // 1. The whole replay from the stored timeline.
    let mut t_replay = Vec::new();
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let phases = store.phases().unwrap();
        let tl = night::replay(&cfg, &rules, &phases, &[], Until::All).unwrap();
        black_box(&tl.state);
        t_replay.push(t0.elapsed().as_secs_f64() * 1000.0);
        assert!(tl.problems.is_empty(), "{:?}", tl.problems);
        assert_eq!(
            won(&tl.state),
            g.winner,
            "{}: the replay ends as the game",
            g.label
        );
    }
    // 2. Re-resolving the last phase (night 12).
    let key = match last_kind.as_str() {
        "night" => night::night_key(&rules, *last_n),
        _ => night::day_key(*last_n),
    };
    let mut t_night = Vec::new();
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let phases = store.phases().unwrap();
        let tl = night::replay(&cfg, &rules, &phases, &[], Until::Before(key)).unwrap();
        let r = bansha_engine::resolve(&rules, &tl.state, last).unwrap();
        black_box(r);
        t_night.push(t0.elapsed().as_secs_f64() * 1000.0);
    }
    // 3. The pure engine on the same inputs.
    let mut t_pure = Vec::new();
    for _ in 0..RUNS {
        let t0 = Instant::now();
        let mut st = night::initial_state(&cfg, &rules).unwrap();
        for (_, _, input) in inputs {
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
        "  re-resolve {last_kind} {last_n} (replay + resolve): median {:.2} ms",
        median(t_night)
    );
    println!(
        "  pure engine, {} phases:                  median {:.2} ms",
        inputs.len(),
        median(t_pure)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
