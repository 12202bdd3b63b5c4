//! Message bodies (MARKUP §6): the clean text, red and enlarged text, the quote
//! reference and the edit notice, from `td.t_f` (PC) or the API `message` HTML.
//!
//! Rules, decided once here:
//! * Removed before anything is judged: `font.jammer`, elements hidden by an inline
//!   `display:none`, `script`/`style`, attachment tooltips (`div.tip`), `div.attach_tips`,
//!   ads (`div.a_pr`), the `复制代码` button, the edit notice and every quote block
//!   (`div.quote`, `div.reply_wrap`) including its `X 发表于 T` header.
//! * **Red**: the nearest ancestor that sets a colour (`font[color]`, `style="color:…"`)
//!   decides. A colour is red when its hue is within 15° of pure red (345°–15°), its
//!   saturation (max−min)/max is at least 0.6 and its brightness (max) at least 0.35 —
//!   so `red`, `#f00`, `#ff3333`, `rgb(255,0,0)`, `DarkRed`, `Crimson`, `FireBrick`,
//!   `Tomato` count; `Orange`, `Sienna`, `Pink`, `Salmon`, `Magenta`, greys do not.
//! * **Large**: the nearest ancestor that sets a size decides: `font[size]` ≥ 4 (`+N` is
//!   3+N), or `font-size` ≥ 16px / ≥ 12pt / ≥ 1.3em / ≥ 130% / `large` and bigger.
//!   Never judged for API HTML (the API strips `[size]`).
//! * Red/large runs are joined with newlines; a line break or other text ends a run.

use std::sync::LazyLock;

use regex::Regex;
use scraper::{ElementRef, Node};

use crate::model::{EditNotice, LockKind, QuoteRef, Timestamp};

use super::dtime::parse_absolute;

/// `ego_tree::NodeRef<'_>`, named through scraper (which does not re-export ego_tree).
pub(crate) type NodeRef<'a> = <ElementRef<'a> as std::ops::Deref>::Target;

/// What the body walker needs of a document node: the html5ever tree (scraper's
/// `NodeRef`) and the fast path's own tree ([`super::lite`]) both provide it, so that a
/// body reads the same through either.
pub(crate) trait HtmlNode<'a>: Copy {
    /// The text of a text node.
    fn text_of(self) -> Option<&'a str>;
    /// The (lower-case) name of an element.
    fn element_name(self) -> Option<&'a str>;
    fn attr_of(self, name: &str) -> Option<&'a str>;
    fn child_nodes(self) -> impl Iterator<Item = Self>;
    /// This node and every node below it, in document order.
    fn subtree(self) -> impl Iterator<Item = Self>;

    fn has_class_name(self, class: &str) -> bool {
        self.attr_of("class")
            .is_some_and(|c| c.split_ascii_whitespace().any(|x| x == class))
    }

    /// All text below this node, whitespace-normalized (see [`node_text`]).
    fn normalized_text(self) -> String {
        // `normalize_inline` of the concatenated text, without building it first.
        let mut s = String::new();
        let mut ws = false;
        for n in self.subtree() {
            if let Some(t) = n.text_of() {
                normalize_push(t, &mut s, &mut ws);
            }
        }
        let t = s.trim();
        if t.len() == s.len() { s } else { t.to_string() }
    }

    /// All text below this node as it stands.
    fn raw_text(self) -> String {
        let mut s = String::new();
        for n in self.subtree() {
            if let Some(t) = n.text_of() {
                s.push_str(t);
            }
        }
        s
    }
}

impl<'a> HtmlNode<'a> for ego_tree::NodeRef<'a, Node> {
    fn text_of(self) -> Option<&'a str> {
        match self.value() {
            Node::Text(t) => Some(&**t),
            _ => None,
        }
    }
    fn element_name(self) -> Option<&'a str> {
        self.value().as_element().map(|e| e.name())
    }
    fn attr_of(self, name: &str) -> Option<&'a str> {
        self.value().as_element().and_then(|e| e.attr(name))
    }
    fn child_nodes(self) -> impl Iterator<Item = Self> {
        self.children()
    }
    fn subtree(self) -> impl Iterator<Item = Self> {
        self.descendants()
    }
}

