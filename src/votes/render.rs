//! A tally for people: `text` for the director, `bbcode` for the public 公示.

use std::fmt::Write;

use super::public::{Public, public};
use super::tally::{OutcomeKind, Tally};
use crate::report::bbcode_escape as esc;
use crate::report::{max_width, pad_right};

/// A tally before 关门 (now, or `--at` a time before it) is interim: it says who leads
/// (目前领先), never who is out or elected. Both times are `YYYY-MM-DD HH:MM:SS` in the
/// game's timezone, so they compare as strings.
pub fn is_interim(t: &Tally) -> bool {
    match &t.closes {
        Some(c) => !t.as_of.is_empty() && t.as_of < *c,
        None => false,
    }
}

/// The interim result: who leads (`tops`, already limited to what the reader may see),
/// escaped with `e`. `hidden`: the public may not learn the leader before 关门.
fn leading_line(tops: Vec<String>, hidden: bool, e: impl Fn(&str) -> String) -> String {
    if hidden {
        return "关门前的统计，非最终结果".into();
    }
    let tp: Vec<String> = tops
        .into_iter()
        .filter(|x| *x != "弃权")
        .map(|x| e(&x))
        .collect();
    match tp.len() {
        0 => "目前无人得票（关门前的统计，非最终结果）".into(),
        1 => format!("目前领先：{}（关门前的统计，非最终结果）", tp[0]),
        _ => format!(
            "目前平票领先：{}（关门前的统计，非最终结果）",
            tp.join("、")
        ),
    }
}

pub(super) fn floor_label(floor: Option<u32>, proxy: bool) -> String {
    match (floor, proxy) {
        (_, true) => "代投".into(),
        (Some(f), _) => format!("{f}#"),
        (None, _) => "?#".into(),
    }
}

pub(super) fn target_label(t: &Option<String>, written: &Option<String>) -> String {
    match (t, written) {
        (Some(t), _) => t.clone(),
        (None, None) => "弃权".into(),
        (None, Some(w)) => format!("「{w}」"),
    }
}

/// The vote's mode in words.
fn mode_zh(mode: &str) -> &str {
    match mode {
        "election" => "警长竞选",
        "elimination" => "放逐投票",
        "majority" => "公决",
        other => other,
    }
}

/// The outcome's kind in words.
fn kind_zh(mode: &str, kind: OutcomeKind) -> &'static str {
    match (mode, kind) {
        (_, OutcomeKind::Elected) => "当选警长",
        ("majority", OutcomeKind::Eliminated) => "公决出局",
        (_, OutcomeKind::Eliminated) => "出局",
        ("election", _) => "无人当选",
        ("majority", _) => "公决失败",
        _ => "无人出局",
    }
}

