//! Text normalisation before matching, with a map from every normalised character back to
//! the original span it came from, built in the same single pass (and, through [`Sink`],
//! the scanner's automaton stepped in it too).
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

/// Normalised text and the map from each of its characters back to the original byte span
/// of the character (or run of repeated characters) it came from.
///
/// The map is kept as segments, built in the same pass as the text: a run of characters
/// each of which came from one original character of the same length, back to back (most
/// of a post: CJK ideographs, ASCII), is one segment with an offset; any other character
/// (`，` from `,`, `(5)` from `⑸`, a character that absorbed repeats) is a segment of its
/// own with its span.
#[derive(Debug, Default, Clone)]
pub struct Normalized {
    pub text: String,
    segs: Vec<Seg>,
    /// The text holds a clock time (`21:05`, see [`super::patterns::has_clock_time`]).
    pub(crate) clock: bool,
    /// The text holds an opening quotation mark 「 “ 『.
    pub(crate) quote_marks: bool,
    /// The original holds `"`, `[` or an opening quotation mark 「 “ 『: without one no
    /// hit can be inside quotes.
    pub(crate) source_quotes: bool,
}

/// One segment of the span map, from normalised byte `out` on (to the next segment's).
#[derive(Debug, Clone, Copy)]
struct Seg {
    out: u32,
    src: u32,
    /// [`AFFINE`]: every byte maps to `src + (byte - out)`; else one character whose
    /// original span is `src..end`.
    end: u32,
}

const AFFINE: u32 = u32::MAX;

impl Normalized {
    /// The original byte span of the normalised byte range `[s, e)`.
    pub fn original_span(&self, s: usize, e: usize) -> (usize, usize) {
        if self.text.is_empty() || s >= e {
            return (0, 0);
        }
        (self.char_span(s).0, self.char_span(e - 1).1)
    }

    /// The original span of the normalised character holding byte `b`.
    fn char_span(&self, b: usize) -> (usize, usize) {
        let bytes = self.text.as_bytes();
        let mut cs = b;
        while cs > 0 && bytes[cs] & 0xC0 == 0x80 {
            cs -= 1;
        }
        let i = self.segs.partition_point(|g| g.out as usize <= cs) - 1;
        let g = self.segs[i];
        if g.end == AFFINE {
            let len = utf8_len(bytes[cs]);
            let d = g.src as usize + cs - g.out as usize;
            (d, d + len)
        } else {
            (g.src as usize, g.end as usize)
        }
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0..0x80 => 1,
        0xE0..0xF0 => 3,
        0xF0.. => 4,
        _ => 2,
    }
}

/// Told of every character the normaliser emits, in order (the scanner steps its automaton
/// in the same pass).
pub trait Sink {
    fn emit(&mut self, c: char);
}

impl Sink for () {
    #[inline(always)]
    fn emit(&mut self, _: char) {}
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
    normalize_with(s, n, &mut ());
}

/// [`normalize_into`], telling `sink` of each character as it is emitted.
pub fn normalize_with(s: &str, n: &mut Normalized, sink: &mut impl Sink) {
    n.text.clear();
    n.segs.clear();
    n.clock = false;
    n.quote_marks = false;
    n.source_quotes = false;
    n.text.reserve(s.len());
    let t2s = t2s_table();
    let mut st = Run::default();
    for (pos, c) in s.char_indices() {
        let (os, oe) = (pos as u32, (pos + c.len_utf8()) as u32);
        let u = c as u32;
        // The fast paths (most of a post): ASCII and CJK ideographs, inline.
        if u < 0x80 {
            if !ASCII_NOISE[u as usize] {
                let o = c.to_ascii_lowercase();
                st.emit(n, o, os, oe, sink);
                if o.is_ascii_digit() {
                    n.clock |= ends_with_clock_time(n.text.as_bytes());
                }
            } else if c == '"' {
                n.source_quotes = true;
            }
            if c == '\n' {
                st = Run::default();
            } else if c == '[' {
                n.source_quotes = true;
            }
            continue;
        }
        if (CJK_LO..=CJK_HI).contains(&u) {
            st.emit(n, t2s[(u - CJK_LO) as usize], os, oe, sink);
            continue;
        }
        if matches!(c, '「' | '“' | '『') {
            n.source_quotes = true;
        }
        fold_char(c, &mut |o: char| {
            st.emit(n, o, os, oe, sink);
            if o.is_ascii_digit() {
                n.clock |= ends_with_clock_time(n.text.as_bytes());
            }
            if matches!(o, '「' | '“' | '『') {
                n.quote_marks = true;
            }
        });
    }
}