/// What a body yields.
#[derive(Debug, Default)]
pub(crate) struct BodyOut {
    pub text: String,
    pub red: String,
    pub large: String,
    pub quote: Option<QuoteRef>,
    pub edit: Option<EditNotice>,
    pub lock: Option<LockKind>,
}

pub(crate) struct BodyOpts {
    pub judge_size: bool,
    pub tz: chrono_tz::Tz,
}

#[derive(Clone, Copy, Default)]
struct Style {
    red: bool,
    large: bool,
}

struct Walker<'a> {
    opts: &'a BodyOpts,
    text: String,
    red: Vec<String>,
    large: Vec<String>,
    last_red: bool,
    last_large: bool,
    seen_text: bool,
    quote: Option<QuoteRef>,
    edit: Option<EditNotice>,
    lock: Option<LockKind>,
}

const MAX_DEPTH: usize = 256;

static RE_PID: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?:^|[?&;])pid=(\d+)").unwrap());
static RE_DISPLAY_NONE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)display\s*:\s*none").unwrap());
static RE_EDIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*\[?\s*本帖最后由\s*(.+?)\s*于\s*(\S+\s+\S+(?:\s+[AaPp][Mm])?)\s*编辑\s*\]?")
        .unwrap()
});
static RE_LEGACY_FLOOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(\d+)\s*(?:#|楼)").unwrap());

pub(crate) fn has_class(e: &scraper::node::Element, class: &str) -> bool {
    e.attr("class")
        .is_some_and(|c| c.split_ascii_whitespace().any(|x| x == class))
}

/// All text below a node, whitespace-normalized (runs of spaces, `&nbsp;`, tabs and
/// newlines become one space, as a browser shows them).
pub(crate) fn node_text(el: ElementRef) -> String {
    let s: String = el.text().collect();
    normalize_inline(&s).trim().to_string()
}

fn normalize_inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    normalize_push(s, &mut out, &mut false);
    out
}

/// Append `s` to `out` as [`normalize_inline`] would, `ws` saying whether the last
/// character appended was a collapsed space (so runs across calls collapse too). Copies
/// runs of other characters whole.
fn normalize_push(s: &str, out: &mut String, ws: &mut bool) {
    let b = s.as_bytes();
    let mut from = 0;
    let mut i = 0;
    while i < b.len() {
        let len = match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0c => 1,
            0xC2 if b.get(i + 1) == Some(&0xA0) => 2,
            _ => {
                i += 1;
                *ws = false;
                continue;
            }
        };
        out.push_str(&s[from..i]);
        if !*ws {
            out.push(' ');
        }
        *ws = true;
        i += len;
        from = i;
    }
    out.push_str(&s[from..]);
}

/// Parse a pid out of a findpost-like URL (`pid=` anywhere, `&` or `&amp;`).
pub(crate) fn pid_from_href(href: &str) -> Option<u64> {
    let h = href.replace("&amp;", "&");
    RE_PID.captures(&h).and_then(|c| c[1].parse().ok())
}

/// Parse `X 发表于 T` (quote headers).
fn parse_quote_header(s: &str, tz: chrono_tz::Tz) -> Option<(String, Option<Timestamp>)> {
    let s = normalize_inline(s);
    let i = s.find("发表于")?;
    let author = s[..i].trim().to_string();
    let rest = s[i + "发表于".len()..].trim();
    let time = parse_absolute(rest, tz).or_else(|| {
        let toks: Vec<&str> = rest.split(' ').take(3).collect();
        (2..=toks.len())
            .rev()
            .find_map(|k| parse_absolute(&toks[..k].join(" "), tz))
    });
    if author.is_empty() && time.is_none() {
        return None;
    }
    Some((author, time))
}

