//! Helpers shared by the integration tests.

use std::path::PathBuf;
use std::process::Command;

/// A fresh, empty scratch folder for one test (unique per test name and process). It is
/// removed when the test's thread ends, unless the test panicked there: a failing test's
/// folder stays for inspection (its path is printed).
pub fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("bansha-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create scratch dir");
    remove_at_thread_end(&d);
    d
}

thread_local! {
    /// This thread's scratch folders; dropped (and removed) when the thread ends, which for
    /// the test harness is when the test has finished.
    static SCRATCH: std::cell::RefCell<Scratch> = const {
        std::cell::RefCell::new(Scratch { dirs: Vec::new() })
    };
    /// A panic happened on this thread (set by the hook installed in `remove_at_thread_end`).
    static PANICKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

struct Scratch {
    dirs: Vec<PathBuf>,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let panicked = PANICKED.try_with(|p| p.get()).unwrap_or(true);
        for d in &self.dirs {
            if panicked {
                eprintln!("scratch folder kept: {}", d.display());
            } else {
                let _ = std::fs::remove_dir_all(d);
            }
        }
    }
}

fn remove_at_thread_end(d: &std::path::Path) {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _ = PANICKED.try_with(|p| p.set(true));
            default(info);
        }));
    });
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        if !s.dirs.iter().any(|x| x == d) {
            s.dirs.push(d.to_path_buf());
        }
    });
}

