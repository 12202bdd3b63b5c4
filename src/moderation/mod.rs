//! Moderation: find the phrasing a rule post's 违规判定 forbids, with the span it found and
//! why. Pure: text in, hits out (no SQLite, network or clock).
//!
//! Pipeline of [`Detector::scan`]: [`normalize`] the text (keeping a map back to the
//! original), run one Aho–Corasick pass over it for every listed word, allow-list phrase and
//! rule trigger, drop hits an allow-list phrase or player name covers, hits inside quotes,
//! letter words glued to other letters (`usb`) and short words the segmenter does not cut
//! out (草地), then run the [`patterns`] the triggers woke. Styled text (red, enlarged),
//! floods and 诈尸 need more than one post's text: [`scan_post`] and [`floods`].

pub mod classifier;
pub mod flood;
pub mod frames;
pub mod ledger;
pub mod lexicon;
pub mod normalize;
pub mod patterns;
pub mod records;
pub mod windows;

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use daachorse::{
    CharwiseDoubleArrayAhoCorasick, CharwiseDoubleArrayAhoCorasickBuilder,
    MatchKind as DaachorseMatchKind,
};
use serde::{Deserialize, Serialize};

pub use flood::flood_post;
pub use normalize::{Normalized, normalize};

/// The contract's flag categories (`docs/interfaces.md`, `flags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    Profanity,
    Insult,
    Oath,
    Emotional,
    Identity,
    PastGame,
    Substitute,
    Assistant,
    DirectorTalk,
    Evidence,
    RedFont,
    LargeFont,
    ZombiePost,
    Flood,
    Responsibility,
    WinTrading,
}

impl Category {
    pub const ALL: [Category; 16] = [
        Category::Profanity,
        Category::Insult,
        Category::Oath,
        Category::Emotional,
        Category::Identity,
        Category::PastGame,
        Category::Substitute,
        Category::Assistant,
        Category::DirectorTalk,
        Category::Evidence,
        Category::RedFont,
        Category::LargeFont,
        Category::ZombiePost,
        Category::Flood,
        Category::Responsibility,
        Category::WinTrading,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Profanity => "profanity",
            Category::Insult => "insult",
            Category::Oath => "oath",
            Category::Emotional => "emotional",
            Category::Identity => "identity",
            Category::PastGame => "past-game",
            Category::Substitute => "substitute",
            Category::Assistant => "assistant",
            Category::DirectorTalk => "director-talk",
            Category::Evidence => "evidence",
            Category::RedFont => "red-font",
            Category::LargeFont => "large-font",
            Category::ZombiePost => "zombie-post",
            Category::Flood => "flood",
            Category::Responsibility => "responsibility",
            Category::WinTrading => "win-trading",
        }
    }

    /// The name moderators read in the text reports (the JSON keeps [`Category::as_str`]).
    pub fn chinese(self) -> &'static str {
        match self {
            Category::Profanity => "脏话",
            Category::Insult => "侮辱",
            Category::Oath => "发誓/诅咒",
            Category::Emotional => "贴脸/情绪",
            Category::Identity => "马甲",
            Category::PastGame => "往期游戏",
            Category::Substitute => "替补",
            Category::Assistant => "场外助理",
            Category::DirectorTalk => "导演相关",
            Category::Evidence => "贴证",
            Category::RedFont => "红字",
            Category::LargeFont => "大字",
            Category::ZombiePost => "诈尸",
            Category::Flood => "刷屏",
            Category::Responsibility => "游戏责任",
            Category::WinTrading => "送赢",
        }
    }

    pub fn parse(s: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A card colour (`blue`|`yellow`|`red` in JSON; 蓝牌/黄牌/红牌 in what users paste).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Card {
    Green,
    Blue,
    Yellow,
    Red,
}

impl Card {
    pub fn as_str(self) -> &'static str {
        match self {
            Card::Green => "green",
            Card::Blue => "blue",
            Card::Yellow => "yellow",
            Card::Red => "red",
        }
    }
    pub fn chinese(self) -> &'static str {
        match self {
            Card::Green => "绿牌",
            Card::Blue => "蓝牌",
            Card::Yellow => "黄牌",
            Card::Red => "红牌",
        }
    }
    pub fn parse(s: &str) -> Option<Card> {
        match s.trim() {
            "green" | "绿" | "绿牌" => Some(Card::Green),
            "blue" | "蓝" | "蓝牌" => Some(Card::Blue),
            "yellow" | "黄" | "黄牌" => Some(Card::Yellow),
            "red" | "红" | "红牌" => Some(Card::Red),
            _ => None,
        }
    }
}