impl<'a> Walker<'a> {
    fn new(opts: &'a BodyOpts) -> Self {
        Walker {
            opts,
            text: String::new(),
            red: Vec::new(),
            large: Vec::new(),
            last_red: false,
            last_large: false,
            seen_text: false,
            quote: None,
            edit: None,
            lock: None,
        }
    }

    fn newline(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with('\n') {
            self.text.push('\n');
        }
        self.last_red = false;
        self.last_large = false;
    }

    fn emit(&mut self, raw: &str, style: Style) {
        // `normalize_inline(raw)` is blank exactly when `raw` is (it only turns some
        // whitespace into spaces), and empty exactly when `raw` is.
        if raw.trim().is_empty() {
            if !raw.is_empty() && !self.text.is_empty() && !self.text.ends_with([' ', '\n']) {
                self.text.push(' ');
            }
            return;
        }
        let start = self.text.len();
        normalize_push(raw, &mut self.text, &mut false);
        let t = &self.text[start..];
        self.seen_text = true;
        if style.red {
            if !self.last_red || self.red.is_empty() {
                self.red.push(String::new());
            }
            self.red.last_mut().unwrap().push_str(t);
        }
        self.last_red = style.red;
        if self.opts.judge_size {
            if style.large {
                if !self.last_large || self.large.is_empty() {
                    self.large.push(String::new());
                }
                self.large.last_mut().unwrap().push_str(t);
            }
            self.last_large = style.large;
        }
    }

    fn visit_children<'n, N: HtmlNode<'n>>(&mut self, node: N, style: Style, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for child in node.child_nodes() {
            self.visit(child, style, depth + 1);
        }
    }

    fn visit<'n, N: HtmlNode<'n>>(&mut self, node: N, style: Style, depth: usize) {
        if let Some(t) = node.text_of() {
            self.emit(t, style);
            return;
        }
        match node.element_name() {
            Some(name) => {
                let (e, el) = (node, node);
                if matches!(
                    name,
                    "script" | "style" | "textarea" | "input" | "button" | "select"
                ) {
                    return;
                }
                if name == "br" {
                    self.newline();
                    return;
                }
                if e.attr_of("style")
                    .is_some_and(|s| RE_DISPLAY_NONE.is_match(s))
                {
                    return;
                }
                if name == "font" && e.has_class_name("jammer") {
                    return;
                }
                if name == "div"
                    && (e.has_class_name("tip")
                        || e.has_class_name("attach_tips")
                        || e.has_class_name("a_pr"))
                {
                    return;
                }
                if name == "em" && e.attr_of("onclick").is_some_and(|o| o.contains("copycode")) {
                    return;
                }
                if name == "div" && (e.has_class_name("quote") || e.has_class_name("reply_wrap")) {
                    if self.quote.is_none() {
                        self.quote = self.parse_quote(el);
                    }
                    self.newline();
                    return;
                }
                if name == "blockquote" && self.quote.is_none() && e.has_class_name("quote") {
                    self.quote = self.parse_quote(el);
                    self.newline();
                    return;
                }
                if name == "i"
                    && e.has_class_name("pstatus")
                    && !self.seen_text
                    && self.edit.is_none()
                {
                    let t = el.normalized_text();
                    if let Some(edit) = parse_edit_notice(&t, self.opts.tz) {
                        self.edit = Some(edit.0);
                        return;
                    }
                }
                if name == "strong"
                    && self.quote.is_none()
                    && let Some(q) = self.parse_legacy_reply(el)
                {
                    self.quote = Some(q);
                    return;
                }
                if name == "div" && e.has_class_name("locked") {
                    let t = el.normalized_text();
                    if !t.contains("只有管理员或有管理权限的成员可见") {
                        self.lock.get_or_insert(lock_kind_from_text(&t));
                    }
                    self.newline();
                    return;
                }
                if name == "span" && e.has_class_name("xg1") && el.normalized_text() == "待审核"
                {
                    self.lock.get_or_insert(LockKind::Pending);
                    return;
                }
                if name == "h4" && el.normalized_text() == "本帖隐藏的内容" {
                    return;
                }
                let mut st = style;
                if let Some(c) = element_color(name, e) {
                    st.red = is_red_color(&c);
                }
                if self.opts.judge_size
                    && let Some(large) = element_large(name, e)
                {
                    st.large = large;
                }
                let block = matches!(
                    name,
                    "div"
                        | "p"
                        | "li"
                        | "ul"
                        | "ol"
                        | "tr"
                        | "table"
                        | "blockquote"
                        | "h1"
                        | "h2"
                        | "h3"
                        | "h4"
                        | "h5"
                        | "h6"
                        | "hr"
                        | "dl"
                        | "dt"
                        | "dd"
                );
                if block {
                    self.newline();
                }
                self.visit_children(node, st, depth);
                if block {
                    self.newline();
                }
                if matches!(name, "td" | "th") && !self.text.ends_with([' ', '\n']) {
                    self.text.push(' ');
                }
            }
            None => self.visit_children(node, style, depth),
        }
    }

