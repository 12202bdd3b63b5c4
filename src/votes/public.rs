//! Tally phase 6, the secrecy filter: what the public 公示 may show of a [`Tally`]. Only
//! this view reaches the public BBCode, so a secret cannot leak through a renderer.
//!
//! What is kept back is decided by the rule set, never by the day's data (a figure that
//! appears only on days without a secret would itself tell):
//! - `anonymous` (匿名投票): no voter is named;
//! - `top-only` (投票计数隐藏): no count, only the highest;
//! - counts are secret ([`VoteRules::counts_are_secret`]: a secret weight such as 皇权 or
//!   导演暗记, or a status the director does not announce such as <镇压>): no totals, no
//!   ballot weights, no number of valid ballots — a reader who knows the public weights
//!   (警长 +1.5) could subtract and recover the secret one;
//! - a ballot voided by a secret status is shown as cast.
//!
//! [`VoteRules::counts_are_secret`]: crate::rules::vote::VoteRules::counts_are_secret

use super::render::{floor_label, target_label};
use super::tally::Tally;
use crate::rules::vote::Weight;

#[derive(Debug, Clone, PartialEq)]
pub struct PublicBallot {
    pub voter: String,
    /// The target as the 公示 names it (`弃权`, or the written text when it names no one).
    pub target: String,
    pub floor: String,
    pub url: Option<String>,
    /// Printed next to the ballot when not 1 (open games without secret counts).
    pub weight: Option<Weight>,
    /// Why it is void, when the public may know.
    pub void_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Public {
    pub day: u32,
    pub as_of: String,
    /// The secrecy clause, when the vote is not fully open.
    pub secrecy_clause: Option<String>,
    /// Who voted for whom (`None`: anonymous).
    pub ballots: Option<Vec<PublicBallot>>,
    /// How many ballots counted (anonymous games whose counts are public).
    pub valid_count: Option<usize>,
    /// Votes per player (`None`: counts hidden).
    pub totals: Option<Vec<(String, Weight)>>,
    /// The highest, named without a count (`top-only`).
    pub tops: Vec<String>,
    pub mode: &'static str,
    pub outcome_kind: crate::votes::OutcomeKind,
    pub player: Option<String>,
    pub tied: Vec<String>,
}

/// The public view of a tally.
pub fn public(t: &Tally) -> Public {
    let anonymous = t.secrecy == "anonymous";
    let top_only = t.secrecy == "top-only";
    let ballots = (!anonymous).then(|| {
        t.ballots
            .iter()
            .filter(|b| !b.by_director)
            .map(|b| {
                let shown_valid = b.valid || b.secret;
                PublicBallot {
                    voter: b.voter.clone(),
                    target: target_label(&b.target, &b.written_target),
                    floor: floor_label(b.floor, b.proxy),
                    url: b.url.clone(),
                    weight: (t.secrecy == "open"
                        && !t.counts_secret
                        && b.valid
                        && b.weight != Weight::ONE)
                        .then_some(b.weight),
                    void_reason: (!shown_valid).then(|| b.reason.clone().unwrap_or_default()),
                }
            })
            .collect()
    });
    let valid_count =
        (anonymous && !t.counts_secret).then(|| t.ballots.iter().filter(|b| b.valid).count());
    let totals = (!top_only && !t.counts_secret).then(|| {
        t.totals
            .iter()
            .map(|x| (x.target.clone(), x.votes))
            .collect()
    });
    let tops = if top_only { tops(t) } else { Vec::new() };
    Public {
        day: t.day,
        as_of: t.as_of.clone(),
        secrecy_clause: (t.secrecy != "open" && !t.secrecy_clause.is_empty())
            .then(|| t.secrecy_clause.clone()),
        ballots,
        valid_count,
        totals,
        tops,
        mode: t.mode,
        outcome_kind: t.outcome.kind,
        player: t.outcome.player.clone(),
        tied: t.outcome.tied.clone(),
    }
}

/// The players with the highest count (none if nobody has a vote).
pub fn tops(t: &Tally) -> Vec<String> {
    let top = t.totals.first().map(|x| x.votes).unwrap_or_default();
    if top.0 <= 0 {
        return vec![];
    }
    t.totals
        .iter()
        .filter(|x| x.votes == top)
        .map(|x| x.target.clone())
        .collect()
}

/// No public output of a game that keeps something hidden lets a reader derive it: for every
/// rule file, two days that differ only in a hidden fact (a secret weight's value, a secret
/// status, who cast which anonymous ballot) and agree on the outcome must give the same public
/// 公示, byte for byte. A figure that moved with the hidden fact would be a way to recover it.
#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::config::Config;
    use crate::model::{Post, Revision};
    use crate::roster::Roster;
    use crate::rules::RuleSet;
    use crate::rules::vote::{Secrecy, WeightRule};
    use crate::votes::{TallyInput, render, tally};