/// One finding in one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub category: Category,
    /// Byte span in the original text.
    pub start: usize,
    pub end: usize,
    /// The original text of the span.
    pub matched: String,
    /// Why it fired: the list entry or the rule that matched.
    pub reason: String,
    /// A card the entry suggests instead of the rule set's default.
    pub card: Option<Card>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PatKind {
    Word {
        category: Category,
        entry: u32,
    },
    Allow,
    Trigger(patterns::Group),
    /// A literal some rules need ([`patterns::need_literals`]): its bit.
    Need(patterns::Needs),
    /// A literal of slot `slot` of windowed rule `rule` ([`windows`]).
    Slot {
        rule: u32,
        slot: u8,
    },
}

/// The compiled lists of one game: the built-in word lists, the allow-list and rule
/// triggers, and the game's own allow phrases, in one character-wise double-array
/// Aho–Corasick automaton (daachorse: one transition per character, so a CJK text takes a
/// third of the steps a byte automaton takes). A normalised pattern that several entries
/// share (a word in two lists, a homophone spelling two entries produce) is one pattern
/// whose value indexes all of their kinds.
struct Compiled {
    da: CharwiseDoubleArrayAhoCorasick<u32>,
    kinds: Vec<Vec<PatKind>>,
    entries: Vec<lexicon::Entry>,
    windows: Vec<windows::Rule>,
}

impl Compiled {
    /// `allow`: the game's phrases, already normalised.
    fn build(allow: &[String]) -> Result<Compiled, String> {
        let mut index: HashMap<String, u32> = HashMap::new();
        let mut kinds: Vec<Vec<PatKind>> = Vec::new();
        let mut add = |p: String, k: PatKind| {
            if p.is_empty() {
                return;
            }
            let i = *index.entry(p).or_insert_with(|| {
                kinds.push(Vec::new());
                (kinds.len() - 1) as u32
            });
            let v = &mut kinds[i as usize];
            if !v.contains(&k) {
                v.push(k);
            }
        };
        let mut entries = Vec::new();
        for f in lexicon::builtin_lists() {
            for e in lexicon::parse(f.name, f.text)? {
                let idx = entries.len() as u32;
                for p in lexicon::patterns(&e) {
                    add(
                        p,
                        match f.category {
                            Some(category) => PatKind::Word {
                                category,
                                entry: idx,
                            },
                            None => PatKind::Allow,
                        },
                    );
                }
                entries.push(e);
            }
        }
        for a in allow {
            add(a.clone(), PatKind::Allow);
        }
        for (g, t) in patterns::triggers() {
            add(normalize::normalize_str(t), PatKind::Trigger(g));
        }
        for (i, t) in patterns::need_literals().into_iter().enumerate() {
            // The rules run on the normalised text: a literal the normaliser would change
            // could never be found there (a unit test keeps them normal).
            add(t.to_string(), PatKind::Need(1 << i));
        }
        let windows = windows::parse(windows::FILE)?;
        for (ri, r) in windows.iter().enumerate() {
            let veto = (windows::VETO as usize, &r.veto);
            for (si, lits) in r.slots.iter().enumerate().chain([veto]) {
                for l in lits {
                    add(
                        l.clone(),
                        PatKind::Slot {
                            rule: ri as u32,
                            slot: si as u8,
                        },
                    );
                }
            }
        }
        let da = CharwiseDoubleArrayAhoCorasickBuilder::new()
            .match_kind(DaachorseMatchKind::Standard)
            .build_with_values(index)
            .map_err(|e| format!("word lists: {e}"))?;
        Ok(Compiled {
            da,
            kinds,
            entries,
            windows,
        })
    }
}

/// The compiled lists for one game ([`Detector::new`] with its player names and
/// whitelist). Cheap to ask for again: compilations are cached per allow-list, so a
/// daemon that asks for its game's detector on every poll pass compiles it once, and
/// again only when the allow-list (a moderator's whitelist) changes.
#[derive(Clone)]
pub struct Detector {
    compiled: Arc<Compiled>,
    patterns: &'static patterns::Patterns,
}

impl std::fmt::Debug for Detector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Detector")
            .field("patterns", &self.compiled.kinds.len())
            .finish()
    }
}