    fn parse_quote<'n, N: HtmlNode<'n>>(&self, el: N) -> Option<QuoteRef> {
        let mut q = QuoteRef::default();
        for d in el.subtree() {
            let Some(name) = d.element_name() else {
                continue;
            };
            if name == "a"
                && q.pid.is_none()
                && let Some(h) = d.attr_of("href")
                && (h.contains("findpost") || h.contains("pid="))
            {
                q.pid = pid_from_href(h);
            }
            if name == "font" && q.author.is_none() && q.time.is_none() {
                let grey = d
                    .attr_of("color")
                    .is_some_and(|c| c.trim().eq_ignore_ascii_case("#999999"));
                let t = d.normalized_text();
                if (grey || t.contains("发表于"))
                    && let Some((a, time)) = parse_quote_header(&t, self.opts.tz)
                {
                    if !a.is_empty() {
                        q.author = Some(a);
                    }
                    q.time = time;
                }
            }
        }
        if q.author.is_none() && q.time.is_none() {
            // Header without the grey font: first line of the quote text.
            let full: String = el.raw_text();
            if let Some(first) = full.lines().map(str::trim).find(|l| !l.is_empty())
                && let Some((a, time)) = parse_quote_header(first, self.opts.tz)
                && !a.is_empty()
                && time.is_some()
            {
                q.author = Some(a);
                q.time = time;
            }
        }
        if q == QuoteRef::default() {
            None
        } else {
            Some(q)
        }
    }

    /// `<strong>回复 <a href="…findpost…pid=P…">7#</a> <i>张三</i> </strong>`.
    fn parse_legacy_reply<'n, N: HtmlNode<'n>>(&self, el: N) -> Option<QuoteRef> {
        let t = el.normalized_text();
        if !t.starts_with("回复") {
            return None;
        }
        let mut q = QuoteRef::default();
        let mut has_link = false;
        for d in el.subtree() {
            let Some(name) = d.element_name() else {
                continue;
            };
            let er = d;
            match name {
                "a" => {
                    has_link = true;
                    if let Some(h) = d.attr_of("href") {
                        q.pid = q.pid.or_else(|| pid_from_href(h));
                    }
                    let at = er.normalized_text();
                    if let Some(c) = RE_LEGACY_FLOOR.captures(&at) {
                        q.floor = c[1].parse().ok();
                    }
                }
                "i" => {
                    let name = er.normalized_text();
                    if !name.is_empty() {
                        q.author = Some(name);
                    }
                }
                _ => {}
            }
        }
        if !has_link || (q.pid.is_none() && q.floor.is_none()) {
            return None;
        }
        Some(q)
    }

