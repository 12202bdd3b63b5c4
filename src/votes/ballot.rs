//! Reading a ballot out of a post's plain text.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

/// What a ballot-shaped post says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BallotText {
    /// `改票对象` (a change) rather than `投票对象`.
    pub change: bool,
    /// The target as written, trimmed; `None` for `弃权`.
    pub target: Option<String>,
    /// The 投票理由/改票理由, trimmed ("" if none).
    pub reason: String,
}

const ABSTAIN: &str = "弃权";

/// `弃权`, also when punctuation ends it (`弃权。`, `弃权！`): the same width-folding and
/// trailing marks a target name is read with.
fn is_abstain(target: &str) -> bool {
    super::names::fold_width(target).trim_end_matches(super::names::is_trailing_punct) == ABSTAIN
}

/// A bare `理由:` (no 投票/改票 before it) at or after `from`: (start, end of the colon).
/// 075 prescribes no format beyond 「投票对象」, so `投票对象：甲 理由：乙` is a ballot too.
fn find_bare_reason(s: &str, from: usize) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(i) = s[at..].find("理由") {
        let start = at + i;
        let mut k = start + "理由".len();
        k += s[k..]
            .chars()
            .take_while(|c| is_space(*c))
            .map(char::len_utf8)
            .sum::<usize>();
        if let Some(c) = s[k..].chars().next().filter(|c| is_colon(*c)) {
            return Some((start, k + c.len_utf8()));
        }
        at = start + "理由".len();
    }
    None
}

fn is_space(c: char) -> bool {
    c.is_whitespace() || is_invisible(c)
}

fn is_colon(c: char) -> bool {
    matches!(c, ':' | '：' | '﹕' | '︰')
}

fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{feff}')
}

/// Whether `normalize` would change `text`.
fn needs_normalize(text: &str) -> bool {
    text.chars()
        .any(|c| is_invisible(c) || c == '\u{3000}' || c == '\u{a0}' || (c != ':' && is_colon(c)))
}

/// Punctuation is the same in full and half width (`：` = `:`); invisible characters go.
fn normalize(text: &str) -> String {
    if !needs_normalize(text) {
        return text.to_string();
    }
    text.chars()
        .filter(|c| !matches!(c, '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{feff}'))
        .map(|c| match c {
            '：' | '﹕' | '︰' => ':',
            '\u{3000}' | '\u{a0}' => ' ',
            c => c,
        })
        .collect()
}

/// Find `<prefix>对象:` / `<prefix>理由:` allowing spaces between the parts.
/// Returns (start of the key, end of the colon).
fn find_key(s: &str, prefixes: &[&str], noun: &str, from: usize) -> Option<(usize, usize, usize)> {
    let mut best: Option<(usize, usize, usize)> = None;
    for (pi, p) in prefixes.iter().enumerate() {
        let mut at = from;
        while let Some(i) = s[at..].find(p) {
            let start = at + i;
            let mut j = start + p.len();
            j += s[j..]
                .chars()
                .take_while(|c| is_space(*c))
                .map(char::len_utf8)
                .sum::<usize>();
            if s[j..].starts_with(noun) {
                let mut k = j + noun.len();
                k += s[k..]
                    .chars()
                    .take_while(|c| is_space(*c))
                    .map(char::len_utf8)
                    .sum::<usize>();
                if let Some(c) = s[k..].chars().next().filter(|c| is_colon(*c)) {
                    if best.is_none_or(|b| start < b.0) {
                        best = Some((start, k + c.len_utf8(), pi));
                    }
                    break;
                }
            }
            at = start + p.len();
        }
    }
    best
}