/// jieba-rs's own default dictionary (`wordlists/jieba/dict.txt`, MIT), embedded as text.
/// The crate's `default-dict` feature embeds the same file zstd-compressed, which on every
/// cold build compiles zstd from C and compresses 7.6 MB in a proc macro.
const JIEBA_DICT: &str = include_str!("../../wordlists/jieba/dict.txt");

fn jieba() -> &'static jieba_rs::Jieba {
    static J: OnceLock<jieba_rs::Jieba> = OnceLock::new();
    J.get_or_init(|| {
        jieba_rs::Jieba::with_dict(&mut JIEBA_DICT.as_bytes())
            .expect("wordlists/jieba/dict.txt is jieba's dictionary (a unit test checks)")
    })
}

/// One cached compilation and its allow-list's key (normalised, sorted, unique).
struct CacheEntry {
    key: Vec<String>,
    compiled: Arc<Compiled>,
}

/// A handful of games per process at most; past this the oldest entry goes.
const CACHE_CAP: usize = 16;

fn cache() -> &'static Mutex<Vec<CacheEntry>> {
    static C: OnceLock<Mutex<Vec<CacheEntry>>> = OnceLock::new();
    C.get_or_init(|| Mutex::new(Vec::new()))
}

/// How many times each allow-list was compiled in this process.
static BUILDS: LazyLock<Mutex<HashMap<Vec<String>, usize>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn allow_key(allow: &[String]) -> Vec<String> {
    let mut k: Vec<String> = allow
        .iter()
        .map(|a| normalize::normalize_str(a))
        .filter(|p| !p.is_empty())
        .collect();
    k.sort();
    k.dedup();
    k
}

impl Detector {
    /// The built-in lists plus `allow` (the game's player names, the game's whitelist):
    /// phrases that beat any listed word they contain. Compiled once per distinct
    /// allow-list (order, repeats and spellings that normalise alike do not matter) and
    /// shared after that.
    pub fn new(allow: &[String]) -> Result<Detector, String> {
        let key = allow_key(allow);
        let mut c = cache().lock().unwrap_or_else(|e| e.into_inner());
        let compiled = match c.iter().find(|e| e.key == key) {
            Some(e) => e.compiled.clone(),
            None => {
                let compiled = Arc::new(Compiled::build(&key)?);
                *BUILDS
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .entry(key.clone())
                    .or_default() += 1;
                if c.len() >= CACHE_CAP {
                    c.remove(0);
                }
                c.push(CacheEntry {
                    key,
                    compiled: compiled.clone(),
                });
                compiled
            }
        };
        Ok(Detector {
            compiled,
            patterns: patterns::compiled(),
        })
    }

    /// How many times the lists for this allow-list were compiled in this process (0:
    /// never). Tests pin the reuse with it.
    pub fn builds(allow: &[String]) -> usize {
        let b = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
        b.get(&allow_key(allow)).copied().unwrap_or(0)
    }

    /// Do two detectors share one compilation?
    pub fn same_lists(&self, other: &Detector) -> bool {
        Arc::ptr_eq(&self.compiled, &other.compiled)
    }

