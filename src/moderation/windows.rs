//! Windowed construction rules (`wordlists/windows.txt`): a rule is a few slots, each a
//! class of literals, that must all occur within one sentence and a few characters of each
//! other, in any order unless the rule says `ordered`. 导演 + 私下 + 确认 catches
//! 导演今早私下跟我确认过 and 我私下找导演确认了 alike, where a regex needs every order and
//! every adverb in between spelled out.
//!
//! Every slot literal is a pattern of the scanner's one Aho–Corasick pass, so a rule is
//! checked only from the occurrences that pass found: no rule can match a text that does
//! not contain its literals, and a post that holds none of them costs nothing here.
//!
//! Rejections, per rule (`neg`): a slot literal right after a negation (没问过导演, 不服气
//! is no 不服). The frames that make words someone else's (quotes, reported speech,
//! reports, pasted 发表于 headers) apply to every hit and live in [`super::frames`].

use super::Category;
use super::normalize::normalize_str;

/// One rule of `windows.txt`.
#[derive(Debug, Clone)]
pub struct Rule {
    pub category: Category,
    /// The sub-item of the category's clause the rule reads (`3（1）`), as the file gives it.
    pub item: String,
    pub name: String,
    /// Each slot's literals, normalised (slot 0 first).
    pub slots: Vec<Vec<String>>,
    /// Literals that veto the rule in their sentence (a slot written `!a|b`): 逻辑 in 看他急成
    /// 这样，但我还是看逻辑.
    pub veto: Vec<String>,
    /// Slots must occur in the file's order.
    pub ordered: bool,
    /// Reject a slot literal preceded by a negation.
    pub neg: bool,
    /// Greatest distance in characters from the first slot's start to the last one's end.
    pub near: usize,
}

pub const FILE: &str = include_str!("../../wordlists/windows.txt");

/// Parse `windows.txt`: `category<TAB>item<TAB>name<TAB>slots[<TAB>flags]`, slots joined
/// by ` + `, a slot's literals by `|`; flags `ordered`, `neg`, `near=N`. Errors name the
/// line.
pub fn parse(text: &str) -> Result<Vec<Rule>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let at = |m: String| format!("wordlists/windows.txt:{}: {m}", i + 1);
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 4 {
            return Err(at("want category, item, name, slots (tab-separated)".into()));
        }
        let category = Category::parse(cols[0])
            .ok_or_else(|| at(format!("unknown category `{}`", cols[0])))?;
        let lits = |s: &str| {
            s.split('|')
                .map(|l| normalize_str(l.trim()))
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
        };
        let (mut slots, mut veto) = (Vec::new(), Vec::new());
        for s in cols[3].split(" + ") {
            match s.strip_prefix('!') {
                Some(v) => veto.extend(lits(v)),
                None => slots.push(lits(s)),
            }
        }
        if slots.len() < 2 || slots.iter().any(Vec::is_empty) {
            return Err(at("a rule needs two or more slots, none empty".into()));
        }
        let mut r = Rule {
            category,
            item: cols[1].to_string(),
            name: cols[2].to_string(),
            slots,
            veto,
            ordered: false,
            neg: false,
            near: 16,
        };
        for f in cols.get(4).map_or("", |f| *f).split(',').map(str::trim) {
            match f {
                "" => {}
                "ordered" => r.ordered = true,
                "neg" => r.neg = true,
                _ => match f.strip_prefix("near=").and_then(|n| n.parse().ok()) {
                    Some(n) => r.near = n,
                    None => return Err(at(format!("unknown flag `{f}`"))),
                },
            }
        }
        out.push(r);
    }
    Ok(out)
}

/// The slot number of a veto literal in a [`SlotHit`].
pub const VETO: u8 = u8::MAX;

/// One occurrence of a slot literal: rule, slot ([`VETO`] for a veto literal), normalised
/// byte span.
#[derive(Debug, Clone, Copy)]
pub struct SlotHit {
    pub rule: u32,
    pub slot: u8,
    pub start: u32,
    pub end: u32,
}

/// A negation right before a slot literal (没问, 别提), or one word before it (没有问).
fn negated(t: &str, s: usize) -> bool {
    let mut before = t[..s].chars().rev();
    match (before.next(), before.next()) {
        (Some(c), _) if "没不别未莫勿".contains(c) => true,
        (Some(c), Some(d)) => "有再太曾".contains(c) && "没不未".contains(d),
        _ => false,
    }
}

/// Sentence of the normalised text around byte `i`: its start and end.
fn sentence(t: &str, i: usize) -> (usize, usize) {
    let is_end = |c: char| ".!?;。\n".contains(c);
    let a = t[..i]
        .char_indices()
        .rev()
        .find(|(_, c)| is_end(*c))
        .map_or(0, |(j, c)| j + c.len_utf8());
    let b = t[i..].find(is_end).map_or(t.len(), |j| i + j);
    (a, b)
}