    fn finish(mut self) -> BodyOut {
        let mut text = tidy_lines(&self.text);
        if self.edit.is_none()
            && let Some((edit, len)) = parse_edit_notice(&text, self.opts.tz)
        {
            self.edit = Some(edit);
            text = tidy_lines(&text[len..]);
        }
        let join = |v: Vec<String>| {
            v.iter()
                .map(|s| s.trim())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join("\n")
        };
        BodyOut {
            text,
            red: join(self.red),
            large: join(self.large),
            quote: self.quote,
            edit: self.edit,
            lock: self.lock,
        }
    }
}

/// Trim every line, collapse runs of blank lines into one, trim the whole.
fn tidy_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut blank = 0;
    for line in s.lines() {
        let l = line.trim();
        if l.is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
            if blank > 0 {
                out.push('\n');
            }
        }
        blank = 0;
        out.push_str(l);
    }
    out
}

/// `本帖最后由 X 于 T 编辑` (or `[ … ]`) at the start of `s`: the notice and its length.
fn parse_edit_notice(s: &str, tz: chrono_tz::Tz) -> Option<(EditNotice, usize)> {
    let c = RE_EDIT.captures(s)?;
    let editor = c[1].trim().to_string();
    let time = parse_absolute(&c[2], tz);
    Some((EditNotice { editor, time }, c.get(0).unwrap().end()))
}

/// The lock kind a `div.locked` (or API lock string) describes (MARKUP §3.4, §6.6).
pub(crate) fn lock_kind_from_text(t: &str) -> LockKind {
    if t.contains("作者被禁止或删除") {
        LockKind::BannedAuthor
    } else if t.contains("被管理员或版主屏蔽") {
        LockKind::ModeratorBlocked
    } else if t.contains("仅作者可见") {
        LockKind::AuthorOnly
    } else if t.contains("密码") {
        LockKind::Password
    } else if t.contains("隐藏") || t.contains("积分高于") || t.contains("回复") {
        LockKind::Hidden
    } else if t.contains("待审核") {
        LockKind::Pending
    } else {
        LockKind::Other
    }
}

pub(crate) fn extract<'n, N: HtmlNode<'n>>(root: N, opts: &BodyOpts) -> BodyOut {
    let mut w = Walker::new(opts);
    w.visit_children(root, Style::default(), 0);
    w.finish()
}

/// A message body's clean text, red text and enlarged text, as the store keeps them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StyledText {
    pub text: String,
    pub red: String,
    pub large: String,
}

/// [`StyledText`] of one message body's HTML (`td.t_f`'s inner HTML on the PC page; with
/// `from_api`, the mobile API's `message`, whose size is never judged).
pub fn styled_text(html: &str, from_api: bool) -> StyledText {
    let frag = scraper::Html::parse_fragment(html);
    let opts = BodyOpts {
        judge_size: !from_api,
        tz: chrono_tz::Asia::Shanghai,
    };
    let b = extract(*frag.root_element(), &opts);
    StyledText {
        text: b.text,
        red: b.red,
        large: b.large,
    }
}

static RE_STYLE_COLOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)(?:^|[;\s])color\s*:\s*([^;]+)").unwrap());
static RE_STYLE_SIZE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)font-size\s*:\s*([^;]+)").unwrap());

fn element_color<'n, N: HtmlNode<'n>>(name: &str, e: N) -> Option<String> {
    if let Some(s) = e.attr_of("style")
        && let Some(c) = RE_STYLE_COLOR.captures(s)
    {
        return Some(c[1].trim().to_string());
    }
    if name == "font"
        && let Some(c) = e.attr_of("color")
    {
        return Some(c.to_string());
    }
    None
}

fn element_large<'n, N: HtmlNode<'n>>(name: &str, e: N) -> Option<bool> {
    if let Some(s) = e.attr_of("style")
        && let Some(c) = RE_STYLE_SIZE.captures(s)
    {
        return Some(is_large_size(c[1].trim()));
    }
    if name == "font"
        && let Some(s) = e.attr_of("size")
    {
        return Some(is_large_size(s));
    }
    None
}