    /// Every hit in `text` (a post's own words: the store has already cut out quotes).
    pub fn scan(&self, text: &str) -> Vec<Hit> {
        type Scratch = (Normalized, Vec<Found>);
        thread_local! {
            static SCRATCH: std::cell::RefCell<Scratch> = Default::default();
        }
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut g) => {
                let (n, found) = &mut *g;
                self.normalize_and_find(text, n, found);
                self.scan_normalized(text, n, found)
            }
            Err(_) => {
                let (mut n, mut found) = Scratch::default();
                self.normalize_and_find(text, &mut n, &mut found);
                self.scan_normalized(text, &n, &found)
            }
        })
    }

    /// Normalise `text` into `n` and, in the same pass, step the automaton over each
    /// normalised character: `found` gets every (overlapping) pattern occurrence.
    fn normalize_and_find(&self, text: &str, n: &mut Normalized, found: &mut Vec<Found>) {
        struct Step<'a> {
            st: daachorse::charwise::iter::FindOverlappingStepper<'a, u32>,
            found: &'a mut Vec<Found>,
        }
        impl normalize::Sink for Step<'_> {
            #[inline(always)]
            fn emit(&mut self, c: char) {
                self.st.consume(c);
                for m in self.st.matches() {
                    self.found
                        .push((m.start() as u32, m.end() as u32, m.value()));
                }
            }
        }
        found.clear();
        let mut step = Step {
            st: self.compiled.da.find_overlapping_stepper(),
            found,
        };
        normalize::normalize_with(text, n, &mut step);
    }

    /// [`Detector::scan`] once `text` is normalised into `n` with the pattern occurrences
    /// `found` in it.
    fn scan_normalized(&self, text: &str, n: &Normalized, found: &[Found]) -> Vec<Hit> {
        let quoted = if n.quote_marks {
            quoted_ranges(&n.text)
        } else {
            Vec::new()
        };
        let mut words: Vec<(usize, usize, Category, u32)> = Vec::new();
        let mut allowed: Vec<(usize, usize)> = Vec::new();
        let mut groups = patterns::GroupSet::default();
        let mut needs: patterns::Needs = 0;
        let mut slots: Vec<windows::SlotHit> = Vec::new();
        for &(ms, me, v) in found {
            let (ms, me) = (ms as usize, me as usize);
            for &k in &self.compiled.kinds[v as usize] {
                match k {
                    PatKind::Word { category, entry } => words.push((ms, me, category, entry)),
                    PatKind::Allow => allowed.push((ms, me)),
                    PatKind::Trigger(g) => groups.insert(g),
                    PatKind::Need(bit) => needs |= bit,
                    PatKind::Slot { rule, slot } => {
                        if !in_ranges(&quoted, ms, me) {
                            slots.push(windows::SlotHit {
                                rule,
                                slot,
                                start: ms as u32,
                                end: me as u32,
                            })
                        }
                    }
                }
            }
        }
        if n.clock {
            groups.insert(patterns::Group::Evidence);
        }
        let mut kept: Vec<(usize, usize, Category, u32)> = Vec::new();
        for (s, e, category, entry) in words {
            let ent = &self.compiled.entries[entry as usize];
            if in_ranges(&quoted, s, e)
                || allowed
                    .iter()
                    .any(|&(a, b)| a < e && s < b && b - a >= e - s)
            {
                continue;
            }
            let (os, oe) = n.original_span(s, e);
            let word = &n.text[s..e];
            if glued_to_letters(word, text, os, oe) {
                continue;
            }
            if ent.tags.alone && !stands_alone(&n.text, s, e) {
                continue;
            }
            if ent.tags.short && !segment_boundaries(&n.text, s, e) {
                continue;
            }
            if discusses_rules(&n.text, s, e) {
                continue;
            }
            kept.push((s, e, category, entry));
        }
        let mut hits = Vec::new();
        for &(s, e, category, entry) in &kept {
            // A word inside a longer listed word is that word's (逼 in 傻逼, 你是狗 in 骗你是狗).
            if kept
                .iter()
                .any(|&(a, b, _, _)| a <= s && e <= b && b - a > e - s)
            {
                continue;
            }
            let ent = &self.compiled.entries[entry as usize];
            let (os, oe) = n.original_span(s, e);
            hits.push(Hit {
                category,
                start: os,
                end: oe,
                matched: text[os..oe].to_string(),
                reason: format!("词表：{}", ent.phrase),
                card: ent.tags.card,
            });
        }
        if !groups.is_empty() {
            for h in self.patterns.scan(&groups, needs, text, n) {
                let covered = allowed.iter().any(|&(a, b)| {
                    let (oa, ob) = n.original_span(a, b);
                    oa <= h.start && h.end <= ob
                });
                if !covered {
                    hits.push(h);
                }
            }
        }
        if !slots.is_empty() {
            for (rule, s, e) in windows::matches(&self.compiled.windows, &n.text, &mut slots) {
                let r = &self.compiled.windows[rule as usize];
                let (os, oe) = n.original_span(s, e);
                // An allow-list phrase over the window's first or last literal takes it
                // (换人投票 is no 换人); a name between its literals does not.
                if allowed
                    .iter()
                    .any(|&(a, b)| (a <= s && s < b) || (a < e && e <= b))
                {
                    continue;
                }
                hits.push(Hit {
                    category: r.category,
                    start: os,
                    end: oe,
                    matched: text[os..oe].to_string(),
                    reason: format!("规则：{}", r.name),
                    card: None,
                });
            }
        }
        self.second_opinion(text, n, &slots, &mut hits);
        if records::worth_a_look(text, n.clock)
            && let Some((s, e, name)) = records::find(text)
        {
            hits.push(Hit {
                category: Category::Evidence,
                start: s,
                end: e,
                matched: text[s..e].to_string(),
                reason: format!("记录：{name}"),
                card: None,
            });
        }
        if hits.is_empty() {
            return hits;
        }
        if frames::is_report(text) {
            hits.clear();
            return hits;
        }
        let foreign = frames::foreign_ranges(text);
        hits.retain(|h| !frames::inside(&foreign, h.start, h.end));
        if n.source_quotes {
            hits.retain(|h| !quoted_original(text, h.start, h.end));
        }
        hits.sort_by_key(|h| (h.start, h.category));
        hits.dedup_by(|a, b| a.category == b.category && a.start < b.end && b.start < a.end);
        hits
    }
}