/// Parse a ballot from a post's plain text (quotes already removed): `投票对象：X` then
/// `投票理由：Y`, or `改票对象：X` / `改票理由：Y`. Full/half-width colons, target and reason
/// on one line or not, surrounding whitespace: all the same. `None` if the post holds no
/// ballot.
pub fn parse_ballot(text: &str) -> Option<BallotText> {
    // Cheap prefilter: no ballot without its key noun.
    let invisible = text.chars().any(is_invisible);
    if !invisible && !text.contains("对象") {
        return None;
    }
    // Invisible characters may split a key, so they go before the keys are sought; other
    // normalisation (colons, wide spaces) is applied only to the target and reason found.
    let owned;
    let s = if invisible {
        owned = normalize(text);
        owned.as_str()
    } else {
        text
    };
    let (_, after_colon, which) = find_key(s, &["投票", "改票"], "对象", 0)?;
    let change = which == 1;
    // The reason key (either prefix, or none) ends the target; the earliest one wins, so a
    // prefixed key is taken whole rather than from its 理由.
    let prefixed = find_key(s, &["投票", "改票"], "理由", after_colon).map(|(a, b, _)| (a, b));
    let bare = find_bare_reason(s, after_colon);
    let reason_key = match (prefixed, bare) {
        (Some(p), Some(b)) => Some(if b.0 < p.0 { b } else { p }),
        (p, b) => p.or(b),
    };
    let target_region = match reason_key {
        Some((rs, _)) => &s[after_colon..rs],
        None => &s[after_colon..],
    };
    // The target is the first non-empty line of its region.
    let target = target_region
        .lines()
        .map(|l| l.trim_matches(is_space))
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let target = normalize(target);
    let reason = match reason_key {
        Some((_, re)) => normalize(s[re..].trim_matches(is_space)),
        None => String::new(),
    };
    Some(BallotText {
        change,
        target: if is_abstain(&target) {
            None
        } else {
            Some(target)
        },
        reason,
    })
}

/// A label that is meant as a ballot key but is not one (`投票对像：甲`, `头票对象：甲`,
/// `投票：甲`): a post [`parse_ballot`] does not read as a ballot, yet shaped like one. Such a
/// post is listed as an invalid ballot naming the label, never dropped silently.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MisspelledLabel {
    /// The label as written, without its colon.
    pub label: String,
    /// What follows the colon on its line, trimmed.
    pub written: String,
}

/// Near-miss spellings of 投票对象/改票对象 (homophones and neighbours of each character, the
/// 对象 left out) followed by a colon.
static LABEL_LIKE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:[投改头頭偷]\s*[票漂飘]\s*[对對兑队堆]\s*[象像向相项]|[投改]\s*票\s*(?:[对對兑队堆]|[象像向相项])?)\s*[:：﹕︰]",
    )
    .expect("label pattern")
});