/// Run the real `bansha` binary; returns (exit code, stdout, stderr).
pub fn bansha(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bansha"))
        .args(args)
        .output()
        .expect("run bansha");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A game folder for the night engine's CLI tests: `game.toml` on a real rule file with one
/// `[[player]]` per seat (uids from `uid_base`, seats from 1), plus `extra` config (days,
/// events) after the players. Removed when dropped.
pub struct NightGame {
    pub dir: PathBuf,
}

impl Drop for NightGame {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl NightGame {
    pub fn new(
        name: &str,
        rules: &str,
        game: &str,
        seats: &[(&str, &str)],
        uid_base: u32,
        extra: &str,
    ) -> NightGame {
        let dir = scratch_dir(name);
        let rules = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("rules")
            .join(rules);
        let mut cfg = format!(
            "[forum]\nbase_url = \"http://127.0.0.1:18080/\"\n[game]\nname = \"{game}\"\nrules = \"{}\"\ndb = \"game.sqlite\"\ndirectors = [\"导演\"]\n",
            rules.display()
        );
        for (i, (n, r)) in seats.iter().enumerate() {
            cfg.push_str(&format!(
                "[[player]]\nname = \"{n}\"\nuid = {}\nseat = {}\nrole = \"{r}\"\n",
                uid_base as usize + i,
                i + 1
            ));
        }
        cfg.push_str(extra);
        std::fs::write(dir.join("game.toml"), cfg).unwrap();
        NightGame { dir }
    }

    pub fn cfg(&self) -> String {
        self.dir.join("game.toml").display().to_string()
    }

    /// Write `text` to `name` in the game folder; returns its path.
    pub fn file(&self, name: &str, text: &str) -> String {
        let p = self.dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }

    /// `bansha night --night n --actions <actions> --format <format>`.
    pub fn night(&self, n: u32, actions: &str, format: &str) -> (i32, String, String) {
        let f = self.file(&format!("n{n}.toml"), actions);
        bansha(&[
            "night",
            "--config",
            &self.cfg(),
            "--night",
            &n.to_string(),
            "--actions",
            &f,
            "--format",
            format,
        ])
    }

    /// `bansha tally --day N --at AT --format json` plus `extra` (`--confirm`), which must
    /// succeed.
    pub fn tally_json(&self, day: u32, at: &str, extra: &[&str]) -> serde_json::Value {
        let cfg = self.cfg();
        let day = day.to_string();
        let mut args = vec!["tally", "--config", &cfg, "--day", &day, "--at", at];
        args.extend_from_slice(extra);
        args.extend(["--format", "json"]);
        let (code, out, err) = bansha(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    }

    /// `bansha state --format json` (optionally `--at`), which must succeed.
    pub fn state_json(&self, at: Option<&str>) -> serde_json::Value {
        let cfg = self.cfg();
        let mut args = vec!["state", "--config", &cfg, "--format", "json"];
        if let Some(a) = at {
            args.extend(["--at", a]);
        }
        let (code, out, err) = bansha(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap()
    }
}

impl NightGame {
    /// Store day `tid`'s 投票帖 on the forum at `base`: one ballot for `target` from each of
    /// `voters` at noon of `date`; a voter's uid is `uid_base` + their seat index in `seats`.
    pub fn store_votes(
        &self,
        base: &str,
        (seats, uid_base): (&[(&str, &str)], u64),
        (tid, date): (u64, &str),
        voters: &[&str],
        target: &str,
    ) {
        let mut posts = vec![page_post(
            1,
            tid * 100,
            "导演",
            1,
            &format!("{date} 09:00"),
            "投票帖",
        )];
        for (i, v) in voters.iter().enumerate() {
            let uid = uid_base + seats.iter().position(|(n, _)| n == v).unwrap() as u64;
            posts.push(page_post(
                2 + i as u32,
                tid * 100 + 1 + i as u64,
                v,
                uid,
                &format!("{date} 12:00"),
                &format!("投票对象：{target}\n投票理由：票他"),
            ));
        }
        let source = format!("{base}forum.php?mod=viewthread&tid={tid}");
        store_one_page(&self.dir.join("game.sqlite"), base, tid, posts, &source);
    }
}

/// The player `name` in a `state --format json` answer.
pub fn state_player<'a>(st: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    st["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no player {name} in {st}"))
}

/// A scenario's `rule` quotation, checked two ways (issue 16): it is a quotation of the rule
/// post, or a reading labelled as such; and it is the clause a verdict of the scenario
/// cites. Quotation is judged as `shared/tools/check-clauses` does: the sentence is cut at
/// the marks a quotation uses for omissions and joins, and every piece of six or more
/// characters must occur in the post (whitespace, 【】 and quote styles ignored).
pub mod quote {
    use std::path::Path;

    // One implementation of the quotation rule: the engine crate's, re-exported by the
    // library (the rule-file test and the engine's scenario test use it too).
    pub use bansha::rules::clauses::{check_quotation, normalize as norm, pieces};

    /// The rule post named by a rule file's `[meta] source`, normalised.
    pub fn post_text(source: &str) -> String {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(bansha::rules::POSTS_DIR)
            .join(source);
        let t = std::fs::read_to_string(&p)
            .unwrap_or_else(|e| panic!("{}: the rule post: {e}", p.display()));
        norm(&t)
    }

    /// Err unless one of `cited` (the clauses the verdicts cite) shares a piece with
    /// `rule`: the scenario's sentence is one the code actually applied.
    pub fn check_cited<'a>(
        rule: &str,
        cited: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), String> {
        let cited: Vec<&str> = cited.into_iter().filter(|c| !c.trim().is_empty()).collect();
        // Every piece of the sentence is in a cited clause, or holds a piece of one.
        let cited_pieces: Vec<(String, Vec<String>)> =
            cited.iter().map(|c| (norm(c), pieces(c))).collect();
        let uncited: Vec<String> = pieces(rule)
            .into_iter()
            .filter(|p| {
                !cited_pieces.iter().any(|(nc, cp)| {
                    nc.contains(p.as_str()) || cp.iter().any(|q| p.contains(q.as_str()))
                })
            })
            .collect();
        if uncited.is_empty() {
            Ok(())
        } else {
            let mut cs: Vec<&str> = cited.clone();
            cs.sort();
            cs.dedup();
            Err(format!(
                "`rule` 「{rule}」: 「{}」 is in no clause a verdict cites; they cite: {cs:?}",
                uncited.join("」「")
            ))
        }
    }

    /// The citation checks both scenario harnesses make: `rule` is cited by a verdict (or,
    /// with `applied = false`, by none); every `context` sentence is a quotation of the
    /// post; every `not_applied` sentence is a quotation that no verdict cites. `by` names
    /// what cites (a verdict, the report) in the messages.
    pub fn check_scenario_citations(
        rule: &str,
        applied: bool,
        context: &[String],
        not_applied: &[String],
        source: &str,
        cited: &[&str],
        by: &str,
    ) -> Vec<String> {
        let mut errs = Vec::new();
        match (applied, check_cited(rule, cited.iter().copied())) {
            (true, Err(e)) => errs.push(e),
            (false, Ok(())) => errs.push(format!(
                "`rule` 「{rule}」 is cited by {by}, but the case says it does not apply"
            )),
            _ => {}
        }
        let post = post_text(source);
        for c in context {
            if let Err(e) = check_quotation(c, &post) {
                errs.push(format!("context: {e}"));
            }
        }
        for na in not_applied {
            if let Err(e) = check_quotation(na, &post) {
                errs.push(format!("not_applied: {e}"));
            }
            if check_cited(na, cited.iter().copied()).is_ok() {
                errs.push(format!("not_applied 「{na}」 is cited by {by}"));
            }
        }
        errs
    }
}

/// A post as a parsed page shows it (Asia/Shanghai time `YYYY-MM-DD HH:MM`), for tests that
/// store pages directly.
pub fn page_post(
    floor: u32,
    pid: u64,
    author: &str,
    uid: u64,
    time: &str,
    text: &str,
) -> bansha::model::PagePost {
    let tz: chrono_tz::Tz = "Asia/Shanghai".parse().unwrap();
    bansha::model::PagePost {
        pid: Some(pid),
        floor: Some(floor),
        floor_label: format!("{floor}#"),
        author: author.into(),
        uid: Some(uid),
        time: bansha::time::parse_local(time, tz).unwrap(),
        edit: None,
        quote: None,
        html: text.into(),
        text: text.into(),
        red: String::new(),
        large: String::new(),
        locked: None,
        deleted: false,
        duplicate: false,
    }
}

/// Store `posts` as page 1 (of 1) of thread `tid` on the forum at `base`, as fetched from
/// `source`.
pub fn store_one_page(
    db: &std::path::Path,
    base: &str,
    tid: u64,
    posts: Vec<bansha::model::PagePost>,
    source: &str,
) {
    let mut s = bansha::store::Store::open(db).unwrap();
    let page = bansha::model::ThreadPage {
        tid,
        title: format!("thread {tid}"),
        page: 1,
        total_pages: 1,
        posts,
        author_filtered: false,
        viewer_uid: Some(1),
    };
    let info = bansha::store::FetchInfo {
        source: source.to_string(),
        kind: bansha::store::SourceKind::Html,
        page: 1,
        fetched_at: 1_772_700_000,
    };
    s.store_page(&bansha::config::forum_key(base), &page, &info)
        .unwrap();
}

/// The 12-seat 075 game the night and red-card tests play: (name, role), in seat order.
pub const SEATS_075: &[(&str, &str)] = &[
    ("狼1", "狼人"),
    ("狼2", "狼人"),
    ("预言", "预言家"),
    ("女巫", "女巫"),
    ("村长", "村长"),
    ("医生", "医生"),
    ("猎人", "猎人"),
    ("民1", "村民"),
    ("民2", "村民"),
    ("民3", "村民"),
    ("丘比", "丘比特"),
    ("混血", "混血儿"),
];