impl Detector {
    /// The [`classifier`]'s flags: for each open-ended category a windowed rule's first
    /// slot woke (`slots`: not negated, not vetoed in its sentence) and nothing flagged yet,
    /// the model's verdict on the post.
    fn second_opinion(
        &self,
        text: &str,
        n: &Normalized,
        slots: &[windows::SlotHit],
        hits: &mut Vec<Hit>,
    ) {
        let model = classifier::model();
        let mut asked: u32 = 0;
        let rules = &self.compiled.windows;
        for sh in slots.iter().filter(|h| h.slot == 0) {
            let rule = &rules[sh.rule as usize];
            // A one-character anchor (狼, 输) is in most game posts: no gate at all.
            let anchor = &n.text[sh.start as usize..sh.end as usize];
            if anchor.chars().nth(1).is_none() || !windows::anchor_stands(rule, &n.text, slots, sh)
            {
                continue;
            }
            let c = rule.category;
            let bit = 1u32 << (c as u32);
            if asked & bit != 0 || !model.knows(c) || hits.iter().any(|h| h.category == c) {
                continue;
            }
            asked |= bit;
            if let Some((score, top)) = model.score(c, &n.text)
                && score >= classifier::THRESHOLD
            {
                let (os, oe) = n.original_span(sh.start as usize, sh.end as usize);
                hits.push(Hit {
                    category: c,
                    start: os,
                    end: oe,
                    matched: text[os..oe].to_string(),
                    reason: format!("分类器（第二意见，{score:.1}）：{}", top.join("、")),
                    card: None,
                });
            }
        }
    }
}

/// One pattern occurrence in the normalised text: start, end, the automaton's value.
type Found = (u32, u32, u32);

/// A hit inside quotation marks or a `[quote]` block in the original text: someone else's
/// words, or the rules being discussed (「发言不足五帖会吃黄牌」).
fn quoted_original(text: &str, s: usize, e: usize) -> bool {
    let (before, after) = (&text[..s], &text[e..]);
    for (open, close) in [
        ("「", "」"),
        ("“", "”"),
        ("『", "』"),
        ("[quote]", "[/quote]"),
    ] {
        if let Some(o) = before.rfind(open)
            && !before[o + open.len()..].contains(close)
            && after.contains(close)
        {
            return true;
        }
    }
    before.matches('"').count() % 2 == 1 && after.contains('"')
}

/// Ranges of the normalised text inside 「」 “” 『』 (the normaliser keeps those marks).
fn quoted_ranges(t: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (open, close) in [('「', '」'), ('“', '”'), ('『', '』')] {
        let mut from = 0;
        while let Some(o) = t[from..].find(open) {
            let o = from + o;
            match t[o..].find(close) {
                Some(c) => {
                    out.push((o, o + c + close.len_utf8()));
                    from = o + c + close.len_utf8();
                }
                None => break,
            }
        }
    }
    out
}

fn in_ranges(r: &[(usize, usize)], s: usize, e: usize) -> bool {
    r.iter().any(|&(a, b)| a <= s && e <= b)
}

/// A word starting (ending) with a letter (sb, nmsl, nmb的) is only that word where no
/// letter or digit comes right before (after) it: usb, cnmb.
fn glued_to_letters(word: &str, text: &str, s: usize, e: usize) -> bool {
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let first = word.chars().next();
    let last = word.chars().next_back();
    (alnum(first) && alnum(text[..s].chars().next_back()))
        || (alnum(last) && alnum(text[e..].chars().next()))
}

fn is_clause_sep(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_whitespace() || "，。！？、；：…".contains(c)
}