/// The rules that match in `t` (normalised) given the slot occurrences the automaton found
/// (sorted by rule, as the scanner collects them): each matched rule once, with the span
/// of its literals.
pub fn matches(rules: &[Rule], t: &str, hits: &mut [SlotHit]) -> Vec<(u32, usize, usize)> {
    hits.sort_by_key(|h| (h.rule, h.slot, h.start));
    let mut out = Vec::new();
    let mut i = 0;
    while i < hits.len() {
        let rule = hits[i].rule;
        let j = i + hits[i..].iter().take_while(|h| h.rule == rule).count();
        if let Some((s, e)) = match_rule(&rules[rule as usize], t, &hits[i..j]) {
            out.push((rule, s, e));
        }
        i = j;
    }
    out
}

/// Does the first-slot occurrence `a` of rule `r` stand: not negated (`neg`), no veto
/// literal of the rule in its sentence? `hits`: the rule's occurrences (others are ignored).
pub fn anchor_stands(r: &Rule, t: &str, hits: &[SlotHit], a: &SlotHit) -> bool {
    let (ss, se) = sentence(t, a.start as usize);
    let vetoed = hits.iter().any(|h| {
        h.rule == a.rule && h.slot == VETO && ss <= h.start as usize && h.end as usize <= se
    });
    !(vetoed || (r.neg && negated(t, a.start as usize)))
}

fn match_rule(r: &Rule, t: &str, hits: &[SlotHit]) -> Option<(usize, usize)> {
    let usable = |h: &SlotHit| !(r.neg && negated(t, h.start as usize));
    for a in hits
        .iter()
        .filter(|h| h.slot == 0 && anchor_stands(r, t, hits, h))
    {
        let (ss, se) = sentence(t, a.start as usize);
        let (mut lo, mut hi) = (a.start as usize, a.end as usize);
        let mut prev_end = a.end as usize;
        let mut ok = true;
        for slot in 1..r.slots.len() as u8 {
            // The occurrence of this slot nearest the anchor, in its sentence, not
            // overlapping it (and after the previous slot when ordered).
            let best = hits
                .iter()
                .filter(|h| h.slot == slot && usable(h))
                .filter(|h| ss <= h.start as usize && h.end as usize <= se)
                .filter(|h| h.end <= a.start || h.start >= a.end)
                .filter(|h| !r.ordered || h.start as usize >= prev_end)
                .filter(|h| {
                    let (l, m) = (lo.min(h.start as usize), hi.max(h.end as usize));
                    t[l..m].chars().count() <= r.near
                })
                .min_by_key(|h| (h.start as i64 - a.start as i64).abs());
            match best {
                Some(h) => {
                    lo = lo.min(h.start as usize);
                    hi = hi.max(h.end as usize);
                    prev_end = h.end as usize;
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            return Some((lo, hi));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_rules_parse_and_bad_lines_name_their_line() {
        let r = parse(FILE).unwrap();
        assert!(r.len() >= 15, "{}", r.len());
        let e = parse("# c\ninsult\t1\tx\ta\n").unwrap_err();
        assert!(e.contains("windows.txt:2"), "{e}");
        assert!(parse("nope\t1\tx\ta + b\n").unwrap_err().contains("nope"));
        assert!(
            parse("insult\t1\tx\ta + b\tfast\n")
                .unwrap_err()
                .contains("fast")
        );
    }

    fn run(rule: &str, text: &str) -> Option<String> {
        let rules = parse(rule).unwrap();
        let t = normalize_str(text);
        let mut hits = Vec::new();
        let veto = (VETO as usize, &rules[0].veto);
        for (si, lits) in rules[0].slots.iter().enumerate().chain([veto]) {
            for l in lits {
                for (p, _) in t.match_indices(l.as_str()) {
                    hits.push(SlotHit {
                        rule: 0,
                        slot: si as u8,
                        start: p as u32,
                        end: (p + l.len()) as u32,
                    });
                }
            }
        }
        matches(&rules, &t, &mut hits)
            .first()
            .map(|&(_, s, e)| t[s..e].to_string())
    }

    #[test]
    fn slots_match_in_any_order_within_one_sentence_and_near() {
        let r = "director-talk\t3（1）\t转述导演\t导演 + 私下|私聊 + 确认|说\tneg\n";
        assert_eq!(
            run(r, "导演今早私下跟我确认过").as_deref(),
            Some("导演今早私下跟我确认")
        );
        assert!(run(r, "我私聊导演确认了").is_some());
        assert!(run(r, "导演很好。我私下确认了").is_none(), "two sentences");
        assert!(run(r, "我没私聊导演确认").is_none(), "negated");
        let far = "导演今天的进程帖写得很清楚很长很长很长很长，私下确认";
        assert!(run(r, far).is_none());
        let o = "win-trading\t9\t送赢\t送 + 赢\tordered\n";
        assert!(run(o, "送好人赢").is_some());
        assert!(run(o, "赢了再送").is_none());
        let v = "emotional\t1\t贴脸\t急 + 好人 + !逻辑\n";
        assert!(run(v, "他急成这样，是好人").is_some());
        assert!(run(v, "他急成这样，但我看逻辑，是好人").is_none());
    }
}
