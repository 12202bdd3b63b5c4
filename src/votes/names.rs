//! Target names: a written 投票对象 to a player, or why it names none (with the closest
//! names). Exact first, then up to the width of punctuation.

use std::collections::{HashMap, HashSet};

/// Target names: exact lookup, and for names that match no player, the reason with the
/// closest player names (memoised: the same misspelling is common).
pub(super) struct Names<'a> {
    players: &'a [String],
    set: HashSet<&'a str>,
    chars: Vec<Vec<char>>,
    memo: HashMap<String, Result<Option<String>, String>>,
}

impl<'a> Names<'a> {
    pub(super) fn new(players: &'a [String]) -> Self {
        Names {
            players,
            set: players.iter().map(String::as_str).collect(),
            chars: Vec::new(),
            memo: HashMap::new(),
        }
    }

    /// A written target names a player exactly, or up to the width of its punctuation with
    /// trailing punctuation dropped (「投票格式中标点符号不区分全半角。投票对象与投票理由之间可以
    /// 不换行。」: `清酒，投票理由：…`, `清酒。`, `西瓜(大)` for `西瓜（大）`); otherwise say why
    /// not and suggest names.
    pub(super) fn resolve(&mut self, written: &str) -> Result<Option<String>, String> {
        if self.set.contains(written) {
            return Ok(Some(written.to_string()));
        }
        if let Some(r) = self.memo.get(written) {
            return r.clone();
        }
        let r = match self.folded_match(written) {
            Some(r) => r,
            None => Err(self.why_not(written)),
        };
        self.memo.insert(written.to_string(), r.clone());
        r
    }

    /// The player whose name equals `written` once both are width-folded, trying `written`
    /// as it is and then without its trailing punctuation.
    fn folded_match(&self, written: &str) -> Option<Result<Option<String>, String>> {
        let w = fold_width(written);
        let stripped = w.trim_end_matches(is_trailing_punct).to_string();
        for cand in [w, stripped] {
            if cand.is_empty() {
                continue;
            }
            let hits: Vec<&String> = self
                .players
                .iter()
                .filter(|p| fold_width(p) == cand)
                .collect();
            match hits.as_slice() {
                [] => {}
                [one] => return Some(Ok(Some((*one).clone()))),
                many => {
                    return Some(Err(format!(
                        "投票对象『{written}』不明确：可能是 {}；投票对象须准确写出一名玩家的名字",
                        many.iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join("、")
                    )));
                }
            }
        }
        None
    }

    fn why_not(&mut self, written: &str) -> String {
        if written.is_empty() {
            return "“投票对象”后没有写投票对象".into();
        }
        let players = self.players;
        let containing: Vec<&str> = players
            .iter()
            .filter(|p| p.contains(written))
            .map(String::as_str)
            .collect();
        if containing.len() > 1 {
            return format!(
                "投票对象『{written}』不明确：可能是 {}；投票对象须准确写出一名玩家的名字",
                containing.join("、")
            );
        }
        let names = self.closest(written);
        if names.is_empty() {
            format!("投票对象『{written}』不是本局玩家")
        } else {
            format!(
                "投票对象『{written}』不是本局玩家；最接近的玩家：{}",
                names.join("、")
            )
        }
    }

    /// Up to three names closest to `written`, closest first.
    fn closest(&mut self, written: &str) -> Vec<&'a str> {
        let players = self.players;
        if self.chars.is_empty() {
            self.chars = players.iter().map(|p| p.chars().collect()).collect();
        }
        let w: Vec<char> = written.chars().collect();
        let mut row = Vec::new();
        // Score = 1 - distance / longer length, +1 if one name contains the other. Keep the
        // best three; a distance that cannot beat the third best is not computed to the end.
        let mut scored: Vec<(f64, &String)> = Vec::with_capacity(4);
        for (p, pc) in players.iter().zip(&self.chars) {
            let contains = (p.len() >= written.len() && p.contains(written))
                || (written.len() > p.len() && written.contains(p.as_str()));
            let bonus = if contains { 1.0 } else { 0.0 };
            let len = w.len().max(pc.len()).max(1);
            let third = if scored.len() == 3 { scored[2].0 } else { 0.0 };
            // Largest distance that still scores above `third`.
            let room = (1.0 + bonus - third) * len as f64;
            if room <= 0.0 {
                continue;
            }
            let max_d = (room.ceil() as usize).saturating_sub(1).min(len);
            let Some(d) = levenshtein(&w, pc, &mut row, max_d) else {
                continue;
            };
            let sc = 1.0 - d as f64 / len as f64 + bonus;
            if sc <= third && scored.len() == 3 {
                continue;
            }
            if sc > 0.0 {
                let at = scored.partition_point(|(x, _)| *x >= sc);
                scored.insert(at, (sc, p));
                scored.truncate(3);
            }
        }
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored.iter().take(3).map(|(_, p)| p.as_str()).collect()
    }
}