/// `[s, e)` is a clause of its own: nothing but punctuation or the text's ends around it.
fn stands_alone(t: &str, s: usize, e: usize) -> bool {
    let prev = t[..s].chars().next_back();
    let next = t[e..].chars().next();
    prev.is_none_or(is_clause_sep) && next.is_none_or(is_clause_sep)
}

/// The clause around `[s, e)` talks about the rules (规则, 违规, 判罚…), not with the words.
fn discusses_rules(t: &str, s: usize, e: usize) -> bool {
    let a = t[..s]
        .char_indices()
        .rev()
        .find(|(_, c)| is_clause_sep(*c))
        .map(|(i, c)| i + c.len_utf8())
        .unwrap_or(0);
    let b = t[e..].find(is_clause_sep).map(|i| e + i).unwrap_or(t.len());
    let c = &t[a..b];
    ["规则", "违规", "判罚", "算不算", "会被判"]
        .iter()
        .any(|w| c.contains(w))
}

/// Does the segmenter cut the clause around `[s, e)` at both `s` and `e`?
fn segment_boundaries(t: &str, s: usize, e: usize) -> bool {
    let is_sep =
        |c: char| c.is_ascii_punctuation() || c.is_whitespace() || "，。！？、；：…".contains(c);
    let mut a = s;
    for (i, c) in t[..s].char_indices().rev() {
        if is_sep(c) || s - i > 30 {
            break;
        }
        a = i;
    }
    let mut b = e;
    for (i, c) in t[e..].char_indices() {
        if is_sep(c) || i > 30 {
            break;
        }
        b = e + i + c.len_utf8();
    }
    let window = &t[a..b];
    let mut pos = a;
    let (mut at_s, mut at_e) = (s == a, e == b);
    for tok in jieba().cut(window, false) {
        pos += tok.word.len();
        if pos == s {
            at_s = true;
        }
        if pos == e {
            at_e = true;
        }
    }
    at_s && at_e
}

/// Input for [`scan_post`]: one revision of one post, as stored.
#[derive(Debug, Clone, Default)]
pub struct PostText<'a> {
    pub text: &'a str,
    /// Red or near-red text outside quotes (the store's `red`).
    pub red: &'a str,
    /// Enlarged text outside quotes (the store's `large`).
    pub large: &'a str,
}

/// Every hit of one post: its words, a flood by itself ([`flood_post`]), its red text, its
/// enlarged text.
pub fn scan_post(d: &Detector, p: &PostText<'_>) -> Vec<Hit> {
    let mut hits = d.scan(p.text);
    if let Some(why) = flood_post(p.text) {
        let t = p.text.trim();
        let s = p.text.find(t).unwrap_or(0);
        hits.push(Hit {
            category: Category::Flood,
            start: s,
            end: s + t.len(),
            matched: t.chars().take(40).collect(),
            reason: why.to_string(),
            card: None,
        });
    }
    for (cat, styled, what) in [
        (Category::RedFont, p.red, "红色或近红色文字"),
        (Category::LargeFont, p.large, "放大字体"),
    ] {
        let s = styled.trim();
        if s.is_empty() {
            continue;
        }
        let (start, end) = match p.text.find(s.lines().next().unwrap_or(s)) {
            Some(i) => (i, i + s.lines().next().unwrap_or(s).len()),
            None => (0, 0),
        };
        hits.push(Hit {
            category: cat,
            start,
            end,
            matched: s.chars().take(40).collect(),
            reason: format!("帖中有{what}"),
            card: None,
        });
    }
    hits
}

/// A post with nothing to say: digits, punctuation, one character repeated, filler (顶, 水).
pub fn meaningless(text: &str) -> bool {
    let n = normalize::normalize_str(text);
    let core: String = n
        .chars()
        .filter(|c| {
            !c.is_ascii_punctuation() && !c.is_whitespace() && !"，。！？、；：…".contains(*c)
        })
        .collect();
    if core.is_empty() || core.chars().all(|c| c.is_ascii_digit()) {
        return true;
    }
    const FILLER: &[&str] = &[
        "顶",
        "水",
        "d",
        "dd",
        "up",
        "沙发",
        "板凳",
        "占楼",
        "抢楼",
        "哈",
        "啊",
        "嗯",
        "哦",
        "1",
        "+1",
        "。",
        "路过",
        "打卡",
        "冒泡",
        "刷",
        "刷楼",
        "水一帖",
        "水一下",
        "灌水",
    ];
    FILLER.contains(&core.as_str())
}

