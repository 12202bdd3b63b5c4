//! The word lists of `wordlists/`: one file per category, one entry a line, sorted and
//! de-duplicated, each entry optionally followed by a tab and comma-separated tags:
//!
//! - `short`: ambiguous on its own (草, 靠): counts only where the segmenter (jieba) cuts the
//!   text at both of its ends, so 草地 and 可靠 never match.
//! - `alone`: an exclamation only when it stands alone between punctuation (草，… / …，靠):
//!   全靠摄像头 is no curse.
//! - `h`: also match its homophone and letter spellings (傻逼 → 沙比, 煞笔, 傻b…).
//! - `yellow` / `red`: suggest that card instead of the rule set's default for the category.
//!
//! Lines starting with `#` are comments. `allow.txt` holds phrases that beat any listed word
//! they contain (麻痹大意 beats 麻痹). The lists are compiled into the binary.

use super::normalize::normalize_str;
use super::{Card, Category};

/// One list file: its name (for messages) and text.
pub struct ListFile {
    pub name: &'static str,
    pub category: Option<Category>,
    pub text: &'static str,
}

macro_rules! list {
    ($file:literal, $cat:expr) => {
        ListFile {
            name: $file,
            category: $cat,
            text: include_str!(concat!("../../wordlists/", $file)),
        }
    };
}

/// Every list shipped in `wordlists/` (the allow-list has no category).
pub fn builtin_lists() -> Vec<ListFile> {
    use Category::*;
    vec![
        list!("allow.txt", None),
        list!("assistant.txt", Some(Assistant)),
        list!("director-talk.txt", Some(DirectorTalk)),
        list!("emotional.txt", Some(Emotional)),
        list!("evidence.txt", Some(Evidence)),
        list!("identity.txt", Some(Identity)),
        list!("insult.txt", Some(Insult)),
        list!("oath.txt", Some(Oath)),
        list!("past-game.txt", Some(PastGame)),
        list!("profanity.txt", Some(Profanity)),
        list!("responsibility.txt", Some(Responsibility)),
        list!("substitute.txt", Some(Substitute)),
        list!("win-trading.txt", Some(WinTrading)),
    ]
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tags {
    pub short: bool,
    pub alone: bool,
    pub homophone: bool,
    pub card: Option<Card>,
}

#[derive(Debug, Clone)]
pub struct Entry {
    /// As written in the list.
    pub phrase: String,
    pub tags: Tags,
}

/// Parse one list; errors name the file and line.
pub fn parse(name: &str, text: &str) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (phrase, tags) = match line.split_once('\t') {
            Some((p, t)) => (p, t),
            None => (line, ""),
        };
        if phrase.trim() != phrase || phrase.is_empty() {
            return Err(format!("wordlists/{name}:{}: stray whitespace", i + 1));
        }
        let mut t = Tags::default();
        for tag in tags.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            match tag {
                "short" => t.short = true,
                "alone" => t.alone = true,
                "h" => t.homophone = true,
                "blue" => t.card = Some(Card::Blue),
                "yellow" => t.card = Some(Card::Yellow),
                "red" => t.card = Some(Card::Red),
                other => {
                    return Err(format!("wordlists/{name}:{}: unknown tag `{other}`", i + 1));
                }
            }
        }
        out.push(Entry {
            phrase: phrase.to_string(),
            tags: t,
        });
    }
    Ok(out)
}

/// Entries out of order or repeated (the lists are kept sorted by byte order, unique).
pub fn order_problems(name: &str, entries: &[Entry]) -> Vec<String> {
    let mut out = Vec::new();
    for w in entries.windows(2) {
        if w[0].phrase >= w[1].phrase {
            out.push(format!(
                "wordlists/{name}: `{}` should come after `{}` (sorted, unique)",
                w[0].phrase, w[1].phrase
            ));
        }
    }
    out
}

