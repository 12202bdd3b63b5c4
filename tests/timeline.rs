//! Integration tests: one timeline for every report (issue 23). The config's facts, the
//! director's events in time order, the card ledger's red cards and the engine's recorded
//! outs are read alike by `activity`, `flags`, `cards`, `tally` and `state`; a timeline that
//! does not replay makes a report fail with the reason, never answer from the config alone.
//! Through the `bansha` binary with 075's rule file; expected values from the rule post:
//! 「d. 被指杀的角色出局」, 诈尸 (a player out who posts), 「同一阵营的角色累计获得两张或以上红牌时，
//! 阵营判负。」

use serde_json::Value;

use crate::common::{SEATS_075, bansha};
use crate::red_cards::{Game, N0, player, post, store_thread, uid, votes};

/// 075 night 1: the wolves 指杀 民3.
const N1: &str = r#"
[[action]]
actor = "狼2"
skill = "杀人"
targets = ["民3"]
[[action]]
actor = "预言"
skill = "预言"
targets = ["混血"]
"#;

/// `who` posts in day `day`'s 讨论帖 at `time`.
fn talk(g: &Game, day: u32, who: &str, time: &str) {
    let opens = format!("2026-03-0{} 09:00", 2 * day);
    store_thread(
        &g.db(),
        700 + u64::from(day),
        vec![
            post(1, 9000 + u64::from(day), "导演", 1, &opens, "讨论帖"),
            post(
                2,
                9100 + u64::from(day),
                who,
                uid(SEATS_075, who),
                time,
                "我还在，大家听我说",
            ),
        ],
    );
}

fn zombie_in_activity(g: &Game, day: u32, who: &str) -> bool {
    let a = g.json(&["activity", "--day", &day.to_string()]);
    a["players"].as_array().unwrap().iter().any(|p| {
        p["name"] == who
            && p["violations"]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v["rule"] == "zombie-post")
    })
}

fn zombie_flagged(g: &Game, who: &str) -> bool {
    let flags = g.json(&["flags"]);
    flags
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["author"] == who && f["category"] == "zombie-post")
}

#[test]
fn a_player_knifed_at_night_who_posts_is_flagged_zombie_by_activity_and_flags() {
    let g = Game::new("tl-knifed", "rules/075-zhifou.toml", SEATS_075, "");
    assert_eq!(g.night(0, N0).0, 0);
    let (code, out, err) = g.night(1, N1);
    assert_eq!(code, 0, "{out}{err}");
    votes(&g, SEATS_075, 2, &[]);
    talk(&g, 2, "民3", "2026-03-04 10:00");
    assert!(zombie_in_activity(&g, 2, "民3"));
    assert!(zombie_flagged(&g, "民3"));
}

#[test]
fn a_player_voted_out_by_a_confirmed_tally_who_posts_is_flagged_zombie() {
    let g = Game::new("tl-voted", "rules/075-zhifou.toml", SEATS_075, "");
    assert_eq!(g.night(0, N0).0, 0);
    votes(
        &g,
        SEATS_075,
        2,
        &[
            ("狼1", "2026-03-04 10:00", "民3"),
            ("狼2", "2026-03-04 10:05", "民3"),
            ("预言", "2026-03-04 10:10", "民3"),
        ],
    );
    let (code, out, err) = bansha(&[
        "tally",
        "--config",
        &g.cfg(),
        "--day",
        "2",
        "--at",
        "2026-03-05 21:01",
        "--confirm",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    votes(&g, SEATS_075, 3, &[]);
    talk(&g, 3, "民3", "2026-03-06 10:00");
    let st = g.state_json(None);
    assert_eq!(player(&st, "民3")["alive"], false, "{st}");
    assert!(zombie_in_activity(&g, 3, "民3"));
    assert!(zombie_flagged(&g, "民3"));
}

#[test]
fn cards_and_state_agree_on_the_camps_lost() {
    let g = Game::new("tl-camps", "rules/075-zhifou.toml", SEATS_075, "");
    assert_eq!(g.night(0, N0).0, 0);
    votes(&g, SEATS_075, 2, &[]);
    // 狼1 and 混血 (狼人阵营 by 认亲 狼1 at 开局): two reds in one camp.
    g.card("狼1", "red", "2026-03-04 10:00");
    g.card("混血", "red", "2026-03-04 11:00");
    let st = g.state_json(None);
    let cards = g.json(&["cards"]);
    assert!(
        st["camps_lost"]
            .as_array()
            .unwrap()
            .contains(&"狼人阵营".into()),
        "{st}"
    );
    assert_eq!(cards["camps_lost"], st["camps_lost"], "{cards}");
    // The 判罚公示 names the camp the cards lost, with the clause.
    let (code, bb, err) = bansha(&["cards", "--config", &g.cfg(), "--format", "bbcode"]);
    assert_eq!(code, 0, "{err}");
    assert!(bb.contains("[b]狼人阵营判负[/b]"), "{bb}");
}

/// The same three events, listed in time order and in another order.
fn events(order: [usize; 3]) -> String {
    let e = [
        "[[event]]\nkind = \"out\"\nplayer = \"民1\"\nat = \"2026-03-04 10:00\"\ncause = \"night\"\n",
        "[[event]]\nkind = \"revive\"\nplayer = \"民1\"\nat = \"2026-03-04 11:00\"\n",
        "[[event]]\nkind = \"out\"\nplayer = \"民1\"\nat = \"2026-03-04 12:00\"\ncause = \"night\"\n",
    ];
    order.iter().map(|&i| e[i]).collect()
}

fn state_of(name: &str, order: [usize; 3]) -> Value {
    let g = Game::new(name, "rules/075-zhifou.toml", SEATS_075, &events(order));
    assert_eq!(g.night(0, N0).0, 0);
    let mut st = g.state_json(None);
    // The folder (and so the config's path) differs between the two games.
    st.as_object_mut().unwrap().remove("config");
    st
}

#[test]
fn events_listed_out_of_time_order_give_the_same_state_as_sorted_ones() {
    let sorted = state_of("tl-sorted", [0, 1, 2]);
    let shuffled = state_of("tl-shuffled", [2, 0, 1]);
    assert_eq!(player(&sorted, "民1")["alive"], false, "{sorted}");
    assert_eq!(sorted, shuffled);
}

#[test]
fn a_timeline_that_does_not_replay_makes_the_reports_fail_with_its_reason() {
    // An answer for a red card the ledger does not hold: the timeline refuses it.
    let answer = "[[event]]\nkind = \"answer\"\ncard = 99\nactor = \"狼1\"\nskill = \"殉职\"\ntargets = [\"民1\"]\n";
    let g = Game::new("tl-broken", "rules/075-zhifou.toml", SEATS_075, "");
    assert_eq!(g.night(0, N0).0, 0);
    let cfg = std::fs::read_to_string(g.cfg()).unwrap();
    std::fs::write(g.cfg(), cfg + answer).unwrap();
    votes(&g, SEATS_075, 2, &[("狼1", "2026-03-04 10:00", "民3")]);
    for args in [
        vec!["tally", "--day", "2", "--at", "2026-03-05 21:01"],
        vec!["activity", "--day", "2"],
        vec!["flags"],
    ] {
        let cfg = g.cfg();
        let mut v = vec![args[0], "--config", &cfg];
        v.extend(&args[1..]);
        let (code, out, err) = bansha(&v);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(
            err.contains("card 99") && err.contains("timeline"),
            "{args:?}: {err}"
        );
    }
}