/// Up to three of `names` closest to `written` (the tally's measure for a misspelt
/// 投票对象), closest first: for suggestions wherever a name is not found.
pub fn closest_names(names: &[String], written: &str) -> Vec<String> {
    Names::new(names)
        .closest(written)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// Punctuation in one width: full-width ASCII forms (`（`, `，`, `！`…) and the ideographic
/// space and full stop become their half-width forms.
pub(super) fn fold_width(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
            '\u{3000}' => ' ',
            '。' | '｡' => '.',
            '、' => ',',
            c => c,
        })
        .collect::<String>()
        .trim()
        .to_string()
}

/// Punctuation that ends a one-line target before its reason (`清酒，投票理由：…`).
pub(super) fn is_trailing_punct(c: char) -> bool {
    matches!(c, ',' | '.' | ';' | ':' | '!' | '?' | ' ' | '~')
}

/// Edit distance over chars (one reused row; names are short), or `None` once it is sure
/// to exceed `max`.
fn levenshtein(a: &[char], b: &[char], row: &mut Vec<usize>, max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    row.clear();
    row.extend(0..=b.len());
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        let mut row_min = row[0];
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            row_min = row_min.min(row[j + 1]);
            prev = cur;
        }
        if row_min > max {
            return None;
        }
    }
    let d = row[b.len()];
    (d <= max).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lev(a: &str, b: &str, max: usize) -> Option<usize> {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        levenshtein(&a, &b, &mut Vec::new(), max)
    }

    #[test]
    fn bounded_edit_distance() {
        assert_eq!(lev("大黄峰", "大黄蜂", 5), Some(1));
        assert_eq!(lev("kitten", "sitting", 3), Some(3));
        assert_eq!(lev("kitten", "sitting", 2), None);
        assert_eq!(lev("", "abc", 3), Some(3));
        assert_eq!(lev("abc", "abc", 0), Some(0));
    }

    #[test]
    fn suggestions_rank_closest_first() {
        let players: Vec<String> = ["傻树", "不见", "白色防御者", "白色小猫", "大黄蜂", "吉祥猪"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut n = Names::new(&players);
        assert_eq!(n.resolve("大黄蜂"), Ok(Some("大黄蜂".into())));
        let e = n.resolve("白色防御").unwrap_err();
        assert!(e.ends_with("最接近的玩家：白色防御者、白色小猫"), "{e}");
        let e = n.resolve("白色").unwrap_err();
        assert!(e.starts_with("投票对象『白色』不明确"), "{e}");
        let e = n.resolve("傻树树").unwrap_err();
        assert!(e.contains("最接近的玩家：傻树"), "{e}");
        let e = n.resolve("zzzzzz").unwrap_err();
        assert_eq!(e, "投票对象『zzzzzz』不是本局玩家");
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// A name that contains the written one (or is contained in it) gets the +1: it ranks
    /// above a name nearer in edit distance, and a name that merely has the length gets none.
    #[test]
    fn a_containing_or_contained_name_ranks_first() {
        let players = names(&["白色小猫咪咪", "小狗"]);
        let mut n = Names::new(&players);
        assert_eq!(
            n.resolve("小猫").unwrap_err(),
            "投票对象『小猫』不是本局玩家；最接近的玩家：白色小猫咪咪、小狗"
        );
        let players = names(&["大黄蜂本人", "大黄蜂", "小狗"]);
        let mut n = Names::new(&players);
        assert_eq!(
            n.resolve("大黄蜂本蜂").unwrap_err(),
            "投票对象『大黄蜂本蜂』不是本局玩家；最接近的玩家：大黄蜂、大黄蜂本人"
        );
    }

    /// The score is the distance relative to the longer name: two edits in six characters
    /// rank above two edits in four.
    #[test]
    fn the_distance_counts_relative_to_the_longer_name() {
        let players = names(&["abyy", "abcxdy"]);
        let mut n = Names::new(&players);
        assert_eq!(
            n.resolve("abcd").unwrap_err(),
            "投票对象『abcd』不是本局玩家；最接近的玩家：abcxdy、abyy"
        );
    }

    /// Three suggestions are kept; a closer name met after three weaker ones replaces the
    /// weakest, and the list comes out best first.
    #[test]
    fn a_closer_name_after_three_replaces_the_weakest() {
        let players = names(&["axxx", "abxx", "abyy", "abcx"]);
        let mut n = Names::new(&players);
        assert_eq!(
            n.resolve("abcd").unwrap_err(),
            "投票对象『abcd』不是本局玩家；最接近的玩家：abcx、abxx、abyy"
        );
    }
}

#[cfg(test)]
mod punct_tests {
    use super::*;

    /// 「投票格式中标点符号不区分全半角。投票对象与投票理由之间可以不换行。」
    #[test]
    fn punctuation_width_and_trailing_marks() {
        let players: Vec<String> = ["清酒", "西瓜（大）", "A.B"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut n = Names::new(&players);
        assert_eq!(n.resolve("清酒，"), Ok(Some("清酒".into())));
        assert_eq!(n.resolve("清酒。"), Ok(Some("清酒".into())));
        assert_eq!(n.resolve("西瓜(大)"), Ok(Some("西瓜（大）".into())));
        assert_eq!(n.resolve("A.B"), Ok(Some("A.B".into())));
        assert_eq!(n.resolve("Ａ．Ｂ"), Ok(Some("A.B".into())));
        assert!(n.resolve("清").is_err());
    }
}