/// Floods: given a thread's posts of one day in floor order as `(author, text)`, the
/// indexes of the posts that make some author's run of `run` or more meaningless posts in
/// a row (each from the `run`-th on). Other authors' posts do not break a run; the author's
/// own post with something in it does.
pub fn floods(texts: &[(&str, &str)], run: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut streak: std::collections::HashMap<&str, usize> = Default::default();
    for (i, (author, text)) in texts.iter().enumerate() {
        let k = streak.entry(author).or_default();
        if meaningless(text) {
            *k += 1;
            if *k >= run.max(1) {
                out.push(i);
            }
        } else {
            *k = 0;
        }
    }
    out
}

/// The excerpt shown with a flag: up to `ctx` characters either side, the span in 【】.
pub fn excerpt(text: &str, s: usize, e: usize, ctx: usize) -> String {
    if s >= e || e > text.len() {
        return text.chars().take(2 * ctx).collect();
    }
    let before: String = {
        let v: Vec<char> = text[..s].chars().rev().take(ctx).collect();
        v.into_iter().rev().collect()
    };
    let after: String = text[e..].chars().take(ctx).collect();
    format!("{before}【{}】{after}", &text[s..e]).replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d() -> Detector {
        Detector::new(&["沙雕鱼".to_string(), "傻树".to_string()]).unwrap()
    }

    #[test]
    fn a_hit_names_its_original_span() {
        let t = "你是傻 * 逼吧";
        let h = d().scan(t);
        assert_eq!(h.len(), 1, "{h:?}");
        assert_eq!(h[0].category, Category::Insult);
        assert_eq!(&t[h[0].start..h[0].end], "傻 * 逼");
        assert_eq!(excerpt(t, h[0].start, h[0].end, 5), "你是【傻 * 逼】吧");
    }

    #[test]
    fn player_names_quotes_and_contained_words_do_not_fire() {
        let d = d();
        assert!(d.scan("沙雕鱼今天没发言").is_empty());
        assert!(d.scan("傻树的票").is_empty());
        assert!(d.scan("他说「你个傻逼」，这是违规").is_empty());
        assert!(d.scan("不要麻痹大意").is_empty());
        assert!(d.scan("草地").is_empty());
        assert_eq!(d.scan("沙雕狼别跳了")[0].category, Category::Insult);
    }

    /// The dictionary is jieba-rs 0.11.0's `src/data/dict.txt` (what `Jieba::new()` loads with
    /// the `default-dict` feature), unedited: `sha256sum` of that file.
    #[test]
    fn the_embedded_jieba_dictionary_is_jieba_rs_default_dictionary() {
        let h = ring::digest::digest(&ring::digest::SHA256, JIEBA_DICT.as_bytes());
        let hex: String = h.as_ref().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "139519822fe8ab9e10d9d07e68ea0451045380aedaf54ecc51e2a28c6b42a13f"
        );
        assert!(jieba().has_word("草地") && jieba().has_word("我们"));
    }

    #[test]
    fn a_game_s_lists_are_compiled_once_and_again_only_when_its_allow_list_changes() {
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let a = names(&["缓存甲", "缓存乙"]);
        let first = Detector::new(&a).unwrap();
        for _ in 0..5 {
            let again = Detector::new(&names(&["缓存乙", "缓存甲", "缓存乙"])).unwrap();
            assert!(again.same_lists(&first));
        }
        assert_eq!(Detector::builds(&a), 1);
        let wl = names(&["缓存甲", "缓存乙", "沙雕狼"]);
        let other = Detector::new(&wl).unwrap();
        assert!(!other.same_lists(&first));
        assert_eq!(Detector::builds(&wl), 1);
        assert!(
            other.scan("沙雕狼别跳了").is_empty(),
            "the whitelist applies"
        );
        assert!(!first.scan("沙雕狼别跳了").is_empty());
    }

    #[test]
    fn floods_need_a_run_by_one_author() {
        let posts = [
            ("a", "1"),
            ("b", "顶"),
            ("a", "2"),
            ("a", "。。。"),
            ("a", "我来分析一下"),
            ("a", "3"),
        ];
        assert_eq!(floods(&posts, 3), vec![3]);
        assert!(meaningless("dd") && meaningless("！！！") && !meaningless("投他"));
    }
}