/// Characters a writer swaps for one another to dodge a filter: a class per sound.
const HOMOPHONES: &[&[&str]] = &[
    &["傻", "沙", "煞", "啥", "撒", "杀", "sha", "s"],
    &["逼", "比", "币", "笔", "b", "bi", "碧", "批"],
    &["你", "尼", "泥", "ni", "n"],
    &["妈", "吗", "马", "玛", "嘛", "ma", "m"],
    &["草", "操", "艹", "槽", "曹", "cao", "c"],
    &["死", "si", "s"],
    &["麻", "ma", "m"],
    &["痹", "痺", "蔽", "b", "bi"],
    &["婊", "表", "biao", "b"],
    &["狗", "gou", "g"],
    &["脑", "nao"],
    &["残", "can", "蚕"],
    &["智", "zhi"],
    &["障", "zhang"],
    &["贱", "jian", "剑"],
    &["雕", "屌", "吊", "diao"],
];

/// The homophone spellings of `phrase` (itself first), at most `cap` of them.
pub fn homophone_variants(phrase: &str, cap: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    for c in phrase.chars() {
        let mut s = [0u8; 4];
        let cs: &str = c.encode_utf8(&mut s);
        let class: Vec<&str> = HOMOPHONES
            .iter()
            .find(|cl| cl[0] == cs)
            .map(|cl| cl.to_vec())
            .unwrap_or_else(|| vec![cs]);
        let mut next = Vec::new();
        for prefix in &out {
            for alt in &class {
                if next.len() < cap {
                    next.push(format!("{prefix}{alt}"));
                }
            }
        }
        out = next;
    }
    // A spelling made of one letter per character (sb, nm) is too short to trust alone,
    // unless it is the way the phrase is written anyway.
    out.retain(|v| v == phrase || !v.is_ascii() || v.len() >= 3);
    out
}

/// Pinyin spellings differ by the initials speakers merge: zh↔z, ch↔c, sh↔s, n↔l.
pub fn pinyin_variants(phrase: &str) -> Vec<String> {
    let mut out = vec![phrase.to_string()];
    if !phrase.is_ascii() || phrase.len() < 3 {
        return out;
    }
    for (a, b) in [("zh", "z"), ("ch", "c"), ("sh", "s")] {
        let more: Vec<String> = out
            .iter()
            .flat_map(|v| {
                [
                    v.replace(a, b),
                    v.replace(b, a).replace(&format!("{a}h"), a),
                ]
            })
            .collect();
        out.extend(more);
    }
    if let Some(rest) = phrase.strip_prefix('n') {
        out.push(format!("l{rest}"));
    }
    out.sort();
    out.dedup();
    out
}

/// The normalised patterns an entry stands for.
pub fn patterns(e: &Entry) -> Vec<String> {
    let base = if e.tags.homophone {
        homophone_variants(&e.phrase, 64)
    } else {
        vec![e.phrase.clone()]
    };
    let mut out: Vec<String> = base
        .iter()
        .flat_map(|v| pinyin_variants(v))
        .map(|v| normalize_str(&v))
        .filter(|v| !v.is_empty())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_list_parses_and_is_sorted_and_unique() {
        let mut problems = Vec::new();
        for f in builtin_lists() {
            match parse(f.name, f.text) {
                Ok(e) => {
                    assert!(!e.is_empty(), "{} is empty", f.name);
                    problems.extend(order_problems(f.name, &e));
                }
                Err(e) => problems.push(e),
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    #[test]
    fn order_check_catches_unsorted_and_repeated_entries() {
        let e = parse("t", "b\na\na\n").unwrap();
        assert_eq!(order_problems("t", &e).len(), 2);
        assert!(parse("t", "a\tbogus\n").is_err());
    }

    #[test]
    fn homophones_and_pinyin_expand() {
        let v = homophone_variants("傻逼", 64);
        for want in ["傻逼", "沙比", "煞笔", "傻b", "sb", "shabi", "撒币"] {
            assert!(
                v.iter().any(|x| x == want) || want == "sb",
                "{want} missing: {v:?}"
            );
        }
        let p = pinyin_variants("shabi");
        assert!(p.contains(&"sabi".to_string()), "{p:?}");
        let p = pinyin_variants("nmsl");
        assert!(p.contains(&"lmsl".to_string()), "{p:?}");
    }
}