/// The misspelled ballot label of a post that holds no ballot ([`parse_ballot`] is `None`).
pub fn misspelled_label(text: &str) -> Option<MisspelledLabel> {
    if parse_ballot(text).is_some() {
        return None;
    }
    let owned = normalize(text);
    let m = LABEL_LIKE.find(&owned)?;
    let label: String = m
        .as_str()
        .trim_end_matches(is_colon)
        .chars()
        .filter(|c| !is_space(*c))
        .collect();
    let written = owned[m.end()..]
        .lines()
        .next()
        .unwrap_or("")
        .trim_matches(is_space)
        .to_string();
    Some(MisspelledLabel { label, written })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(change: bool, target: Option<&str>, reason: &str) -> Option<BallotText> {
        Some(BallotText {
            change,
            target: target.map(str::to_string),
            reason: reason.into(),
        })
    }

    #[test]
    fn the_rule_post_formats() {
        assert_eq!(
            parse_ballot("投票对象：傻树\n投票理由：砍"),
            b(false, Some("傻树"), "砍")
        );
        assert_eq!(
            parse_ballot("改票对象：不见\n改票理由：吉祥猪"),
            b(true, Some("不见"), "吉祥猪")
        );
    }

    #[test]
    fn half_width_colons_same_line_and_spaces() {
        assert_eq!(
            parse_ballot("  投票对象: 傻树 投票理由:砍 他  "),
            b(false, Some("傻树"), "砍 他")
        );
        assert_eq!(
            parse_ballot("投票 对象 ：\u{3000}傻树\u{200b}\r\n\r\n投票理由 ： x"),
            b(false, Some("傻树"), "x")
        );
        // Target on the line after its key.
        assert_eq!(
            parse_ballot("投票对象：\n\n西瓜\n投票理由：好吃"),
            b(false, Some("西瓜"), "好吃")
        );
    }

    #[test]
    fn abstention_missing_reason_and_no_ballot() {
        assert_eq!(parse_ballot("投票对象：弃权"), b(false, None, ""));
        assert_eq!(parse_ballot("我觉得投票对象应该是狼"), None);
        assert_eq!(parse_ballot("顶一下"), None);
        assert_eq!(
            parse_ballot("投票对象：\n投票理由：x"),
            b(false, Some(""), "x")
        );
    }

    #[test]
    fn wide_characters_inside_target_and_reason_are_normalised() {
        // Full-width colon and wide space inside the text found, with and without an
        // invisible character elsewhere (which takes the whole-text normalising path).
        let want = b(false, Some("傻 树:1"), "砍 他:好");
        assert_eq!(
            parse_ballot("投票对象﹕傻\u{3000}树：1\n投票理由︰砍\u{a0}他：好"),
            want
        );
        assert_eq!(
            parse_ballot("投\u{200d}票对象﹕傻\u{3000}树：1\n投票理由︰砍\u{a0}他：好"),
            want
        );
        assert_eq!(parse_ballot("投票对\u{feff}象：弃权"), b(false, None, ""));
    }

    /// Each wide form is normalised on its own, without a full-width colon in the same
    /// target or reason to set the normalising off.
    #[test]
    fn each_wide_form_alone_is_normalised() {
        assert_eq!(
            parse_ballot("投票对象：傻\u{3000}树\n投票理由：砍\u{a0}他"),
            b(false, Some("傻 树"), "砍 他")
        );
        assert_eq!(
            parse_ballot("投票对象：傻树\n投票理由：他是狼：跳预言家"),
            b(false, Some("傻树"), "他是狼:跳预言家")
        );
    }

    /// Issue 25: `弃权` followed by punctuation was read as a name (and refused).
    #[test]
    fn abstain_followed_by_punctuation_is_an_abstention() {
        for t in [
            "投票对象：弃权。",
            "投票对象：弃权！",
            "投票对象：弃权~\n投票理由：没想好",
            "投票对象：弃权，",
        ] {
            assert_eq!(parse_ballot(t).unwrap().target, None, "{t}");
        }
        // Not an abstention: more than marks after it.
        assert_eq!(
            parse_ballot("投票对象：弃权者").unwrap().target.as_deref(),
            Some("弃权者")
        );
    }

    /// Issue 25: a one-line ballot with a bare `理由：` was refused (its target read as
    /// `甲 理由：乙`), although 075 prescribes no format beyond the key.
    #[test]
    fn a_bare_reason_key_ends_the_target() {
        assert_eq!(
            parse_ballot("投票对象：傻树 理由：他跳得太假"),
            b(false, Some("傻树"), "他跳得太假")
        );
        assert_eq!(
            parse_ballot("改票对象：甲\n理由 ：乙"),
            b(true, Some("甲"), "乙")
        );
        // A prefixed key is still taken whole.
        assert_eq!(
            parse_ballot("投票对象：甲 投票理由：理由：乙"),
            b(false, Some("甲"), "理由:乙")
        );
        // 理由 without a colon is part of the target.
        assert_eq!(
            parse_ballot("投票对象：理由哥").unwrap().target.as_deref(),
            Some("理由哥")
        );
    }

    /// Issue 25: a ballot whose label is misspelled was missing from the ballot list.
    #[test]
    fn misspelled_labels_are_found_and_real_ballots_are_not() {
        let m = |t: &str| misspelled_label(t).map(|m| (m.label, m.written));
        assert_eq!(
            m("投票对像：傻树"),
            Some(("投票对像".into(), "傻树".into()))
        );
        assert_eq!(
            m("头票对象: 傻树\n理由"),
            Some(("头票对象".into(), "傻树".into()))
        );
        assert_eq!(m("改票：不见"), Some(("改票".into(), "不见".into())));
        assert_eq!(
            m("投票 对 向 ： 甲"),
            Some(("投票对向".into(), "甲".into()))
        );
        // A real ballot, talk about voting, and a colon elsewhere are not.
        assert_eq!(m("投票对象：傻树"), None);
        assert_eq!(m("我觉得投票对象应该是狼"), None);
        assert_eq!(m("今天投票的时候：大家认真点"), None);
        assert_eq!(m("顶一下"), None);
    }

    /// With both keys in one post, the one written first is the ballot, whichever kind it is.
    #[test]
    fn the_earliest_key_wins_over_the_other_kind() {
        assert_eq!(
            parse_ballot("改票对象：甲\n投票对象：乙"),
            b(true, Some("甲"), "")
        );
    }

    #[test]
    fn first_key_decides_kind() {
        assert_eq!(
            parse_ballot("前言\n改票对象：甲\n投票理由：乙"),
            b(true, Some("甲"), "乙")
        );
    }
}