/// The text ends with a digit, `:` and two digits (what [`super::patterns::has_clock_time`]
/// looks for at each colon), checked as each digit is emitted.
#[inline(always)]
fn ends_with_clock_time(b: &[u8]) -> bool {
    let l = b.len();
    l >= 4 && b[l - 3] == b':' && b[l - 4].is_ascii_digit() && b[l - 2].is_ascii_digit()
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
    /// Where the last character starts, in the normalised and the original text.
    last_out: u32,
    last_src: u32,
}

impl Run {
    /// Append `o`, which came from the original bytes `[os, oe)`, to `n`.
    #[inline(always)]
    fn emit(&mut self, n: &mut Normalized, o: char, os: u32, oe: u32, sink: &mut impl Sink) {
        if self.last == Some(o) {
            if self.len >= 2 {
                // A repeat: the previous character now covers this one too.
                match n.segs.last_mut() {
                    Some(g) if g.out == self.last_out => g.end = oe,
                    _ => n.segs.push(Seg {
                        out: self.last_out,
                        src: self.last_src,
                        end: oe,
                    }),
                }
                return;
            }
            self.len += 1;
        } else {
            self.len = 1;
            self.last = Some(o);
        }
        let out = n.text.len() as u32;
        let len = o.len_utf8() as u32;
        self.last_out = out;
        self.last_src = os;
        if oe - os != len {
            n.segs.push(Seg {
                out,
                src: os,
                end: oe,
            });
        } else if !matches!(n.segs.last(), Some(g) if g.end == AFFINE && g.src.wrapping_add(out - g.out) == os)
        {
            n.segs.push(Seg {
                out,
                src: os,
                end: AFFINE,
            });
        }
        n.text.push(o);
        sink.emit(o);
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

    /// The span map as it was first built: two original offsets per normalised byte.
    fn per_byte_maps(s: &str) -> (String, Vec<u32>, Vec<u32>) {
        let (mut text, mut start, mut end) = (String::new(), Vec::new(), Vec::new());
        let (mut last, mut run) = (None, 0);
        for (pos, c) in s.char_indices() {
            let (os, oe) = (pos as u32, (pos + c.len_utf8()) as u32);
            fold_char(c, &mut |o: char| {
                let len = o.len_utf8();
                if last == Some(o) {
                    if run >= 2 {
                        let l = end.len();
                        for e in &mut end[l - len..] {
                            *e = oe;
                        }
                        return;
                    }
                    run += 1;
                } else {
                    (last, run) = (Some(o), 1);
                }
                text.push(o);
                start.extend_from_slice(&[os; 4][..len]);
                end.extend_from_slice(&[oe; 4][..len]);
            });
            if c == '\n' {
                (last, run) = (None, 0);
            }
        }
        (text, start, end)
    }

    /// The segment map answers what the per-byte map answered, for every character range.
    fn same_spans_as_per_byte_maps(s: &str) {
        let n = normalize(s);
        let (text, start, end) = per_byte_maps(s);
        assert_eq!(n.text, text, "{s:?}");
        let bounds: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for (i, &a) in bounds.iter().enumerate() {
            for &b in &bounds[i + 1..] {
                assert_eq!(
                    n.original_span(a, b),
                    (start[a] as usize, end[b - 1] as usize),
                    "{s:?} [{a}, {b})"
                );
            }
        }
        assert_eq!(
            n.clock,
            super::super::patterns::has_clock_time(&n.text),
            "{s:?}"
        );
        let opens = |t: &str| t.contains(['「', '“', '『']);
        assert_eq!(n.quote_marks, opens(&n.text), "{s:?}");
        assert_eq!(n.source_quotes, opens(s) || s.contains(['"', '[']), "{s:?}");
    }

    #[test]
    fn the_segment_span_map_agrees_with_a_map_per_byte() {
        for s in [
            "",
            "你是傻 * 逼吧",
            "卧槽槽槽！",
            "槽*槽*槽槽\n槽槽槽",
            "ｉⅱⅲⅳ ⑸⑸⑸ ⓿➃",
            "導演說：21:05 我問了導演「他說」",
            "１２：３４ 1:2 12:345 ::11",
            "ＮＭＳＬ nmsl Ｎｍｓｌ\u{200B}傻\u{FEFF}逼",
            "ａａａaaa ＡＡＡ 𠀀𠀀𠀀 ﹁引号﹂ ｢半角｣ \"引\" [quote]x[/quote]",
        ] {
            same_spans_as_per_byte_maps(s);
        }
        let alphabet: Vec<char> =
            "傻逼槽卧導演说a A1:2 ，：？。*_\n\"[「」“”『』ⅲⅱ⑸１２：ｉ\u{200B}𠀀ﾊﾟ"
                .chars()
                .collect();
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..3000 {
            let len = rng.usize(0..14);
            let s: String = (0..len)
                .map(|_| alphabet[rng.usize(..alphabet.len())])
                .collect();
            same_spans_as_per_byte_maps(&s);
        }
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
