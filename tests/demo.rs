//! `bansha demo`: the README's first command runs the whole pipeline (test forum → HTTP →
//! parser → store → tally/activity/elevator) on the embedded sample game.
//! Expected outcomes below were counted by hand from `config/demo-forum.toml`.

use serde_json::Value;

use crate::common::{bansha, scratch_dir};

#[test]
fn demo_syncs_the_sample_game_over_http_and_reports_it() {
    let dir = scratch_dir("demo");
    let (code, out, err) = bansha(&["demo", "--dir", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "stdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("382 posts stored"), "{out}");

    // The store holds what the forum served: every thread, every post.
    let cfg = bansha::config::Config::load(&dir.join("game.toml")).unwrap();
    let store = bansha::store::Store::open(&cfg.db_path()).unwrap();
    let total: usize = cfg
        .threads()
        .iter()
        .map(|(_, _, tid)| store.posts(&cfg.forum_key(), *tid).unwrap().len())
        .sum();
    assert_eq!(total, 382);

    let config = dir.join("game.toml");
    let config = config.to_str().unwrap();
    let json = |args: &[&str]| -> Value {
        let (code, out, err) = bansha(args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    };

    // Day 1 elects the 警长: 白色防御者 9 (incl. a 改票 and a corrected unknown name) vs 傻树 6.
    let t1 = json(&[
        "tally", "--config", config, "--day", "1", "--format", "json",
    ]);
    assert_eq!(t1["mode"], "election");
    assert_eq!(t1["outcome"]["kind"], "elected");
    assert_eq!(t1["outcome"]["player"], "白色防御者");
    let votes = |t: &Value, who: &str| {
        t["totals"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["target"] == who)
            .map(|x| x["votes"].as_f64().unwrap())
    };
    assert_eq!(votes(&t1, "白色防御者"), Some(9.0));
    assert_eq!(votes(&t1, "傻树"), Some(6.0));

    // Day 2: the 警长's ballot counts 2; 星河 8 vs 老王 7; a last-hour 改票, a vote for a dead
    // player and a dead player's ballot are rejected.
    let t2 = json(&[
        "tally", "--config", config, "--day", "2", "--format", "json",
    ]);
    assert_eq!(t2["outcome"]["kind"], "eliminated");
    assert_eq!(t2["outcome"]["player"], "星河");
    assert_eq!(votes(&t2, "星河"), Some(8.0));
    assert_eq!(votes(&t2, "老王"), Some(7.0));
    let invalid: Vec<&str> = t2["ballots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["valid"] == false && b["voter"] != "[075]导演A")
        .map(|b| b["voter"].as_str().unwrap())
        .collect();
    assert_eq!(invalid, ["橘子汽水", "夜未央", "千里共婵娟"]);

    // Day 2 activity: two 潜水 players, one invalid-only voter, one 诈尸 in two threads.
    let a2 = json(&[
        "activity", "--config", config, "--day", "2", "--format", "json",
    ]);
    assert_eq!(
        a2["accelerated"], false,
        "7 of 17 requested 加速 before the deadline"
    );
    let mut got: Vec<(String, String)> = Vec::new();
    for p in a2["players"].as_array().unwrap() {
        for v in p["violations"].as_array().unwrap() {
            got.push((
                p["name"].as_str().unwrap().into(),
                v["rule"].as_str().unwrap().into(),
            ));
        }
    }
    got.sort();
    let want: Vec<(String, String)> = [
        ("一只咸鱼", "few-posts"),
        ("一只咸鱼", "no-vote"),
        ("夜未央", "zombie-post"),
        ("夜未央", "zombie-post"),
        ("橘子汽水", "no-vote"),
        ("花卷", "few-posts"),
        ("花卷", "no-vote"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&dir);
}
