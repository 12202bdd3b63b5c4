//! Benchmark: `bansha import` side by side with its Python + Lexbor peer (issue 13).
//!
//! Run with `cargo bench --bench import_peer [-- OPTIONS]`. It writes a thread of saved PC
//! pages (`support/thread.rs`, the full page chrome a browser saves: 200 pages of 10 posts,
//! ≈ 11.6 MB) into a folder, then runs, alternately and `--runs` times each, the whole
//! `bansha import` process and the whole peer process
//! (`benches/peers/import_selectolax.py`: selectolax + sqlite3) on the same files, each
//! into a fresh database, and prints the medians (wall time, and CPU time and peak memory
//! from `wait4`, which a loaded machine does not inflate) and their ratios. Both databases are then
//! checked to hold the same posts (pid, floor, author, uid, time), and one more import with
//! the parser's debug log on counts the pages and posts html5ever read (the fast path's
//! declines; none on these stock-shaped pages, issue 22).
//!
//! Options:
//! * `--pages N` (200): pages to write; above 200 the pages are spread over threads of
//!   200 pages (`--pages 5000` is a 50,000-post archive of 25 threads).
//! * `--runs N` (5): runs of each tool.
//! * `--dir DIR`: write the pages there and keep them (default: a temporary folder).
//! * `--write-only`: write the pages and the game config, run nothing.
//! * `--no-peer`: run bansha only (no Python needed).
//! * `--bansha PATH`: the binary to run (default: the one this bench was built with).
//!
//! The peer's interpreter is `$PEER_PYTHON`, default `/tmp/selectolax-venv/bin/python`
//! (see the script's header for the two-line setup). Run the bench under `nice -n -10` on
//! a shared machine and record `uptime` with the figures.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

#[path = "support/thread.rs"]
mod thread;

use thread::Thread;

const THREAD_PAGES: u32 = 200;

struct Opts {
    pages: u32,
    runs: usize,
    dir: Option<PathBuf>,
    write_only: bool,
    peer: bool,
    bansha: PathBuf,
}

fn opts() -> Opts {
    let mut o = Opts {
        pages: 200,
        runs: 5,
        dir: None,
        write_only: false,
        peer: true,
        bansha: PathBuf::from(env!("CARGO_BIN_EXE_bansha")),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--pages" => o.pages = val().parse().expect("--pages N"),
            "--runs" => o.runs = val().parse().expect("--runs N"),
            "--dir" => o.dir = Some(PathBuf::from(val())),
            "--bansha" => o.bansha = PathBuf::from(val()),
            "--write-only" => o.write_only = true,
            "--no-peer" => o.peer = false,
            "--bench" => {} // added by `cargo bench`
            other => panic!("unknown option {other}"),
        }
    }
    o
}

/// The threads of an archive of `pages` pages: threads of 200 pages, the last one shorter.
fn threads(pages: u32) -> Vec<Thread> {
    let mut out = Vec::new();
    let mut left = pages;
    let mut i = 0u64;
    while left > 0 {
        let n = left.min(THREAD_PAGES);
        out.push(Thread {
            tid: thread::BENCH.tid + i,
            pages: n,
            ppp: thread::BENCH.ppp,
            pid_base: thread::BENCH.pid_base + i * 100_000,
        });
        left -= n;
        i += 1;
    }
    out
}

/// Write the pages and the game config; returns the page files in import order.
fn write_archive(dir: &Path, threads: &[Thread]) -> Vec<PathBuf> {
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    let mut files = Vec::new();
    let mut bytes = 0usize;
    for t in threads {
        for p in 1..=t.pages {
            let f = pages.join(format!("thread-{}-{p:03}.html", t.tid));
            let b = t.saved_page(p);
            bytes += b.len();
            std::fs::write(&f, b).unwrap();
            files.push(f);
        }
    }
    let tids: Vec<String> = threads.iter().map(|t| t.tid.to_string()).collect();
    std::fs::write(
        dir.join("game.toml"),
        format!(
            "[forum]\nbase_url = \"https://bbs.example.com/\"\n\n[game]\nname = \"bench\"\n\
             rules = \"rules.toml\"\ndb = \"bansha.sqlite\"\n\n[[day]]\nnumber = 1\n\
             discussion = [{}]\nopens = \"2024-03-01 00:00\"\ncloses = \"2024-03-30 21:00\"\n",
            tids.join(", ")
        ),
    )
    .unwrap();
    println!(
        "{} pages, {} posts, {:.1} MB in {}",
        files.len(),
        threads.iter().map(Thread::posts).sum::<u32>(),
        bytes as f64 / 1e6,
        pages.display()
    );
    files
}

