//! Text normalisation before matching, with a map from every normalised byte back to the
//! original span it came from.
//!
//! Phases, per character: zero-width and noise characters are dropped (`卧*槽`, `傻 逼`);
//! the fast paths (ASCII, CJK ideographs, full-width forms) are table lookups; anything else
//! goes through NFKC plus [`extra_fold`] for what NFKC leaves alone (`⓿`, `➃`); the result is
//! lower-cased and traditional → simplified (fast2s, MIT); a character equal to the one just
//! emitted twice in a row is folded into it (`卧槽槽槽槽` → `卧槽槽`, `傻傻傻逼` → `傻傻逼`):
//! runs are capped at two so that 妈妈 stays 妈妈 (他妈妈 is no curse) while a word padded
//! with repeats still matches. Patterns go through the same function, so
//! whatever the fold does to text it does to the word lists too.

use std::sync::OnceLock;

use icu_normalizer::ComposingNormalizerBorrowed;

/// NFKC from icu_normalizer (already compiled for `url`'s IDNA), data baked in.
const NFKC: ComposingNormalizerBorrowed<'static> = ComposingNormalizerBorrowed::new_nfkc();

/// Normalised text and, for each of its bytes, the original byte span of the character
/// (or run of repeated characters) it came from.
#[derive(Debug, Default, Clone)]
pub struct Normalized {
    pub text: String,
    start: Vec<u32>,
    end: Vec<u32>,
}

impl Normalized {
    /// The original byte span of the normalised byte range `[s, e)`.
    pub fn original_span(&self, s: usize, e: usize) -> (usize, usize) {
        if self.text.is_empty() || s >= e {
            return (0, 0);
        }
        (self.start[s] as usize, self.end[e - 1] as usize)
    }
}

const CJK_LO: u32 = 0x4E00;
const CJK_HI: u32 = 0x9FFF;

/// Traditional → simplified for the CJK Unified Ideographs block, built once from fast2s.
fn t2s_table() -> &'static [char] {
    static T: OnceLock<Vec<char>> = OnceLock::new();
    T.get_or_init(|| {
        let mut buf = [0u8; 4];
        (CJK_LO..=CJK_HI)
            .map(|u| {
                let c = char::from_u32(u).unwrap_or(' ');
                let s = fast2s::convert(c.encode_utf8(&mut buf));
                let mut it = s.chars();
                match (it.next(), it.next()) {
                    (Some(x), None) => x,
                    _ => c,
                }
            })
            .collect()
    })
}

/// Characters dropped wherever they appear: zero-width and formatting characters.
fn is_zero_width(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}' | '\u{2060}'..='\u{2064}' | '\u{FEFF}' | '\u{00AD}'
        | '\u{180E}' | '\u{034F}' | '\u{202A}'..='\u{202E}' | '\u{FE00}'..='\u{FE0F}')
}

/// Noise put inside a word to dodge filters. Sentence punctuation (，。！？、：) is not noise:
/// it separates words, so `你真傻。逼我投你？` never joins into one.
const fn is_noise(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t'
            | '\r'
            | '*'
            | '_'
            | '~'
            | '^'
            | '`'
            | '\''
            | '"'
            | '|'
            | '\\'
            | '/'
            | '+'
            | '='
            | '#'
            | '@'
            | '$'
            | '%'
            | '&'
            | '.'
            | '-'
            | '·'
            | '•'
            | '‧'
            | '・'
            | '\u{3000}'
            | '～'
            | '＊'
            | '丶'
            | '×'
            | '♂'
            | '♀'
            | '☆'
            | '★'
            | '○'
            | '●'
            | '◎'
            | '◇'
            | '◆'
            | '□'
            | '■'
            | '♡'
            | '♥'
            | '❤'
            | '✿'
            | '❀'
            | '†'
    )
}

/// What NFKC leaves alone but a reader sees as a letter or digit.
fn extra_fold(c: char) -> Option<char> {
    let u = c as u32;
    let digit = |base: u32| char::from_digit(u - base, 10);
    match u {
        0x24FF | 0x24EA | 0x1F10B | 0x1F10C => Some('0'), // ⓿ ⓪ 🄋 🄌
        0x2776..=0x277E => char::from_digit(u - 0x2776 + 1, 10), // ❶-❾
        0x2780..=0x2788 => char::from_digit(u - 0x2780 + 1, 10), // ➀-➈
        0x278A..=0x2792 => char::from_digit(u - 0x278A + 1, 10), // ➊-➒
        0x24F5..=0x24FD => char::from_digit(u - 0x24F5 + 1, 10), // ⓵-⓽
        0x1F100 => Some('0'),
        0x1F101..=0x1F10A => digit(0x1F101), // 🄁-🄊 (digit comma)
        _ => None,
    }
}