/// The director's report: totals, every ballot with its link, rejections with reasons,
/// who has not voted, changes in the last hour, edited posts, readings.
pub fn text(t: &Tally, game: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{game} — 第{}天 投票（{}）", t.day, mode_zh(t.mode));
    let _ = writeln!(
        s,
        "统计截至 {}{}{}{}",
        t.as_of,
        t.closes
            .as_ref()
            .map(|c| format!("，关门 {c}"))
            .unwrap_or_default(),
        t.vote_closes
            .as_ref()
            .map(|c| format!("，投票截止 {c}"))
            .unwrap_or_default(),
        match &t.accelerated_since {
            Some(s) if t.accelerated => format!("，自 {s} 起执行加速"),
            _ if t.accelerated => "，已加速".into(),
            _ => String::new(),
        }
    );
    let _ = writeln!(s);
    if is_interim(t) {
        let _ = writeln!(
            s,
            "结果：{}",
            leading_line(super::public::tops(t), false, str::to_string)
        );
    } else {
        match t.outcome.player.as_deref() {
            Some(p) => {
                let _ = writeln!(s, "结果：{} {p}", kind_zh(t.mode, t.outcome.kind));
            }
            None => {
                let _ = writeln!(s, "结果：{}", kind_zh(t.mode, t.outcome.kind));
            }
        }
        let _ = writeln!(s, "  依据：{}", t.outcome.via);
        if !t.outcome.clause.is_empty() {
            let _ = writeln!(s, "  规则：「{}」", t.outcome.clause);
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "票数：");
    if t.totals.is_empty() {
        let _ = writeln!(s, "  （无）");
    }
    let tw = max_width(t.totals.iter().map(|x| x.target.as_str()), 12);
    for x in &t.totals {
        let _ = writeln!(s, "  {} {}", pad_right(&x.target, tw), x.votes);
    }
    // Ballot lines: floor, time, voter in columns of equal display width.
    let vw = max_width(t.ballots.iter().map(|b| b.voter.as_str()), 0);
    let fw = max_width(
        t.ballots
            .iter()
            .map(|b| floor_label(b.floor, b.proxy))
            .collect::<Vec<_>>()
            .iter()
            .map(String::as_str),
        5,
    );
    let _ = writeln!(s);
    let _ = writeln!(s, "有效票：");
    for b in t.ballots.iter().filter(|b| b.valid) {
        let _ = writeln!(
            s,
            "  {} {}  {} -> {}  {}票{}",
            pad_right(&floor_label(b.floor, b.proxy), fw),
            b.time,
            pad_right(&b.voter, vw),
            target_label(&b.target, &b.written_target),
            b.weight,
            if b.change { "  （改票）" } else { "" }
        );
        for n in &b.weight_notes {
            let _ = writeln!(s, "        {n}");
        }
        if let Some(u) = &b.url {
            let _ = writeln!(s, "        {u}");
        }
    }
    let rejected: Vec<_> = t.ballots.iter().filter(|b| !b.valid).collect();
    if !rejected.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "无效票：");
        for b in rejected {
            let _ = writeln!(
                s,
                "  {} {}  {} -> {}: {}",
                pad_right(&floor_label(b.floor, b.proxy), fw),
                b.time,
                pad_right(&b.voter, vw),
                target_label(&b.target, &b.written_target),
                b.reason.as_deref().unwrap_or("")
            );
            if let Some(c) = &b.clause {
                let _ = writeln!(s, "        规则：{c}");
            }
            if let Some(u) = &b.url {
                let _ = writeln!(s, "        {u}");
            }
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "未投票：{}",
        if t.non_voters.is_empty() {
            "（全部已投票）".to_string()
        } else {
            t.non_voters.join("、")
        }
    );
    let last: Vec<_> = t
        .ballots
        .iter()
        .filter(|b| b.last_hour && (b.change || b.proxy))
        .collect();
    if !last.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "最后一小时内的变动：");
        for b in last {
            let _ = writeln!(
                s,
                "  {} {}  {} -> {}  {}",
                pad_right(&floor_label(b.floor, b.proxy), fw),
                b.time,
                pad_right(&b.voter, vw),
                target_label(&b.target, &b.written_target),
                if b.valid { "有效" } else { "无效" }
            );
        }
    }
    if !t.edited_posts.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "被编辑过的投票帖（以首次读到的内容为准）：");
        for e in &t.edited_posts {
            let _ = writeln!(
                s,
                "  {} {}{}  {}",
                floor_label(e.floor, false),
                e.author,
                if e.first_seen_edited {
                    "（首次读到时已被编辑）"
                } else {
                    ""
                },
                e.url
            );
            for (i, r) in e.revisions.iter().enumerate() {
                let _ = writeln!(s, "    第{}版：{}", i + 1, r.replace('\n', " / "));
            }
        }
    }
    if !t.notes.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "说明：");
        for n in &t.notes {
            let _ = writeln!(s, "  {n}");
        }
    }
    if !t.readings.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "规则解读：");
        for r in &t.readings {
            let _ = writeln!(s, "  {r}");
        }
    }
    s
}

/// The result line in Chinese, names escaped.
fn result_line(p: &Public, tops: &[String]) -> String {
    let who = p.player.as_deref().map(esc).unwrap_or_default();
    let tied = if p.tied.is_empty() {
        String::new()
    } else {
        format!(
            "平票（{}），",
            p.tied.iter().map(|x| esc(x)).collect::<Vec<_>>().join("、")
        )
    };
    match (p.mode, p.outcome_kind) {
        ("election", OutcomeKind::Elected) => format!("{tied}当选警长：{who}"),
        ("election", _) if !p.tied.is_empty() => format!("{tied}本局无警长"),
        ("election", _) => "无人当选警长".into(),
        ("majority", OutcomeKind::Eliminated) => format!("公决成功：{who}"),
        ("majority", _) => "公决失败".into(),
        (_, OutcomeKind::Eliminated) => format!("{tied}投票出局：{who}"),
        _ if !p.tied.is_empty() => format!("{tied}无人出局"),
        _ => match tops.first() {
            Some(top) => format!("最高票：{}，平安日，无人出局", esc(top)),
            None => "无人出局".into(),
        },
    }
}

