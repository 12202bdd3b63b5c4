//! Benchmark: the pure engine replaying a whole 12-night 灵族杀 game (run with
//! `cargo bench -p bansha-engine --bench lingzu_replay`). The game is the scenario
//! `tests/scenarios/night/lingzu/twelve_nights.toml`: 12 nights (dusk 驱灵, 自爆, 驱魔
//! refreshes, 灵散, shots, the badge) and 12 days, 24 phases in all, each resolved on the
//! state the previous one left, with every expectation of the scenario checked. Target: the
//! whole replay under 50 ms (so `state --at` and re-resolving a night are instant).

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use bansha_engine::scenario::{Scenario, engine_rules_from_toml};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let rules_text = std::fs::read_to_string(root.join("rules/lingzu.toml")).expect("rules");
    let t0 = Instant::now();
    let rules = engine_rules_from_toml(&rules_text).expect("[engine]");
    let load = t0.elapsed();
    let sc_text =
        std::fs::read_to_string(root.join("tests/scenarios/night/lingzu/twelve_nights.toml"))
            .expect("scenario");
    let sc = Scenario::parse(&sc_text).expect("scenario parses");
    let phases = sc.phases.len();
    sc.run(&rules).expect("the game replays as written");

    let runs = 200;
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        black_box(sc.run(black_box(&rules))).expect("replay");
        times.push(t.elapsed());
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let mean = times.iter().map(|d| ms(*d)).sum::<f64>() / runs as f64;
    println!(
        "灵族杀 rule file [engine] load + validate: {:.3} ms",
        ms(load)
    );
    println!(
        "灵族杀 12-night replay ({phases} phases, {runs} runs): median {:.3} ms, mean {:.3} ms, max {:.3} ms (target < 50 ms)",
        ms(times[runs / 2]),
        mean,
        ms(times[runs - 1])
    );
}