/// Normalise one character into `out` (0, 1 or more characters).
#[inline]
fn fold_char(c: char, out: &mut impl FnMut(char)) {
    let u = c as u32;
    if u < 0x80 {
        if is_noise(c) {
            return;
        }
        out(c.to_ascii_lowercase());
        return;
    }
    if (CJK_LO..=CJK_HI).contains(&u) {
        out(t2s_table()[(u - CJK_LO) as usize]);
        return;
    }
    if (0xFF01..=0xFF5E).contains(&u) {
        // Full-width ASCII.
        let a = char::from_u32(u - 0xFEE0).unwrap_or(c);
        return fold_char(a, out);
    }
    if is_zero_width(c) || is_noise(c) {
        return;
    }
    if let Some(d) = extra_fold(c) {
        out(d);
        return;
    }
    // Common CJK punctuation NFKC leaves unchanged: skip the decomposition.
    if (0x3001..=0x303F).contains(&u) || (0x2010..=0x203F).contains(&u) {
        out(c);
        return;
    }
    for n in NFKC.normalize_iter(std::iter::once(c)) {
        let nu = n as u32;
        if n == c {
            for l in n.to_lowercase() {
                out(l);
            }
        } else if nu < 0x80 || (CJK_LO..=CJK_HI).contains(&nu) || extra_fold(n).is_some() {
            fold_char(n, out);
        } else if !is_noise(n) && !is_zero_width(n) {
            for l in n.to_lowercase() {
                out(l);
            }
        }
    }
}

/// Normalise `s` (see the module docs).
pub fn normalize(s: &str) -> Normalized {
    let mut n = Normalized::default();
    normalize_into(s, &mut n);
    n
}

/// [`normalize`] into `n`, reusing its buffers (a scanner normalises post after post).
pub fn normalize_into(s: &str, n: &mut Normalized) {
    n.text.clear();
    n.start.clear();
    n.end.clear();
    n.text.reserve(s.len());
    n.start.reserve(s.len());
    n.end.reserve(s.len());
    let t2s = t2s_table();
    let mut st = Run::default();
    for (pos, c) in s.char_indices() {
        let (os, oe) = (pos as u32, (pos + c.len_utf8()) as u32);
        let u = c as u32;
        // The fast paths (most of a post): ASCII and CJK ideographs, inline.
        if u < 0x80 {
            if !ASCII_NOISE[u as usize] {
                st.emit(n, c.to_ascii_lowercase(), os, oe);
            }
            if c == '\n' {
                st = Run::default();
            }
            continue;
        }
        if (CJK_LO..=CJK_HI).contains(&u) {
            st.emit(n, t2s[(u - CJK_LO) as usize], os, oe);
            continue;
        }
        fold_char(c, &mut |o: char| st.emit(n, o, os, oe));
    }
}

/// The ASCII characters [`is_noise`] drops, as a table.
const ASCII_NOISE: [bool; 128] = {
    let mut t = [false; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = is_noise(i as u8 as char);
        i += 1;
    }
    t
};

/// The run of equal characters just emitted (capped at two, see the module docs).
#[derive(Default)]
struct Run {
    last: Option<char>,
    len: u32,
}

impl Run {
    /// Append `o`, which came from the original bytes `[os, oe)`, to `n`.
    #[inline(always)]
    fn emit(&mut self, n: &mut Normalized, o: char, os: u32, oe: u32) {
        let len = o.len_utf8();
        if self.last == Some(o) {
            if self.len >= 2 {
                // A repeat: the previous character now covers this one too.
                let l = n.end.len();
                for e in &mut n.end[l - len..] {
                    *e = oe;
                }
                return;
            }
            self.len += 1;
        } else {
            self.len = 1;
            self.last = Some(o);
        }
        n.text.push(o);
        n.start.extend_from_slice(&[os; 4][..len]);
        n.end.extend_from_slice(&[oe; 4][..len]);
    }
}

/// The normalised form alone (patterns).
pub fn normalize_str(s: &str) -> String {
    normalize(s).text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_width_case_noise_traditional_and_repeats() {
        assert_eq!(normalize_str("ＮＭＳＬ"), "nmsl");
        assert_eq!(normalize_str("卧*槽"), "卧槽");
        assert_eq!(normalize_str("傻 逼"), "傻逼");
        assert_eq!(normalize_str("傻\u{200B}逼"), "傻逼");
        assert_eq!(normalize_str("傻傻傻逼"), "傻傻逼");
        assert_eq!(normalize_str("卧槽槽槽槽"), "卧槽槽");
        assert_eq!(normalize_str("他妈妈"), "他妈妈");
        assert_eq!(normalize_str("導演說"), "导演说");
        assert_eq!(normalize_str("⓿➃⑸"), "04(5)");
        // Sentence punctuation stays: it separates words.
        assert_eq!(normalize_str("傻，逼"), "傻,逼");
    }

    #[test]
    fn spans_map_back_to_the_original() {
        let s = "你是傻 * 逼吧";
        let n = normalize(s);
        let at = n.text.find("傻逼").unwrap();
        let (a, b) = n.original_span(at, at + "傻逼".len());
        assert_eq!(&s[a..b], "傻 * 逼");
        let s = "卧槽槽槽！";
        let n = normalize(s);
        let (a, b) = n.original_span(0, "卧槽槽".len());
        assert_eq!(&s[a..b], "卧槽槽槽");
    }
}