/// Is a `font[size]` value or CSS `font-size` large (see the module doc)?
pub fn is_large_size(v: &str) -> bool {
    let v = v
        .trim()
        .trim_end_matches("!important")
        .trim()
        .to_ascii_lowercase();
    if matches!(
        v.as_str(),
        "large" | "x-large" | "xx-large" | "xxx-large" | "larger"
    ) {
        return true;
    }
    let num_end = v
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(v.len());
    let (num, unit) = v.split_at(num_end);
    let unit = unit.trim();
    if let Some(rel) = num.strip_prefix('+') {
        return unit.is_empty() && rel.parse::<f64>().is_ok_and(|n| 3.0 + n >= 4.0);
    }
    let Ok(n) = num.parse::<f64>() else {
        return false;
    };
    match unit {
        "" => n >= 4.0,
        "px" => n >= 16.0,
        "pt" => n >= 12.0,
        "em" | "rem" => n >= 1.3,
        "%" => n >= 130.0,
        _ => false,
    }
}

/// A CSS/HTML colour as RGB: `#rgb`, `#rrggbb`, `rgb(r, g, b)`, `rgba(…)`, names.
pub fn parse_color(v: &str) -> Option<(u8, u8, u8)> {
    let v = v
        .trim()
        .trim_end_matches("!important")
        .trim()
        .to_ascii_lowercase();
    if let Some(hex) = v.strip_prefix('#') {
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let h = |s: &str| u8::from_str_radix(s, 16).ok();
        return match hex.len() {
            3 | 4 => {
                let c: Vec<u8> = hex
                    .chars()
                    .take(3)
                    .map(|c| c.to_digit(16).map(|d| (d * 17) as u8))
                    .collect::<Option<_>>()?;
                Some((c[0], c[1], c[2]))
            }
            6 | 8 => Some((h(&hex[0..2])?, h(&hex[2..4])?, h(&hex[4..6])?)),
            _ => None,
        };
    }
    if let Some(inner) = v.strip_prefix("rgba(").or_else(|| v.strip_prefix("rgb(")) {
        let inner = inner.trim_end_matches(')');
        let parts: Vec<&str> = inner
            .split([',', ' ', '/'])
            .filter(|s| !s.is_empty())
            .collect();
        if parts.len() < 3 {
            return None;
        }
        let comp = |s: &str| -> Option<u8> {
            if let Some(p) = s.strip_suffix('%') {
                p.parse::<f64>()
                    .ok()
                    .map(|p| (p.clamp(0.0, 100.0) * 2.55).round() as u8)
            } else {
                s.parse::<f64>()
                    .ok()
                    .map(|n| n.clamp(0.0, 255.0).round() as u8)
            }
        };
        return Some((comp(parts[0])?, comp(parts[1])?, comp(parts[2])?));
    }
    // Bare hex without '#', as users sometimes type it (`[color=ff0000]`).
    if v.len() == 6 && v.bytes().all(|b| b.is_ascii_hexdigit()) {
        return parse_color(&format!("#{v}"));
    }
    NAMED.iter().find(|(n, _)| *n == v).map(|(_, c)| *c)
}