fn remove_db(db: &Path) {
    for ext in ["", "-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(ext);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}

/// What one process cost: wall seconds, CPU seconds (user + system), peak RSS in KiB.
struct Cost {
    wall: f64,
    cpu: f64,
    max_rss_kb: u64,
}

/// Run `cmd` to its end and take its cost from `wait4` (exact CPU time and peak memory of
/// that process, whatever else the machine runs).
fn run(cmd: Command) -> Cost {
    run_logged(cmd).0
}

/// [`run`], handing back what the process wrote to stderr.
#[allow(clippy::zombie_processes)] // reaped by wait4, which std does not offer
fn run_logged(mut cmd: Command) -> (Cost, String) {
    let err = std::env::temp_dir().join(format!("import-peer-err-{}.txt", std::process::id()));
    let t = Instant::now();
    let child = cmd
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("start the process");
    let mut status = 0;
    // SAFETY: wait4 on our own child, with valid pointers to locals.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    let wall = t.elapsed().as_secs_f64();
    assert_eq!(pid, child.id() as libc::pid_t, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{:?} failed: {}",
        cmd.get_program(),
        std::fs::read_to_string(&err).unwrap_or_default()
    );
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cost = Cost {
        wall,
        cpu: secs(ru.ru_utime) + secs(ru.ru_stime),
        max_rss_kb: ru.ru_maxrss as u64,
    };
    let log = std::fs::read_to_string(&err).unwrap_or_default();
    let _ = std::fs::remove_file(&err);
    (cost, log)
}

/// One more `bansha import` with the parser's debug log on: how many pages html5ever read
/// whole and how many posts it read alone (issue 22: none, on stock pages).
fn html5ever_share(mut cmd: Command) -> (usize, usize) {
    cmd.env("RUST_LOG", "bansha::discuz=debug");
    let (_, log) = run_logged(cmd);
    let pages = log.matches("fast path declined the page").count();
    let posts = log
        .lines()
        .filter(|l| l.contains("posts read alone through html5ever"))
        .filter_map(|l| {
            l.split("posts=")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse::<usize>()
                .ok()
        })
        .sum();
    (pages, posts)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// (pid, floor, author, uid, time) of a post.
type Row = (i64, Option<i64>, String, Option<i64>, i64);

/// Every post, by pid.
fn rows(db: &Path, sql: &str) -> Vec<Row> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut st = c.prepare(sql).unwrap();
    st.query_map([], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

fn main() {
    let o = opts();
    let dir = o.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("bansha-import-peer-{}", std::process::id()))
    });
    let threads = threads(o.pages);
    let files = write_archive(&dir, &threads);
    if o.write_only {
        println!(
            "config {}; import with: bansha import --config {} --saved-at '{}' {}/*.html",
            dir.join("game.toml").display(),
            dir.join("game.toml").display(),
            thread::SAVED_AT_LOCAL,
            dir.join("pages").display()
        );
        return;
    }
    let posts: usize = threads.iter().map(|t| t.posts() as usize).sum();
    let bansha_db = dir.join("bansha.sqlite");
    let peer_db = dir.join("peer.sqlite");
    let python =
        std::env::var("PEER_PYTHON").unwrap_or_else(|_| "/tmp/selectolax-venv/bin/python".into());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/peers/import_selectolax.py");
    // The pages' own modification time is the peer's `first_seen`; bansha gets the same
    // moment through --saved-at (it is the base for 昨天 HH:MM).
    let bansha_cmd = || {
        let mut c = Command::new(&o.bansha);
        c.arg("import")
            .arg("--config")
            .arg(dir.join("game.toml"))
            .arg("--saved-at")
            .arg(thread::SAVED_AT_LOCAL)
            .args(&files);
        c
    };
    let peer_cmd = || {
        let mut c = Command::new(&python);
        c.arg(&script).arg(&peer_db).arg(dir.join("pages"));
        c
    };
    let (mut bansha, mut peer): (Vec<Cost>, Vec<Cost>) = (Vec::new(), Vec::new());
    for i in 0..o.runs {
        // Alternate which tool goes first, so neither always finds a warmer machine.
        for peer_turn in [i % 2 == 1, i % 2 == 0] {
            let (who, c) = if peer_turn {
                if !o.peer {
                    continue;
                }
                remove_db(&peer_db);
                ("peer  ", run(peer_cmd()))
            } else {
                remove_db(&bansha_db);
                ("bansha", run(bansha_cmd()))
            };
            println!(
                "  run {}: {who} wall {:.3} s, CPU {:.3} s, max RSS {:.1} MB",
                i + 1,
                c.wall,
                c.cpu,
                c.max_rss_kb as f64 / 1024.0
            );
            if peer_turn { &mut peer } else { &mut bansha }.push(c);
        }
    }
    let b = rows(
        &bansha_db,
        "SELECT pid, floor, author, uid, time FROM posts ORDER BY pid",
    );
    assert_eq!(b.len(), posts, "bansha stored every post");
    let summary = |name: &str, v: &[Cost]| -> (f64, f64) {
        let wall = median(&mut v.iter().map(|c| c.wall).collect::<Vec<_>>());
        let cpu = median(&mut v.iter().map(|c| c.cpu).collect::<Vec<_>>());
        let rss = v.iter().map(|c| c.max_rss_kb).max().unwrap_or(0);
        println!(
            "{name}: median wall {wall:.3} s, median CPU {cpu:.3} s of {} runs ({:.0} posts/s of CPU), peak RSS {:.1} MB",
            v.len(),
            posts as f64 / cpu,
            rss as f64 / 1024.0
        );
        (wall, cpu)
    };
    let (bw, bc) = summary("bansha import", &bansha);
    remove_db(&bansha_db);
    let (whole, alone) = html5ever_share(bansha_cmd());
    println!(
        "html5ever: {whole} of {} pages read whole, {alone} of {posts} posts read alone",
        files.len()
    );
    if o.peer {
        let p = rows(
            &peer_db,
            "SELECT pid, floor, author, uid, time FROM posts ORDER BY pid",
        );
        assert_eq!(p, b, "the peer and bansha read the same posts");
        let (pw, pc) = summary("peer (Python + selectolax/Lexbor + sqlite3)", &peer);
        println!("peer / bansha: wall {:.2}x, CPU {:.2}x", pw / bw, pc / bc);
    }
    if o.dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
