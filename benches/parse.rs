//! Benchmark: parse (run with `cargo bench --bench parse`).
//!
//! Builds a 2,000-post thread in memory — 200 PC pages of 10 posts (X3.4 markup, quotes,
//! jammer, colours, sizes, relative times) and the same thread as 200 mobile-API pages —
//! and reports pages/s and MB/s for each. Target: the 200 PC pages well under 1 s.

use std::time::{Duration, Instant};

use bansha::config::Charset;
use bansha::discuz::{self, ParseContext};

#[path = "support/thread.rs"]
mod thread;

const PAGES: u32 = thread::BENCH.pages;
const PPP: u32 = thread::BENCH.ppp;

/// CPU time of this thread in seconds (Linux `/proc/thread-self/schedstat`), so that the
/// figures mean something on a machine shared with other builds; `None` elsewhere.
fn cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn run(label: &str, pages: &[Vec<u8>], parse: impl Fn(&[u8], &ParseContext) -> usize) -> Duration {
    let bytes: usize = pages.iter().map(Vec::len).sum();
    let ctx = ParseContext {
        source: "bench".into(),
        tid: None,
        page: None,
        fetched_at: 1709337600,
        tz: chrono_tz::Asia::Shanghai,
        charset: Charset::Auto,
    };
    // Warm-up, and a check that every post is read.
    let posts: usize = pages.iter().map(|p| parse(p, &ctx)).sum();
    assert_eq!(posts, (PAGES * PPP) as usize, "{label}: every post parsed");
    let rounds = 3;
    let mut best = Duration::MAX;
    let mut best_cpu = f64::MAX;
    for _ in 0..rounds {
        let t = Instant::now();
        let c0 = cpu_secs();
        for p in pages {
            std::hint::black_box(parse(p, &ctx));
        }
        best = best.min(t.elapsed());
        if let (Some(a), Some(b)) = (c0, cpu_secs()) {
            best_cpu = best_cpu.min(b - a);
        }
    }
    let secs = best.as_secs_f64();
    let cpu = if best_cpu < f64::MAX {
        format!(
            "; CPU {:.3} s = {:.0} pages/s, {:.1} MB/s",
            best_cpu,
            pages.len() as f64 / best_cpu,
            bytes as f64 / 1e6 / best_cpu
        )
    } else {
        String::new()
    };
    println!(
        "{label}: {} pages, {} posts, {:.1} MB; wall {:.3} s (best of {rounds}) = {:.0} pages/s, {:.1} MB/s{cpu}",
        pages.len(),
        posts,
        bytes as f64 / 1e6,
        secs,
        pages.len() as f64 / secs,
        bytes as f64 / 1e6 / secs
    );
    best
}

fn main() {
    let t = thread::BENCH;
    let pc: Vec<Vec<u8>> = (1..=PAGES).map(|p| t.pc_page(p)).collect();
    let api: Vec<Vec<u8>> = (1..=PAGES).map(|p| t.api_page(p)).collect();
    run("  (html5ever tree build only)", &pc, |b, _| {
        let d = scraper::Html::parse_document(std::str::from_utf8(b).unwrap());
        std::hint::black_box(&d);
        PPP as usize
    });
    let html = run("PC HTML ", &pc, |b, c| {
        discuz::parse_page(b, c).expect("pc page").posts.len()
    });
    run("API JSON", &api, |b, c| {
        discuz::parse_page(b, c).expect("api page").posts.len()
    });
    let gbk: Vec<Vec<u8>> = pc
        .iter()
        .map(|p| {
            let s = String::from_utf8(p.clone())
                .unwrap()
                .replace("charset=utf-8", "charset=gbk");
            encoding_rs::GBK.encode(&s).0.into_owned()
        })
        .collect();
    run("PC HTML (GBK)", &gbk, |b, c| {
        discuz::parse_page(b, c).expect("gbk page").posts.len()
    });
    if html >= Duration::from_secs(1) {
        println!(
            "WARNING: 200 PC pages took {:.3} s (target: well under 1 s)",
            html.as_secs_f64()
        );
    }
}