/// Named colours: the Discuz editor palette plus the CSS reds, pinks and oranges.
const NAMED: &[(&str, (u8, u8, u8))] = &[
    ("black", (0, 0, 0)),
    ("white", (255, 255, 255)),
    ("gray", (128, 128, 128)),
    ("grey", (128, 128, 128)),
    ("silver", (192, 192, 192)),
    ("dimgray", (105, 105, 105)),
    ("darkgray", (169, 169, 169)),
    ("lightgrey", (211, 211, 211)),
    ("red", (255, 0, 0)),
    ("darkred", (139, 0, 0)),
    ("maroon", (128, 0, 0)),
    ("firebrick", (178, 34, 34)),
    ("crimson", (220, 20, 60)),
    ("brown", (165, 42, 42)),
    ("indianred", (205, 92, 92)),
    ("tomato", (255, 99, 71)),
    ("orangered", (255, 69, 0)),
    ("salmon", (250, 128, 114)),
    ("darksalmon", (233, 150, 122)),
    ("lightcoral", (240, 128, 128)),
    ("coral", (255, 127, 80)),
    ("pink", (255, 192, 203)),
    ("hotpink", (255, 105, 180)),
    ("deeppink", (255, 20, 147)),
    ("orange", (255, 165, 0)),
    ("darkorange", (255, 140, 0)),
    ("sienna", (160, 82, 45)),
    ("chocolate", (210, 105, 30)),
    ("gold", (255, 215, 0)),
    ("yellow", (255, 255, 0)),
    ("wheat", (245, 222, 179)),
    ("darkolivegreen", (85, 107, 47)),
    ("olive", (128, 128, 0)),
    ("green", (0, 128, 0)),
    ("darkgreen", (0, 100, 0)),
    ("seagreen", (46, 139, 87)),
    ("lime", (0, 255, 0)),
    ("limegreen", (50, 205, 50)),
    ("palegreen", (152, 251, 152)),
    ("mediumturquoise", (72, 209, 204)),
    ("turquoise", (64, 224, 208)),
    ("paleturquoise", (175, 238, 238)),
    ("teal", (0, 128, 128)),
    ("cyan", (0, 255, 255)),
    ("aqua", (0, 255, 255)),
    ("darkslateblue", (72, 61, 139)),
    ("darkslategray", (47, 79, 79)),
    ("slategray", (112, 128, 144)),
    ("navy", (0, 0, 128)),
    ("blue", (0, 0, 255)),
    ("royalblue", (65, 105, 225)),
    ("lightblue", (173, 216, 230)),
    ("indigo", (75, 0, 130)),
    ("purple", (128, 0, 128)),
    ("darkorchid", (153, 50, 204)),
    ("violet", (238, 130, 238)),
    ("plum", (221, 160, 221)),
    ("magenta", (255, 0, 255)),
    ("fuchsia", (255, 0, 255)),
    ("lavender", (230, 230, 250)),
    ("lavenderblush", (255, 240, 245)),
    ("mistyrose", (255, 228, 225)),
    ("lemonchiffon", (255, 250, 205)),
    ("azure", (240, 255, 255)),
];