/// The public 公示, ready to paste: only what [`public`] lets through; every
/// player-written string is escaped.
pub fn bbcode(t: &Tally, game: &str) -> String {
    let p = public(t);
    let mut s = String::new();
    let interim = is_interim(t);
    if interim {
        let _ = writeln!(s, "[b]{} 第{}天 投票情况（未关门）[/b]", esc(game), p.day);
    } else {
        let _ = writeln!(s, "[b]{} 第{}天 投票结果[/b]", esc(game), p.day);
    }
    let _ = writeln!(s, "统计截至 {}", p.as_of);
    if let Some(c) = &p.secrecy_clause {
        let _ = writeln!(s, "[size=2]{}[/size]", esc(c));
    }
    let _ = writeln!(s);
    match &p.ballots {
        Some(list) => {
            let _ = writeln!(s, "[b]投票[/b]");
            let _ = writeln!(s, "[list]");
            for b in list {
                let line = format!("{} → {}", esc(&b.voter), esc(&b.target));
                let link = match &b.url {
                    Some(u) => format!("[url={u}]{}[/url]", b.floor),
                    None => b.floor.clone(),
                };
                let weight = b.weight.map(|w| format!("（{w}票）")).unwrap_or_default();
                match &b.void_reason {
                    None => {
                        let _ = writeln!(s, "[*]{link} {line}{weight}");
                    }
                    Some(r) => {
                        let _ = writeln!(s, "[*][s]{link} {line}[/s] 无效：{}", esc(r));
                    }
                }
            }
            let _ = writeln!(s, "[/list]");
            let _ = writeln!(s);
        }
        None => {
            match p.valid_count {
                Some(n) => {
                    let _ = writeln!(s, "有效票 {n} 张（匿名投票，不公示投票人）");
                }
                None => {
                    let _ = writeln!(s, "匿名投票，不公示投票人与票数");
                }
            }
            let _ = writeln!(s);
        }
    }
    if let Some(totals) = &p.totals {
        let _ = writeln!(s, "[b]票数[/b]");
        for (target, votes) in totals {
            let _ = writeln!(s, "{}：{}", esc(target), votes);
        }
        let _ = writeln!(s);
    } else if !p.tops.is_empty() {
        let _ = writeln!(
            s,
            "最高票：{}",
            p.tops.iter().map(|x| esc(x)).collect::<Vec<_>>().join("、")
        );
    }
    // 平安日 (and an interim leader) names the highest only where the public may see counts
    // or the top.
    let visible = p.totals.is_some() || !p.tops.is_empty();
    let tops = if visible {
        super::public::tops(t)
    } else {
        Vec::new()
    };
    if interim {
        let _ = writeln!(s, "[b]{}[/b]", leading_line(tops, !visible, esc));
    } else {
        let _ = writeln!(s, "[b]{}[/b]", result_line(&p, &tops));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::vote::Weight;
    use crate::votes::{Outcome, Total};

    /// A final (after 关门) day-2 tally with the given totals (in tenths) and no ballots.
    fn tally(mode: &'static str, totals: &[(&str, i64)]) -> Tally {
        Tally {
            day: 2,
            mode,
            ballots: vec![],
            totals: totals
                .iter()
                .map(|(t, v)| Total {
                    target: t.to_string(),
                    votes: Weight(*v),
                })
                .collect(),
            outcome: Outcome {
                kind: OutcomeKind::None,
                player: None,
                via: "最高票".into(),
                clause: String::new(),
                tied: vec![],
            },
            as_of: "2026-03-05 21:30:00".into(),
            closes: Some("2026-03-05 21:00:00".into()),
            vote_closes: None,
            accelerated: false,
            accelerated_since: None,
            counts_secret: false,
            secrecy: "open",
            secrecy_clause: String::new(),
            non_voters: vec![],
            edited_posts: vec![],
            notes: vec![],
            readings: vec![],
        }
    }

    fn interim(mut t: Tally) -> Tally {
        t.as_of = "2026-03-05 20:00:00".into();
        t
    }

    fn result_line(t: &Tally) -> String {
        text(t, "g")
            .lines()
            .find(|l| l.starts_with("结果："))
            .unwrap_or_else(|| panic!("no result line:\n{}", text(t, "g")))
            .to_string()
    }

    /// Interim exactly while the tally's moment is before 关门; a tally without a moment or
    /// without a 关门 is not interim.
    #[test]
    fn a_tally_is_interim_only_before_the_close() {
        let t = tally("elimination", &[]);
        assert!(!is_interim(&t));
        assert!(is_interim(&interim(t.clone())));
        let mut at_close = t.clone();
        at_close.as_of = "2026-03-05 21:00:00".into();
        assert!(!is_interim(&at_close));
        let mut no_moment = t.clone();
        no_moment.as_of = String::new();
        assert!(!is_interim(&no_moment));
        let mut no_close = interim(t);
        no_close.closes = None;
        assert!(!is_interim(&no_close));
    }

    /// The director's interim line names who leads: nobody, one, or the tied, never 弃权.
    #[test]
    fn the_interim_line_names_nobody_the_leader_or_the_tied_and_never_abstention() {
        let rest = "（关门前的统计，非最终结果）";
        for (totals, want) in [
            (vec![], format!("结果：目前无人得票{rest}")),
            (vec![("弃权", 20)], format!("结果：目前无人得票{rest}")),
            (
                vec![("甲", 20), ("乙", 10)],
                format!("结果：目前领先：甲{rest}"),
            ),
            (
                vec![("弃权", 20), ("甲", 20), ("乙", 10)],
                format!("结果：目前领先：甲{rest}"),
            ),
            (
                vec![("甲", 20), ("乙", 20), ("丙", 10)],
                format!("结果：目前平票领先：甲、乙{rest}"),
            ),
        ] {
            let t = interim(tally("elimination", &totals));
            assert_eq!(result_line(&t), want, "{totals:?}");
            // The public 公示 says the same, in bold, as its last line.
            let bb = bbcode(&t, "g");
            let want_bb = format!("[b]{}[/b]", want.trim_start_matches("结果："));
            assert_eq!(bb.lines().last(), Some(want_bb.as_str()), "{bb}");
        }
        // Counts kept from the public: the 公示 names no leader before 关门.
        let mut t = interim(tally("elimination", &[("甲", 20)]));
        t.counts_secret = true;
        assert_eq!(
            bbcode(&t, "g").lines().last(),
            Some("[b]关门前的统计，非最终结果[/b]")
        );
        assert_eq!(result_line(&t), format!("结果：目前领先：甲{rest}"));
    }

    /// The heading names the vote's mode, and the result line the outcome in the mode's words.
    #[test]
    fn the_directors_report_names_the_mode_and_the_outcome_in_chinese() {
        for (mode, zh) in [
            ("election", "警长竞选"),
            ("elimination", "放逐投票"),
            ("majority", "公决"),
            ("other-mode", "other-mode"),
        ] {
            let s = text(&tally(mode, &[]), "g");
            assert_eq!(
                s.lines().next(),
                Some(format!("g — 第2天 投票（{zh}）").as_str())
            );
        }
        for (mode, kind, player, want) in [
            ("election", "elected", Some("甲"), "结果：当选警长 甲"),
            ("majority", "eliminated", Some("甲"), "结果：公决出局 甲"),
            ("elimination", "eliminated", Some("甲"), "结果：出局 甲"),
            ("election", "none", None, "结果：无人当选"),
            ("majority", "none", None, "结果：公决失败"),
            ("elimination", "none", None, "结果：无人出局"),
        ] {
            let mut t = tally(mode, &[("甲", 20)]);
            t.outcome.kind = OutcomeKind::parse(kind).unwrap();
            t.outcome.player = player.map(str::to_string);
            assert_eq!(result_line(&t), want, "{mode} {kind}");
        }
    }

    /// The deciding clause is quoted under the result when there is one, and no empty
    /// 规则 line is printed when there is none.
    #[test]
    fn the_result_quotes_its_clause_only_when_it_has_one() {
        let mut t = tally("elimination", &[("甲", 20)]);
        assert!(!text(&t, "g").contains("规则："), "{}", text(&t, "g"));
        t.outcome.clause = "得票最多者出局".into();
        let s = text(&t, "g");
        let lines: Vec<&str> = s.lines().collect();
        let i = lines.iter().position(|l| l.starts_with("结果：")).unwrap();
        assert_eq!(lines[i + 1], "  依据：最高票");
        assert_eq!(lines[i + 2], "  规则：「得票最多者出局」");
    }

    /// The 说明 (notes) and 规则解读 (readings) blocks are printed each when it has lines,
    /// and left out when it has none.
    #[test]
    fn the_notes_and_readings_blocks_are_printed_only_with_lines() {
        let mut t = tally("elimination", &[("甲", 20)]);
        let s = text(&t, "g");
        assert!(!s.contains("说明：") && !s.contains("规则解读："), "{s}");
        t.notes = vec!["一条说明".into()];
        let s = text(&t, "g");
        assert!(s.ends_with("\n说明：\n  一条说明\n"), "{s}");
        assert!(!s.contains("规则解读："), "{s}");
        t.notes.clear();
        t.readings = vec!["一条解读".into()];
        let s = text(&t, "g");
        assert!(s.ends_with("\n规则解读：\n  一条解读\n"), "{s}");
        assert!(!s.contains("说明："), "{s}");
    }

    /// The public 公示's final result line, for each mode and outcome.
    #[test]
    fn the_public_result_line_for_each_mode_and_outcome() {
        let case = |mode: &'static str, kind: &'static str, player: Option<&str>, tied: &[&str]| {
            let mut t = tally(mode, &[("甲", 20), ("乙", 20), ("丙", 10)]);
            t.outcome.kind = OutcomeKind::parse(kind).unwrap();
            t.outcome.player = player.map(str::to_string);
            t.outcome.tied = tied.iter().map(|x| x.to_string()).collect();
            let bb = bbcode(&t, "g");
            bb.lines().last().unwrap().to_string()
        };
        let tie: &[&str] = &["甲", "乙"];
        // (mode, outcome kind, player, tied, the line)
        type Case<'a> = (&'a str, &'a str, Option<&'a str>, &'a [&'a str], &'a str);
        let cases: &[Case] = &[
            (
                "election",
                "elected",
                Some("甲"),
                &[],
                "[b]当选警长：甲[/b]",
            ),
            (
                "election",
                "elected",
                Some("甲"),
                tie,
                "[b]平票（甲、乙），当选警长：甲[/b]",
            ),
            (
                "election",
                "none",
                None,
                tie,
                "[b]平票（甲、乙），本局无警长[/b]",
            ),
            ("election", "none", None, &[], "[b]无人当选警长[/b]"),
            (
                "majority",
                "eliminated",
                Some("甲"),
                &[],
                "[b]公决成功：甲[/b]",
            ),
            ("majority", "none", None, &[], "[b]公决失败[/b]"),
            (
                "elimination",
                "eliminated",
                Some("甲"),
                &[],
                "[b]投票出局：甲[/b]",
            ),
            (
                "elimination",
                "eliminated",
                Some("甲"),
                tie,
                "[b]平票（甲、乙），投票出局：甲[/b]",
            ),
            (
                "elimination",
                "none",
                None,
                tie,
                "[b]平票（甲、乙），无人出局[/b]",
            ),
            (
                "elimination",
                "none",
                None,
                &[],
                "[b]最高票：甲，平安日，无人出局[/b]",
            ),
        ];
        for &(mode, kind, player, tied, want) in cases {
            assert_eq!(
                case(mode, kind, player, tied),
                want,
                "{mode} {kind} {tied:?}"
            );
        }
        let mut t = tally("elimination", &[]);
        t.outcome.kind = OutcomeKind::None;
        assert_eq!(bbcode(&t, "g").lines().last(), Some("[b]无人出局[/b]"));
    }
}
