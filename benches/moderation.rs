//! Benchmark: moderation scan (run with `cargo bench --bench moderation`).
//!
//! Two corpora of ~64 MB each, scanned post by post: ordinary (the labelled sets' lines,
//! weighted towards ordinary game talk, mixed with seat numbers, times and filler so no two
//! posts are equal) and violation-dense (only the labelled violations of `labelled.tsv` and
//! the issue-28 corpus, every post made of them):
//!
//! - `plain`: one Aho–Corasick pass (DFA, overlapping) with the word lists' entries as
//!   written, over the raw text: no normalisation, no allow-list, no rules — the peer.
//! - `bansha`: [`Detector::scan`] with everything on: NFKC + folds, case, traditional →
//!   simplified, noise and repeats, the span map, allow-lists and player names, jieba for
//!   short words, the rule patterns.
//!
//! Target: `bansha` at 100 MB/s of post text or more. Each figure is given by the wall clock
//! and by the thread's CPU clock: on a shared machine only the second compares across runs.

use std::hint::black_box;
use std::time::{Duration, Instant};

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use bansha::moderation::{Detector, lexicon};

const TARGET_BYTES: usize = 64 << 20;

/// Post texts of the issue-28 corpus (`tests/moderation/{train,dev,test}.tsv`): the
/// labelled ones (`positives`) or the clean ones.
fn issue28(positives: bool) -> Vec<&'static str> {
    [
        include_str!("../tests/moderation/train.tsv"),
        include_str!("../tests/moderation/dev.tsv"),
        include_str!("../tests/moderation/test.tsv"),
    ]
    .into_iter()
    .flat_map(str::lines)
    .filter(|l| !l.starts_with('#'))
    .filter_map(|l| l.split_once('\t'))
    .filter(|(label, _)| (*label != "-") == positives)
    .map(|(_, text)| text)
    .collect()
}

/// `dense`: every post made of violations only (the corpora's positives, no filler); else
/// mostly ordinary talk (≈ 1 post in 8 has something).
fn corpus(dense: bool) -> Vec<String> {
    let labelled = include_str!("../tests/moderation/labelled.tsv");
    // Post text as the store keeps it: the lines given as PC HTML are left out.
    let mut lines: Vec<&str> = labelled
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter(|l| !dense || !l.starts_with("-\t"))
        .filter_map(|l| l.split('\t').nth(1))
        .filter(|t| !t.contains("</"))
        .collect();
    lines.extend(issue28(true));
    if !dense {
        // Most real posts are ordinary talk: weight it up.
        let mut ordinary: Vec<&str> = labelled
            .lines()
            .filter(|l| l.starts_with("-\t"))
            .filter_map(|l| l.split('\t').nth(1))
            .collect();
        ordinary.extend(issue28(false));
        for _ in 0..6 {
            lines.extend(ordinary.iter().copied());
        }
    }
    let filler = [
        "我觉得今天的票型很有意思，大家可以再看看昨天的发言。",
        "投票对象：3号\n投票理由：发言前后矛盾，警徽流也不合理。",
        "昨晚平安夜，说明女巫救人或者守卫守对了，今天先听听预言家怎么说。",
        "楼上说得对，但是我还有一点疑问：为什么他第一天不跳？",
    ];
    let mut rng = fastrand::Rng::with_seed(10);
    let mut out = Vec::new();
    let mut total = 0;
    while total < TARGET_BYTES {
        let mut p = String::new();
        for _ in 0..rng.usize(1..4) {
            p.push_str(lines[rng.usize(..lines.len())]);
            if dense {
                p.push('\n');
            } else {
                p.push_str(filler[rng.usize(..filler.len())]);
            }
            p.push_str(&format!("{}号，{}楼", rng.u32(1..20), rng.u32(1..3000)));
        }
        total += p.len();
        out.push(p);
    }
    out
}

/// This thread's CPU time so far (`/proc/thread-self/schedstat`, nanoseconds on a CPU), or
/// `None` where the kernel does not say. On a shared machine the wall clock counts the time
/// other processes held the core; the CPU time does not.
fn thread_cpu() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// The best of `runs` passes: (wall seconds, CPU seconds if known, the pass's count).
fn best_of<F: FnMut() -> usize>(runs: usize, mut f: F) -> (f64, Option<f64>, usize) {
    let mut best = f64::MAX;
    let mut best_cpu: Option<f64> = None;
    let mut n = 0;
    for _ in 0..runs {
        let (t, c) = (Instant::now(), thread_cpu());
        n = black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (c, thread_cpu()) {
            let cpu = (b - a).as_secs_f64();
            best_cpu = Some(best_cpu.map_or(cpu, |x| x.min(cpu)));
        }
    }
    (best, best_cpu, n)
}

/// `MB/s` by the CPU clock, or a dash.
fn per_cpu(mb: f64, cpu: Option<f64>) -> String {
    cpu.map_or("-".into(), |c| format!("{:.1}", mb / c))
}

fn main() {
    for dense in [false, true] {
        run(dense);
    }
}

/// Both scanners over one corpus ([`corpus`]).
fn run(dense: bool) {
    let posts = corpus(dense);
    let bytes: usize = posts.iter().map(String::len).sum();
    let mb = bytes as f64 / 1e6;
    let kind = if dense { "violation-dense" } else { "ordinary" };
    println!("{kind} corpus: {} posts, {mb:.1} MB", posts.len());

    let mut words: Vec<String> = Vec::new();
    for f in lexicon::builtin_lists() {
        if f.category.is_some() {
            words.extend(
                lexicon::parse(f.name, f.text)
                    .unwrap()
                    .into_iter()
                    .map(|e| e.phrase),
            );
        }
    }
    let plain = AhoCorasick::builder()
        .match_kind(MatchKind::Standard)
        .kind(Some(AhoCorasickKind::DFA))
        .build(&words)
        .unwrap();
    let players: Vec<String> = [
        "傻树",
        "草莓",
        "白色防御者",
        "取酒",
        "沙雕鱼",
        "狼王之王",
        "可乐",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let t = Instant::now();
    let d = Detector::new(&players).unwrap();
    let build = t.elapsed();
    // Warm the lazily built tables (t2s, jieba, regexes) outside the timing.
    for p in posts.iter().take(2000) {
        black_box(d.scan(p));
    }

    let (tp, cp, np) = best_of(3, || {
        posts
            .iter()
            .map(|p| plain.find_overlapping_iter(p.as_str()).count())
            .sum()
    });
    let (tb, cb, nb) = best_of(3, || posts.iter().map(|p| d.scan(p).len()).sum());
    let flagged = posts.iter().filter(|p| !d.scan(p).is_empty()).count();
    println!(
        "plain aho-corasick (no normalisation): {:>7.1} MB/s wall, {:>7} MB/s CPU  ({np} raw matches)",
        mb / tp,
        per_cpu(mb, cp)
    );
    println!(
        "bansha scan (all normalisation):       {:>7.1} MB/s wall, {:>7} MB/s CPU  ({nb} hits, {flagged} of {} posts flagged)",
        mb / tb,
        per_cpu(mb, cb),
        posts.len()
    );
    println!("detector build: {:.1} ms", build.as_secs_f64() * 1e3);
    // The figure is one core's throughput: by the CPU clock where the kernel gives it (on a
    // quiet machine the two agree), else by the wall clock.
    let rate = cb.map_or(mb / tb, |c| mb / c);
    println!(
        "target ≥ 100 MB/s: {}",
        if rate >= 100.0 { "met" } else { "NOT met" }
    );
}