    const PLAYERS: [&str; 7] = ["甲", "乙", "丙", "丁", "戊", "己", "庚"];

    struct Day<'a> {
        roles: Vec<(&'a str, &'a str)>,
        events: String,
        ballots: Vec<(&'a str, &'a str)>,
    }

    fn public_and_outcome(rules: &RuleSet, path: &Path, d: &Day) -> (String, Option<String>) {
        let t = tally_of(rules, path, d);
        (render::bbcode(&t, "g"), t.outcome.player.clone())
    }

    fn tally_of(rules: &RuleSet, path: &Path, d: &Day) -> crate::votes::Tally {
        let mut t = String::from(
            "[forum]\nbase_url = \"http://127.0.0.1:18080/\"\n[game]\nname = \"g\"\nrules = \"r.toml\"\n",
        );
        for p in PLAYERS {
            t.push_str(&format!("[[player]]\nname = \"{p}\"\n"));
            if let Some((_, r)) = d.roles.iter().find(|(n, _)| *n == p) {
                t.push_str(&format!("role = \"{r}\"\n"));
            }
        }
        t.push_str("[[day]]\nnumber = 2\nvote = 9\ncloses = \"2026-03-05 21:00\"\n");
        t.push_str(&d.events);
        let cfg = Config::from_str(path, &t).unwrap_or_else(|e| panic!("{e}"));
        let base = cfg.ts(crate::config::LocalTime(
            crate::time::parse_naive("2026-03-05 10:00").unwrap(),
        ));
        let posts: Vec<Post> = d
            .ballots
            .iter()
            .enumerate()
            .map(|(i, (voter, target))| {
                let text = format!("投票对象：{target}\n投票理由：r");
                Post {
                    tid: 9,
                    pid: 100 + i as u64,
                    floor: Some(2 + i as u32),
                    author: voter.to_string(),
                    uid: None,
                    time: base + 60 * i as i64,
                    quote: None,
                    revisions: vec![Revision {
                        seen_at: base,
                        hash: format!("h{i}"),
                        edit: None,
                        html: text.clone(),
                        text,
                        red: String::new(),
                        large: String::new(),
                    }],
                    missing_since: None,
                    locked: None,
                }
            })
            .collect();
        let roster = Roster::from_config(&cfg);
        let closes = cfg.vote_closes(2);
        tally(&TallyInput {
            day: 2,
            rules: &rules.vote,
            readings: &rules.meta.readings,
            config: &cfg,
            roster: &roster,
            posts: &posts,
            closes,
            vote_closes: None,
            as_of: None,
            accelerated_since: None,
        })
    }

    fn status(player: &str, s: &str) -> String {
        format!(
            "[[event]]\nkind = \"status\"\nplayer = \"{player}\"\nstatus = \"{s}\"\nfrom_day = 1\nto_day = 9\n"
        )
    }

    /// Pairs of days that differ only in what this rule set hides.
    fn hidden_pairs(rules: &RuleSet) -> Vec<(String, Day<'_>, Day<'_>)> {
        let v = &rules.vote;
        // 甲 votes 己 with the others; 己 leads either way.
        let ballots = vec![
            ("甲", "己"),
            ("乙", "己"),
            ("丙", "己"),
            ("丁", "己"),
            ("戊", "己"),
            ("庚", "庚"),
        ];
        let mut out = Vec::new();
        for w in &v.weights {
            match w {
                WeightRule::Declared {
                    role, subordinates, ..
                } => {
                    let mut roles = vec![("甲", role.as_str())];
                    if let Some(s) = subordinates.first() {
                        roles.push(("乙", s.as_str()));
                    }
                    let decl = |n: u32| {
                        format!(
                            "[[event]]\nkind = \"vote-weight\"\nday = 2\nplayer = \"甲\"\nweight = {n}\n"
                        )
                    };
                    let a = Day {
                        roles: roles.clone(),
                        events: decl(1),
                        ballots: ballots.clone(),
                    };
                    let b = Day {
                        roles,
                        events: decl(2),
                        ballots: ballots.clone(),
                    };
                    out.push((format!("{role} declares 1 or 2"), a, b));
                }
                WeightRule::StatusAdd {
                    status: s,
                    secret: true,
                    ..
                } => {
                    let a = Day {
                        roles: vec![],
                        events: String::new(),
                        ballots: ballots.clone(),
                    };
                    let b = Day {
                        roles: vec![],
                        events: status("甲", s),
                        ballots: ballots.clone(),
                    };
                    out.push((format!("secret status 【{s}】 held or not"), a, b));
                }
                _ => {}
            }
        }
        for s in &v.secret_statuses {
            let a = Day {
                roles: vec![],
                events: String::new(),
                ballots: ballots.clone(),
            };
            let b = Day {
                roles: vec![],
                events: status("甲", s),
                ballots: ballots.clone(),
            };
            out.push((format!("secret status 【{s}】 held or not"), a, b));
        }
        if v.secrecy == Secrecy::Anonymous {
            let mut swapped = ballots.clone();
            swapped[0] = ("甲", "庚");
            swapped[5] = ("庚", "己");
            out.push((
                "who cast which anonymous ballot".into(),
                Day {
                    roles: vec![],
                    events: String::new(),
                    ballots: ballots.clone(),
                },
                Day {
                    roles: vec![],
                    events: String::new(),
                    ballots: swapped,
                },
            ));
        }
        out
    }

    #[test]
    fn public_output_reveals_no_hidden_figure() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
        let mut files: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        let mut checked = 0;
        let mut errs = Vec::new();
        for f in &files {
            let rules = RuleSet::load(f).unwrap_or_else(|e| panic!("{e}"));
            for (what, a, b) in hidden_pairs(&rules) {
                let (pa, oa) = public_and_outcome(&rules, f, &a);
                let (pb, ob) = public_and_outcome(&rules, f, &b);
                assert_eq!(
                    oa,
                    ob,
                    "{}: {what}: the pair must agree on the outcome",
                    f.display()
                );
                checked += 1;
                if pa != pb {
                    errs.push(format!(
                        "{}: {what}: the public 公示 differs, so a reader can tell:\n--- one\n{pa}--- other\n{pb}",
                        f.display()
                    ));
                }
            }
        }
        // 皇权 (declared, anonymous), 空洞骑士 (骰子1, 诡辩), 排球少年 (<镇压>).
        assert!(checked >= 5, "only {checked} hidden facts checked");
        assert!(errs.is_empty(), "{}", errs.join("\n"));
    }

    /// The check can fail: an open game's weights are public, and moving one shows.
    #[test]
    fn an_open_weight_does_show() {
        let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/lingzu.toml");
        let rules = RuleSet::load(&f).unwrap();
        let ballots = vec![("甲", "己"), ("乙", "己"), ("丙", "庚")];
        let sheriff = "[[event]]\nkind = \"sheriff\"\nplayer = \"甲\"\nat = \"2026-03-04 21:00\"\n";
        let a = Day {
            roles: vec![],
            events: String::new(),
            ballots: ballots.clone(),
        };
        let b = Day {
            roles: vec![],
            events: sheriff.into(),
            ballots,
        };
        let (pa, _) = public_and_outcome(&rules, &f, &a);
        let (pb, _) = public_and_outcome(&rules, &f, &b);
        assert_ne!(pa, pb);
    }

    /// The secrecy clause is quoted (`[size=2]…[/size]` under the 公示's heading) exactly when
    /// the rule set keeps something from the public (`anonymous`, `top-only`) and has a
    /// clause: never for an open vote, never as an empty line.
    #[test]
    fn the_secrecy_clause_line_is_printed_only_for_a_secret_vote_with_a_clause() {
        let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/lingzu.toml");
        let rules = RuleSet::load(&f).unwrap();
        let day = Day {
            roles: vec![],
            events: String::new(),
            ballots: vec![("甲", "己"), ("乙", "己"), ("丙", "庚")],
        };
        let base = tally_of(&rules, &f, &day);
        let clause = "投票为匿名投票，仅自己可见，直到游戏结束。";
        for (secrecy, text, shown) in [
            ("open", clause, false),
            ("open", "", false),
            ("anonymous", clause, true),
            ("top-only", clause, true),
            ("anonymous", "", false),
            ("top-only", "", false),
        ] {
            let mut t = base.clone();
            t.secrecy = secrecy;
            t.secrecy_clause = text.to_string();
            let p = super::public(&t);
            let bb = render::bbcode(&t, "g");
            let lines: Vec<&str> = bb.lines().collect();
            if shown {
                assert_eq!(p.secrecy_clause.as_deref(), Some(clause), "{secrecy}");
                // Heading, 统计截至, then the clause.
                assert_eq!(
                    lines[2],
                    format!("[size=2]{clause}[/size]"),
                    "{secrecy}:\n{bb}"
                );
            } else {
                assert_eq!(p.secrecy_clause, None, "{secrecy} {text:?}");
                assert!(!bb.contains("[size=2]"), "{secrecy} {text:?}:\n{bb}");
            }
        }
    }
}