/// Red or near-red, by the rule in the module doc.
pub fn is_red_color(v: &str) -> bool {
    let Some((r, g, b)) = parse_color(v) else {
        return false;
    };
    let (r, g, b) = (r as f64 / 255.0, g as f64 / 255.0, b as f64 / 255.0);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    if max < 0.35 || max == 0.0 || (max - min) / max < 0.6 || r < max {
        return false;
    }
    // r is the maximum: hue = 60 * (g - b) / (max - min), in (-60, 60).
    let hue = 60.0 * (g - b) / (max - min);
    hue.abs() <= 15.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn red_rule() {
        for c in [
            "red",
            "Red",
            "#FF0000",
            "#ff0000",
            "#f00",
            "rgb(255, 0, 0)",
            "rgb(255,0,0)",
            "#ff3333",
            "DarkRed",
            "crimson",
            "FireBrick",
            "Tomato",
            "#c00",
            "rgba(255,0,0,0.9)",
            "ff0000",
        ] {
            assert!(is_red_color(c), "{c} should be red");
        }
        for c in [
            "Orange",
            "Sienna",
            "Pink",
            "Salmon",
            "Magenta",
            "#999999",
            "black",
            "#252525",
            "rgb(255,255,255)",
            "Blue",
            "#330000",
            "OrangeRed",
            "nonsense",
            "#12",
            "#25\u{fffd}5",
            "#ff\u{e9}000",
        ] {
            assert!(!is_red_color(c), "{c} should not be red");
        }
    }

    #[test]
    fn size_rule() {
        for s in [
            "4", "5", "7", "99", "+1", "16px", "20px", "14.5pt", "12pt", "x-large", "1.5em",
        ] {
            assert!(is_large_size(s), "{s} should be large");
        }
        for s in ["1", "2", "3", "+0", "15px", "11pt", "small", "1em", "big"] {
            assert!(!is_large_size(s), "{s} should not be large");
        }
    }

    fn run(html: &str, judge_size: bool) -> BodyOut {
        let frag = scraper::Html::parse_fragment(html);
        let opts = BodyOpts {
            judge_size,
            tz: chrono_tz::Asia::Shanghai,
        };
        extract(*frag.root_element(), &opts)
    }

    #[test]
    fn body_cleaning_colour_size_quote_edit() {
        let b = run(
            concat!(
                "<i class=\"pstatus\"> 本帖最后由 小小白 于 2020-10-24 20:11 编辑 </i><br />\r\n<br />\r\n",
                "<div class=\"quote\"><blockquote><font size=\"2\"><a href=\"https://x/forum.php?mod=redirect&amp;goto=findpost&amp;pid=9351794&amp;ptid=758404\" target=\"_blank\">",
                "<font color=\"#999999\">张三 发表于 2020-10-25 23:08</font></a></font><br />\r\n<font color=\"red\">投 李四</font></blockquote></div><br />\r\n",
                "投票对象：<font color=\"Red\"><font size=\"5\">王五</font></font><br />\r\n",
                "第二行<font class=\"jammer\">4&amp;]x 2Q+:</font><br />\r\n<span style=\"display: none\">7 m1</span>第三行<font color=\"#ff0000\"><font color=\"#252525\">灰</font>红</font>"
            ),
            true,
        );
        assert_eq!(b.text, "投票对象：王五\n第二行\n第三行灰红");
        assert_eq!(b.red, "王五\n红");
        assert_eq!(b.large, "王五");
        let q = b.quote.unwrap();
        assert_eq!(q.pid, Some(9351794));
        assert_eq!(q.author.as_deref(), Some("张三"));
        assert_eq!(
            q.time,
            crate::time::parse_local("2020-10-25 23:08", chrono_tz::Asia::Shanghai)
        );
        let e = b.edit.unwrap();
        assert_eq!(e.editor, "小小白");
        assert_eq!(
            e.time,
            crate::time::parse_local("2020-10-24 20:11", chrono_tz::Asia::Shanghai)
        );
    }

    #[test]
    fn api_body_never_judges_size_and_reads_plain_edit_notice() {
        let b = run(
            "本帖最后由 小小白 于 2020-10-24 20:11 编辑 <br />\r\n<br />\r\n<div class=\"reply_wrap\"><font color=\"#999999\">张三 发表于 2016-12-20 21:38</font><br />引用</div><br />\r\n<font style=\"font-size:20px\" color=\"red\">投五号</font>",
            false,
        );
        assert_eq!(b.text, "投五号");
        assert_eq!(b.red, "投五号");
        assert_eq!(b.large, "");
        assert_eq!(b.edit.unwrap().editor, "小小白");
        let q = b.quote.unwrap();
        assert_eq!((q.pid, q.author.as_deref()), (None, Some("张三")));
    }

    #[test]
    fn legacy_reply_and_hidden_content() {
        let b = run(
            "<strong>回复 <a href=\"forum.php?mod=redirect&amp;goto=findpost&amp;pid=77&amp;ptid=5\" target=\"_blank\">7#</a> <i>张三</i> </strong><br />同意<div class=\"locked\">游客，如果您要查看本帖隐藏内容请<a href=\"#\">回复</a></div>",
            true,
        );
        assert_eq!(b.text, "同意");
        let q = b.quote.unwrap();
        assert_eq!(
            (q.pid, q.floor, q.author.as_deref()),
            (Some(77), Some(7), Some("张三"))
        );
        assert_eq!(b.lock, Some(LockKind::Hidden));
        let p = run("<span class=\"xg1\">待审核</span>", true);
        assert_eq!((p.text.as_str(), p.lock), ("", Some(LockKind::Pending)));
    }
}
