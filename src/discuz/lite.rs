//! The fast path for PC thread pages (issue 13): a strict, zero-copy HTML tree builder and
//! the stock-template post reader on top of it.
//!
//! html5ever builds a spec-exact tree for any input, and that is most of the time an import
//! spends. Discuz! pages are machine-written and almost always well-formed: for those, a
//! tree in which every end tag closes the element it names, tables carry only rows and
//! cells, and no element is implicitly closed, is exactly the tree html5ever builds (the
//! implied `<tbody>` included). [`build`] builds that tree over the page text (text and
//! attribute values borrowed where they need no decoding), and **declines** (returns
//! `None`) the moment the input needs any of the parts of the HTML algorithm it does not
//! implement: a mis-nested or implicitly closed element, text or elements foster-parented
//! out of a table, `<p>` closed by a block while other elements are open in it, `<a>`
//! inside `<a>`, `<select>`, `<pre>`,
//! `<textarea>`, foreign content, legacy character references without `;`, numeric
//! references html5ever would replace, NUL characters, bogus comments, EOF inside a tag.
//!
//! The tables of the stock templates are built as html5ever builds them: a cell straight
//! in a `<table>` (the author column's numbercard, `<table><th>…</th><td>…</td></table>`)
//! gets the implied `<tbody>` and `<tr>`, a section start tag closes the open row (the
//! 评分 log's `<tr>…</tr><tbody>`), and a block start tag closes the `<p>` it starts in
//! when that `<p>` is the current node (an attachment tooltip `<div>` in `p.attnm`).
//!
//! [`parse`] then reads every post of the stock shape (`table.plhin`, a numbered floor,
//! an author link, a readable time and a message cell, no field warning). Where it must
//! decline, it declines **one post, not the page**: a post of another shape
//! (placeholders, locked or pinned posts, customised headers), or one inside which the
//! builder declined (the builder then leaves that post's source, up to the next post
//! container, and goes on after it), is read alone by the html5ever path's post reader
//! ([`html::parse_post_alone`] on its source). Page-level declines remain for what is
//! not a stock thread page (author-filtered pages, error pages, truncated pages, a
//! decline outside the posts). The html5ever path in [`super::html`] stays the reference.
//! The body of every post is read by the same walker as that path ([`super::body`]), and
//! the stored HTML is serialized as html5ever serializes it, so a page reads to the same
//! [`Parsed`] through either path (`tests::fast_path_reads_every_page_as_html5ever_does`
//! checks it over every fixture and generated page).

use std::borrow::Cow;
use std::collections::HashSet;

use crate::model::PagePost;

use super::body::{self, BodyOpts, HtmlNode};
use super::dtime::parse_post_time;
use super::html;
use super::{ParseContext, Parsed};

const NONE: u32 = u32::MAX;

#[derive(Debug)]
enum Data<'a> {
    Document,
    Element {
        name: Cow<'a, str>,
        attrs: (u32, u32),
    },
    Text(Cow<'a, str>),
    Comment(&'a str),
}

#[derive(Debug)]
struct Node<'a> {
    parent: u32,
    first: u32,
    last: u32,
    next: u32,
    data: Data<'a>,
}

/// A document tree built by [`build`].
#[derive(Debug)]
pub(crate) struct Dom<'a> {
    nodes: Vec<Node<'a>>,
    attrs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    /// The source span of every element made directly in `#postlist` (a post
    /// container): node, start of its start tag, end of its end tag (`usize::MAX` while
    /// open), for reading one post alone through html5ever.
    spans: Vec<(u32, usize, usize)>,
    /// Post containers the builder declined inside (their subtree is partial).
    broken: Vec<u32>,
}

impl Dom<'_> {
    /// The source span of the element `id` made directly in `#postlist`, when closed.
    fn span(&self, id: u32) -> Option<(usize, usize)> {
        self.spans
            .iter()
            .find(|s| s.0 == id)
            .filter(|s| s.2 != usize::MAX)
            .map(|s| (s.1, s.2))
    }
}

/// A node of a [`Dom`].
#[derive(Clone, Copy)]
pub(crate) struct NodeRef<'d> {
    dom: &'d Dom<'d>,
    id: u32,
}

impl<'d> NodeRef<'d> {
    fn node(self) -> &'d Node<'d> {
        &self.dom.nodes[self.id as usize]
    }
    fn at(self, id: u32) -> Option<NodeRef<'d>> {
        (id != NONE).then_some(NodeRef { dom: self.dom, id })
    }
    fn parent(self) -> Option<NodeRef<'d>> {
        self.at(self.node().parent)
    }
    fn next_sibling(self) -> Option<NodeRef<'d>> {
        self.at(self.node().next)
    }
    fn first_child(self) -> Option<NodeRef<'d>> {
        self.at(self.node().first)
    }
    fn is(self, name: &str) -> bool {
        self.element_name() == Some(name)
    }
    fn attrs(self) -> &'d [(Cow<'d, str>, Cow<'d, str>)] {
        match &self.node().data {
            Data::Element { attrs: (a, b), .. } => &self.dom.attrs[*a as usize..*b as usize],
            _ => &[],
        }
    }
    fn id_attr(self) -> Option<&'d str> {
        self.attr_of("id")
    }
    /// Element descendants (this node included) in document order.
    fn elements(self) -> impl Iterator<Item = NodeRef<'d>> {
        self.subtree().filter(|n| n.element_name().is_some())
    }
    /// Ancestors, nearest first (this node excluded).
    fn ancestors(self) -> impl Iterator<Item = NodeRef<'d>> {
        std::iter::successors(self.parent(), |n| n.parent())
    }
    fn inner_html(self) -> String {
        let mut out = String::new();
        for c in self.child_nodes() {
            serialize(c, &mut out, self.raw_text_parent());
        }
        out
    }
    fn raw_text_parent(self) -> bool {
        matches!(
            self.element_name(),
            Some(
                "style"
                    | "script"
                    | "xmp"
                    | "iframe"
                    | "noembed"
                    | "noframes"
                    | "plaintext"
                    | "noscript"
            )
        )
    }
}

impl<'d> HtmlNode<'d> for NodeRef<'d> {
    fn text_of(self) -> Option<&'d str> {
        match &self.node().data {
            Data::Text(t) => Some(t),
            _ => None,
        }
    }
    fn element_name(self) -> Option<&'d str> {
        match &self.node().data {
            Data::Element { name, .. } => Some(name),
            _ => None,
        }
    }
    fn attr_of(self, name: &str) -> Option<&'d str> {
        self.attrs()
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| &**v)
    }
    fn child_nodes(self) -> impl Iterator<Item = Self> {
        std::iter::successors(self.first_child(), |n| n.next_sibling())
    }
    fn subtree(self) -> impl Iterator<Item = Self> {
        let root = self.id;
        std::iter::successors(Some(self), move |n| {
            if let Some(c) = n.first_child() {
                return Some(c);
            }
            let mut cur = *n;
            loop {
                if cur.id == root {
                    return None;
                }
                if let Some(s) = cur.next_sibling() {
                    return Some(s);
                }
                cur = cur.parent()?;
            }
        })
    }
}

#[cfg(test)] // the source of [`tag_flags`], checked by a test
const VOID: &[&str] = &[
    "area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img", "input",
    "keygen", "link", "meta", "param", "source", "track", "wbr",
];

fn is_void(name: &str) -> bool {
    tag_flags(name) & VOID_F != 0
}

/// html5ever's serialization of a node (scraper's `inner_html` of its parent).
fn serialize(n: NodeRef<'_>, out: &mut String, raw_parent: bool) {
    match &n.node().data {
        Data::Text(t) => {
            if raw_parent {
                out.push_str(t);
            } else {
                escape(t, false, out);
            }
        }
        Data::Comment(c) => {
            out.push_str("<!--");
            out.push_str(c);
            out.push_str("-->");
        }
        Data::Document => {}
        Data::Element { name, .. } => {
            out.push('<');
            out.push_str(name);
            let mut attrs: Vec<&(Cow<str>, Cow<str>)> = n.attrs().iter().collect();
            attrs.sort_by(|a, b| a.0.cmp(&b.0));
            for (k, v) in attrs {
                out.push(' ');
                out.push_str(k);
                out.push_str("=\"");
                escape(v, true, out);
                out.push('"');
            }
            out.push('>');
            if is_void(name) {
                return;
            }
            let raw = n.raw_text_parent();
            for c in n.child_nodes() {
                serialize(c, out, raw);
            }
            out.push_str("</");
            out.push_str(name);
            out.push('>');
        }
    }
}

fn escape(s: &str, attr: bool, out: &mut String) {
    // Runs without a character to escape are copied whole (U+00A0 is `C2 A0`).
    let b = s.as_bytes();
    let (mut from, mut i) = (0, 0);
    while i < b.len() {
        let (rep, len) = match b[i] {
            b'&' => ("&amp;", 1),
            b'<' => ("&lt;", 1),
            b'>' => ("&gt;", 1),
            b'"' if attr => ("&quot;", 1),
            0xC2 if b.get(i + 1) == Some(&0xA0) => ("&nbsp;", 2),
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&s[from..i]);
        out.push_str(rep);
        i += len;
        from = i;
    }
    out.push_str(&s[from..]);
}

// ---------------------------------------------------------------------------------------
// Character references.

/// html5ever's table of named references, keyed without the `&` (`amp;`, legacy `amp`;
/// the table also holds every prefix of a name, as `(0, 0)`).
fn entity(name: &str) -> Option<(u32, u32)> {
    markup5ever::data::NAMED_ENTITIES
        .get(name)
        .copied()
        .filter(|&v| v != (0, 0))
}

/// The first `&`, CR or NUL in `b`. Most texts and attribute values are a few bytes, where
/// a plain loop beats `memchr3`'s set-up; longer ones go to `memchr3`.
fn special(b: &[u8]) -> Option<usize> {
    if b.len() < 32 {
        b.iter().position(|&c| matches!(c, b'&' | b'\r' | 0))
    } else {
        memchr::memchr3(b'&', b'\r', 0, b)
    }
}

/// Decode character references and CR/CRLF as html5ever does, or `None` where this
/// decoder would differ from it (see the module docs).
fn decode_text(s: &str) -> Option<Cow<'_, str>> {
    if special(s.as_bytes()).is_none() {
        return Some(Cow::Borrowed(s));
    }
    let mut out = String::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    let mut from = 0;
    while i < b.len() {
        match b[i] {
            0 => return None,
            b'\r' => {
                out.push_str(&s[from..i]);
                if b.get(i + 1) != Some(&b'\n') {
                    out.push('\n');
                }
                i += 1;
                from = i;
            }
            b'&' => {
                out.push_str(&s[from..i]);
                let (text, len) = char_ref(&s[i + 1..])?;
                match text {
                    Some((a, c)) => {
                        out.push(a);
                        if let Some(c) = c {
                            out.push(c);
                        }
                        i += 1 + len;
                    }
                    None => {
                        out.push('&');
                        i += 1;
                    }
                }
                from = i;
            }
            _ => {
                i += special(&b[i..]).unwrap_or(b.len() - i);
            }
        }
    }
    out.push_str(&s[from..]);
    Some(Cow::Owned(out))
}

type RefChars = Option<(char, Option<char>)>;

/// The references most pages are full of, read without the table lookup (a test checks
/// the table gives the same).
const COMMON_REFS: &[(&str, char)] = &[
    ("amp;", '&'),
    ("nbsp;", '\u{a0}'),
    ("quot;", '"'),
    ("lt;", '<'),
    ("gt;", '>'),
];

/// The reference after a `&`: the characters and the length consumed, `(None, 0)` for a
/// literal `&`, `None` where html5ever's reading is not this one's.
fn char_ref(rest: &str) -> Option<(RefChars, usize)> {
    let b = rest.as_bytes();
    if b.first() == Some(&b'#') {
        let (hex, start) = match b.get(1) {
            Some(b'x' | b'X') => (true, 2),
            _ => (false, 1),
        };
        let digits = b[start..]
            .iter()
            .take_while(|c| {
                if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            })
            .count();
        if digits == 0 || digits > 8 || b.get(start + digits) != Some(&b';') {
            return None;
        }
        let v =
            u32::from_str_radix(&rest[start..start + digits], if hex { 16 } else { 10 }).ok()?;
        let ok = matches!(v, 0x09 | 0x0a | 0x20..=0x7e | 0xa0..=0xd7ff | 0xe000..=0xfdcf | 0xfdf0..=0x10ffff)
            && (v & 0xfffe) != 0xfffe;
        if !ok {
            return None;
        }
        return Some((Some((char::from_u32(v)?, None)), start + digits + 1));
    }
    for &(name, c) in COMMON_REFS {
        if rest.starts_with(name) {
            return Some((Some((c, None)), name.len()));
        }
    }
    let run = b
        .iter()
        .take(40)
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    if run == 0 {
        return Some((None, 0));
    }
    if b.get(run) == Some(&b';')
        && let Some((a, c)) = entity(&rest[..=run])
    {
        let c = if c == 0 { None } else { char::from_u32(c) };
        return Some((Some((char::from_u32(a)?, c)), run + 1));
    }
    // A legacy name (no `;`) that is a prefix of the run: html5ever's reading depends on
    // what follows it (and on text vs attribute); not this one's to guess.
    if (1..=run.min(6)).any(|n| entity(&rest[..n]).is_some()) {
        return None;
    }
    Some((None, 0))
}

// ---------------------------------------------------------------------------------------
// Tokenizer and tree builder.

#[cfg(test)] // the source of [`tag_flags`], checked by a test
const SPECIAL: &[&str] = &[
    "address",
    "applet",
    "area",
    "article",
    "aside",
    "base",
    "basefont",
    "bgsound",
    "blockquote",
    "body",
    "br",
    "button",
    "caption",
    "center",
    "col",
    "colgroup",
    "dd",
    "details",
    "dir",
    "div",
    "dl",
    "dt",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "frame",
    "frameset",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "iframe",
    "img",
    "input",
    "keygen",
    "li",
    "link",
    "listing",
    "main",
    "marquee",
    "menu",
    "meta",
    "nav",
    "noembed",
    "noframes",
    "noscript",
    "object",
    "ol",
    "p",
    "param",
    "plaintext",
    "pre",
    "script",
    "search",
    "section",
    "select",
    "source",
    "style",
    "summary",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "title",
    "tr",
    "track",
    "ul",
    "wbr",
    "xmp",
];

/// Start tags that close an open `<p>`.
#[cfg(test)] // the source of [`tag_flags`], checked by a test
const CLOSES_P: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "header",
    "hgroup",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "search",
    "section",
    "summary",
    "ul",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "pre",
    "listing",
    "form",
    "plaintext",
    "table",
    "hr",
    "xmp",
];

/// Start tags whose handling this builder does not implement.
#[cfg(test)] // the source of [`tag_flags`], checked by a test
const DECLINED: &[&str] = &[
    "select",
    "option",
    "optgroup",
    "pre",
    "listing",
    "plaintext",
    "xmp",
    "iframe",
    "noembed",
    "noframes",
    "noscript",
    "math",
    "svg",
    "template",
    "frameset",
    "frame",
    "image",
    "caption",
    "colgroup",
    "col",
    "nobr",
    "rb",
    "rp",
    "rt",
    "rtc",
    "menuitem",
    "isindex",
    "title",
];

#[cfg(test)] // the source of [`tag_flags`], checked by a test
const HEADINGS: &[&str] = &["h1", "h2", "h3", "h4", "h5", "h6"];

const SPECIAL_F: u8 = 1;
const CLOSES_P_F: u8 = 2;
const DECLINED_F: u8 = 4;
const VOID_F: u8 = 8;
const HEADING_F: u8 = 16;

/// The lists above as bits, one `match` per tag instead of a scan of each list.
fn tag_flags(name: &str) -> u8 {
    match name {
        "address" => SPECIAL_F | CLOSES_P_F,
        "applet" => SPECIAL_F,
        "area" => SPECIAL_F | VOID_F,
        "article" => SPECIAL_F | CLOSES_P_F,
        "aside" => SPECIAL_F | CLOSES_P_F,
        "base" => SPECIAL_F | VOID_F,
        "basefont" => SPECIAL_F | VOID_F,
        "bgsound" => SPECIAL_F | VOID_F,
        "blockquote" => SPECIAL_F | CLOSES_P_F,
        "body" => SPECIAL_F,
        "br" => SPECIAL_F | VOID_F,
        "button" => SPECIAL_F,
        "caption" => SPECIAL_F | DECLINED_F,
        "center" => SPECIAL_F | CLOSES_P_F,
        "col" => SPECIAL_F | DECLINED_F | VOID_F,
        "colgroup" => SPECIAL_F | DECLINED_F,
        "dd" => SPECIAL_F,
        "details" => SPECIAL_F | CLOSES_P_F,
        "dialog" => CLOSES_P_F,
        "dir" => SPECIAL_F | CLOSES_P_F,
        "div" => SPECIAL_F | CLOSES_P_F,
        "dl" => SPECIAL_F | CLOSES_P_F,
        "dt" => SPECIAL_F,
        "embed" => SPECIAL_F | VOID_F,
        "fieldset" => SPECIAL_F | CLOSES_P_F,
        "figcaption" => SPECIAL_F | CLOSES_P_F,
        "figure" => SPECIAL_F | CLOSES_P_F,
        "footer" => SPECIAL_F | CLOSES_P_F,
        "form" => SPECIAL_F | CLOSES_P_F,
        "frame" => SPECIAL_F | DECLINED_F | VOID_F,
        "frameset" => SPECIAL_F | DECLINED_F,
        "h1" => SPECIAL_F | CLOSES_P_F | HEADING_F,
        "h2" => SPECIAL_F | CLOSES_P_F | HEADING_F,
        "h3" => SPECIAL_F | CLOSES_P_F | HEADING_F,
        "h4" => SPECIAL_F | CLOSES_P_F | HEADING_F,
        "h5" => SPECIAL_F | CLOSES_P_F | HEADING_F,
        "h6" => SPECIAL_F | CLOSES_P_F | HEADING_F,
        "head" => SPECIAL_F,
        "header" => SPECIAL_F | CLOSES_P_F,
        "hgroup" => SPECIAL_F | CLOSES_P_F,
        "hr" => SPECIAL_F | CLOSES_P_F | VOID_F,
        "html" => SPECIAL_F,
        "iframe" => SPECIAL_F | DECLINED_F,
        "image" => DECLINED_F,
        "img" => SPECIAL_F | VOID_F,
        "input" => SPECIAL_F | VOID_F,
        "isindex" => DECLINED_F,
        "keygen" => SPECIAL_F | VOID_F,
        "li" => SPECIAL_F,
        "link" => SPECIAL_F | VOID_F,
        "listing" => SPECIAL_F | CLOSES_P_F | DECLINED_F,
        "main" => SPECIAL_F | CLOSES_P_F,
        "marquee" => SPECIAL_F,
        "math" => DECLINED_F,
        "menu" => SPECIAL_F | CLOSES_P_F,
        "menuitem" => DECLINED_F,
        "meta" => SPECIAL_F | VOID_F,
        "nav" => SPECIAL_F | CLOSES_P_F,
        "nobr" => DECLINED_F,
        "noembed" => SPECIAL_F | DECLINED_F,
        "noframes" => SPECIAL_F | DECLINED_F,
        "noscript" => SPECIAL_F | DECLINED_F,
        "object" => SPECIAL_F,
        "ol" => SPECIAL_F | CLOSES_P_F,
        "optgroup" => DECLINED_F,
        "option" => DECLINED_F,
        "p" => SPECIAL_F | CLOSES_P_F,
        "param" => SPECIAL_F | VOID_F,
        "plaintext" => SPECIAL_F | CLOSES_P_F | DECLINED_F,
        "pre" => SPECIAL_F | CLOSES_P_F | DECLINED_F,
        "rb" => DECLINED_F,
        "rp" => DECLINED_F,
        "rt" => DECLINED_F,
        "rtc" => DECLINED_F,
        "script" => SPECIAL_F,
        "search" => SPECIAL_F | CLOSES_P_F,
        "section" => SPECIAL_F | CLOSES_P_F,
        "select" => SPECIAL_F | DECLINED_F,
        "source" => SPECIAL_F | VOID_F,
        "style" => SPECIAL_F,
        "summary" => SPECIAL_F | CLOSES_P_F,
        "svg" => DECLINED_F,
        "table" => SPECIAL_F | CLOSES_P_F,
        "tbody" => SPECIAL_F,
        "td" => SPECIAL_F,
        "template" => SPECIAL_F | DECLINED_F,
        "textarea" => SPECIAL_F,
        "tfoot" => SPECIAL_F,
        "th" => SPECIAL_F,
        "thead" => SPECIAL_F,
        "title" => SPECIAL_F | DECLINED_F,
        "tr" => SPECIAL_F,
        "track" => SPECIAL_F | VOID_F,
        "ul" => SPECIAL_F | CLOSES_P_F,
        "wbr" => SPECIAL_F | VOID_F,
        "xmp" => SPECIAL_F | CLOSES_P_F | DECLINED_F,
        _ => 0,
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

fn lower(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(s.to_ascii_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

struct Builder<'a> {
    dom: Dom<'a>,
    stack: Vec<u32>,
    html: u32,
    head: u32,
    body: u32,
    head_open: bool,
    p_open: u32,
    a_open: u32,
    button_open: u32,
    form_open: bool,
    /// The first element with `id="postlist"`, once made.
    postlist: u32,
    /// Set when that element is closed with no formatting element open around it.
    postlist_done: bool,
    /// Where the tag being handled starts (a start tag) or ends (an end tag).
    pos: usize,
}

impl<'a> Builder<'a> {
    fn new(len: usize) -> Self {
        let mut nodes = Vec::with_capacity(len / 40);
        nodes.push(Node {
            parent: NONE,
            first: NONE,
            last: NONE,
            next: NONE,
            data: Data::Document,
        });
        Builder {
            dom: Dom {
                nodes,
                attrs: Vec::with_capacity(len / 60),
                spans: Vec::new(),
                broken: Vec::new(),
            },
            pos: 0,
            stack: vec![0],
            html: NONE,
            head: NONE,
            body: NONE,
            head_open: false,
            p_open: 0,
            a_open: 0,
            button_open: 0,
            form_open: false,
            postlist: NONE,
            postlist_done: false,
        }
    }

    fn current(&self) -> u32 {
        *self.stack.last().unwrap()
    }

    fn name_of(&self, id: u32) -> &str {
        match &self.dom.nodes[id as usize].data {
            Data::Element { name, .. } => name,
            _ => "",
        }
    }

    fn append(&mut self, parent: u32, data: Data<'a>) -> u32 {
        let id = self.dom.nodes.len() as u32;
        let p = &mut self.dom.nodes[parent as usize];
        let prev = p.last;
        if prev == NONE {
            p.first = id;
        }
        p.last = id;
        if prev != NONE {
            self.dom.nodes[prev as usize].next = id;
        }
        self.dom.nodes.push(Node {
            parent,
            first: NONE,
            last: NONE,
            next: NONE,
            data,
        });
        id
    }

    /// No attributes (an implied element): an empty range that stays in bounds whatever
    /// is dropped from the list later.
    fn no_attrs(&self) -> (u32, u32) {
        (0, 0)
    }

    /// A new element under `parent`; `(a, b)` its attributes, `dom.attrs[a..b]` (a start
    /// tag's are pushed there as they are read).
    fn element(&mut self, parent: u32, name: Cow<'a, str>, (a, b): (u32, u32)) -> u32 {
        let is_postlist = self.postlist == NONE
            && self.dom.attrs[a as usize..b as usize]
                .iter()
                .any(|(k, v)| k == "id" && v == "postlist");
        let id = self.append(
            parent,
            Data::Element {
                name,
                attrs: (a, b),
            },
        );
        if is_postlist {
            self.postlist = id;
        }
        if parent == self.postlist && parent != NONE {
            self.dom.spans.push((id, self.pos, usize::MAX));
        }
        id
    }

    fn text(&mut self, parent: u32, t: Cow<'a, str>) {
        let last = self.dom.nodes[parent as usize].last;
        if last != NONE
            && let Data::Text(prev) = &mut self.dom.nodes[last as usize].data
        {
            prev.to_mut().push_str(&t);
            return;
        }
        self.append(parent, Data::Text(t));
    }

    fn push(&mut self, id: u32) {
        match self.name_of(id) {
            "p" => self.p_open += 1,
            "a" => self.a_open += 1,
            "button" => self.button_open += 1,
            _ => {}
        }
        self.stack.push(id);
    }

    fn pop(&mut self) {
        let id = self.stack.pop().unwrap();
        if self.postlist != NONE
            && self.dom.nodes[id as usize].parent == self.postlist
            && let Some(span) = self.dom.spans.iter_mut().rev().find(|s| s.0 == id)
        {
            span.2 = self.pos;
        }
        if id == self.postlist {
            // Nothing after this can change the list or what is in it: html5ever only
            // moves nodes that are still open or sit inside an open formatting element
            // (the adoption agency), and none is.
            self.postlist_done = !self.stack.iter().any(|&o| {
                matches!(
                    self.name_of(o),
                    "a" | "b"
                        | "big"
                        | "code"
                        | "em"
                        | "font"
                        | "i"
                        | "nobr"
                        | "s"
                        | "small"
                        | "strike"
                        | "strong"
                        | "tt"
                        | "u"
                )
            });
        }
        match self.name_of(id) {
            "p" => self.p_open -= 1,
            "a" => self.a_open -= 1,
            "button" => self.button_open -= 1,
            "form" => self.form_open = false,
            "head" => self.head_open = false,
            _ => {}
        }
    }

    fn ensure_html(&mut self) {
        if self.html == NONE {
            self.html = self.element(0, Cow::Borrowed("html"), self.no_attrs());
            self.push(self.html);
        }
    }

    fn ensure_head(&mut self) {
        self.ensure_html();
        if self.head == NONE {
            self.head = self.element(self.html, Cow::Borrowed("head"), self.no_attrs());
            self.push(self.head);
            self.head_open = true;
        }
    }

    fn ensure_body(&mut self) {
        if self.body != NONE {
            return;
        }
        self.ensure_head();
        if self.head_open {
            self.pop();
        }
        self.body = self.element(self.html, Cow::Borrowed("body"), self.no_attrs());
        self.push(self.body);
    }

    /// The rows and sections open above the nearest open `<table>` (nearest first), when
    /// nothing else is open between it and the current node.
    fn rows_to_table(&self) -> Option<Vec<u32>> {
        let mut open = Vec::new();
        for &id in self.stack.iter().rev() {
            match self.name_of(id) {
                "table" => return Some(open),
                "tr" | "tbody" | "thead" | "tfoot" => open.push(id),
                _ => return None,
            }
        }
        None
    }

    /// Close the rows and sections above the current table (see [`Self::rows_to_table`]).
    fn pop_to_table(&mut self) {
        while matches!(
            self.name_of(self.current()),
            "tr" | "tbody" | "thead" | "tfoot"
        ) {
            self.pop();
        }
    }

    /// After a decline inside a post container: leave the container (its source up to
    /// the next container) to html5ever and go on after it; `None` when the decline is not
    /// inside one.
    fn skip_post(&mut self, s: &str, at: usize) -> Option<usize> {
        if self.postlist == NONE {
            return None;
        }
        let k = self.stack.iter().position(|&id| id == self.postlist)?;
        let container = *self.stack.get(k + 1)?;
        let is_post = NodeRef {
            dom: &self.dom,
            id: container,
        }
        .id_attr()
        .is_some_and(html::is_post_container_id);
        if !is_post {
            return None;
        }
        let from = self
            .dom
            .spans
            .iter()
            .find(|sp| sp.0 == container && sp.2 == usize::MAX)?
            .1;
        let next = next_container(s, at.max(from + 1))?;
        self.pos = next;
        while self.stack.len() > k + 1 {
            self.pop();
        }
        self.dom.broken.push(container);
        Some(next)
    }

    fn in_table_context(&self) -> bool {
        matches!(
            self.name_of(self.current()),
            "table" | "tbody" | "thead" | "tfoot" | "tr"
        )
    }

    /// A start tag (raw-text content is added by the caller). Returns the new element and
    /// whether it stays open.
    fn start(&mut self, name: Cow<'a, str>, attrs: (u32, u32)) -> Option<u32> {
        let n: &str = &name;
        match n {
            "html" => {
                self.ensure_html();
                return Some(NONE);
            }
            "head" => {
                if self.head == NONE && self.body == NONE {
                    self.ensure_head();
                }
                return Some(NONE);
            }
            "body" => {
                self.ensure_body();
                return Some(NONE);
            }
            _ => {}
        }
        let head_content = matches!(n, "meta" | "link" | "base" | "script" | "style" | "title");
        if self.body == NONE {
            if head_content {
                self.ensure_head();
                if n == "title" {
                    let id = self.element(self.head, name, attrs);
                    return Some(id);
                }
                let id = self.element(self.head, name, attrs);
                return Some(id);
            }
            self.ensure_body();
        }
        let n: &str = &name;
        let flags = tag_flags(n);
        if flags & DECLINED_F != 0 {
            return None;
        }
        let cur = self.current();
        if self.in_table_context() {
            let cur_name = self.name_of(cur);
            let cur_table = cur_name == "table";
            let cur_section = matches!(cur_name, "tbody" | "thead" | "tfoot");
            let cur_tr = cur_name == "tr";
            return match n {
                "tbody" | "thead" | "tfoot" if cur_table => {
                    let id = self.element(cur, name, attrs);
                    self.push(id);
                    Some(id)
                }
                "tr" if cur_table => {
                    let tb = self.element(cur, Cow::Borrowed("tbody"), self.no_attrs());
                    self.push(tb);
                    let id = self.element(tb, name, attrs);
                    self.push(id);
                    Some(id)
                }
                "tr" if cur_section => {
                    let id = self.element(cur, name, attrs);
                    self.push(id);
                    Some(id)
                }
                "tr" if cur_tr => {
                    // An open row ends where the next one starts.
                    self.pop();
                    let sec = self.current();
                    let id = self.element(sec, name, attrs);
                    self.push(id);
                    Some(id)
                }
                "tbody" | "thead" | "tfoot" if cur_section || cur_tr => {
                    // A new section closes the open row and section (the stock 评分 log:
                    // `<table class="ratl"><tr><th>…</th></tr><tbody class="ratl_l">`).
                    self.pop_to_table();
                    let table = self.current();
                    let id = self.element(table, name, attrs);
                    self.push(id);
                    Some(id)
                }
                "td" | "th" if cur_tr => {
                    let id = self.element(cur, name, attrs);
                    self.push(id);
                    Some(id)
                }
                "td" | "th" => {
                    // A cell straight in a table or section (the stock numbercard:
                    // `<table><th>…</th><td>…</td></table>`) gets the implied `<tbody>`
                    // and `<tr>`, as html5ever gives it.
                    let mut parent = cur;
                    if cur_table {
                        parent = self.element(cur, Cow::Borrowed("tbody"), self.no_attrs());
                        self.push(parent);
                    }
                    let tr = self.element(parent, Cow::Borrowed("tr"), self.no_attrs());
                    self.push(tr);
                    let id = self.element(tr, name, attrs);
                    self.push(id);
                    Some(id)
                }
                "script" | "style" => Some(self.element(cur, name, attrs)),
                _ => None,
            };
        }
        match n {
            "td" | "th" | "tr" | "tbody" | "thead" | "tfoot" => return None,
            "a" if self.a_open > 0 => return None,
            "button" if self.button_open > 0 => return None,
            "form" if self.form_open => return None,
            _ => {}
        }
        if flags & CLOSES_P_F != 0 && self.p_open > 0 {
            // A block closes the paragraph it starts in (the stock attachment list:
            // `<p class="attnm"><a>…</a><div class="tip">…</div></p>`); anything but the
            // plain case (the `<p>` itself the current node) is declined.
            // (`<table>` does not close it in quirks mode: declined.)
            if self.name_of(cur) != "p" || n == "table" {
                return None;
            }
            self.pop();
        }
        let cur = self.current();
        if flags & HEADING_F != 0 && tag_flags(self.name_of(cur)) & HEADING_F != 0 {
            return None;
        }
        if matches!(n, "li" | "dd" | "dt") {
            if self.p_open > 0 {
                return None;
            }
            for &id in self.stack.iter().rev() {
                let m = self.name_of(id);
                if m == n || (n != "li" && matches!(m, "dd" | "dt")) {
                    return None;
                }
                if tag_flags(m) & SPECIAL_F != 0 && !matches!(m, "address" | "div" | "p") {
                    break;
                }
            }
        }
        let void = flags & VOID_F != 0;
        let raw = matches!(n, "script" | "style" | "textarea");
        let is_form = n == "form";
        let id = self.element(cur, name, attrs);
        if !void && !raw {
            self.push(id);
            if is_form {
                self.form_open = true;
            }
        }
        Some(id)
    }

    /// An end tag; `None` to decline.
    fn end(&mut self, name: &str) -> Option<()> {
        match name {
            "html" | "body" => return Some(()),
            "head" => {
                if self.head_open && self.current() == self.head {
                    self.pop();
                }
                return Some(());
            }
            "br" => return None,
            _ => {}
        }
        let cur = self.current();
        if self.name_of(cur) == name {
            self.pop();
            return Some(());
        }
        if matches!(name, "table" | "tbody" | "thead" | "tfoot")
            && matches!(self.name_of(cur), "tr" | "tbody" | "thead" | "tfoot")
            && let Some(open) = self.rows_to_table()
        {
            // `</table>` closes the rows and sections left open (implied or not);
            // a section's end tag closes the row open in it.
            if name == "table" {
                self.pop_to_table();
                self.pop();
                return Some(());
            }
            if open.iter().any(|&id| self.name_of(id) == name) {
                while self.name_of(self.current()) != name {
                    self.pop();
                }
                self.pop();
                return Some(());
            }
        }
        if name == "p" && self.p_open == 0 && !self.in_table_context() {
            // A `</p>` with no paragraph open: html5ever makes an empty one there.
            let cur = self.current();
            self.element(cur, Cow::Borrowed("p"), self.no_attrs());
            return Some(());
        }
        if name == "p" || self.stack.iter().any(|&id| self.name_of(id) == name) {
            return None;
        }
        // Not open at all: html5ever ignores it.
        Some(())
    }

    fn characters(&mut self, raw: &'a str) -> Option<()> {
        if raw.is_empty() {
            return Some(());
        }
        let all_ws = raw.bytes().all(is_ws);
        if self.body == NONE {
            if all_ws {
                return Some(()); // before/in/after head: not part of any post
            }
            self.ensure_body();
        }
        if self.in_table_context() && !all_ws {
            return None; // foster parenting
        }
        let t = decode_text(raw)?;
        let cur = self.current();
        self.text(cur, t);
        Some(())
    }
}

fn find_ci(hay: &str, from: usize, needle: &str) -> Option<usize> {
    let h = hay.as_bytes();
    let n = needle.as_bytes();
    let mut i = from;
    while i + n.len() <= h.len() {
        let j = memchr_lt(h, i)?;
        if j + n.len() <= h.len() && h[j..j + n.len()].eq_ignore_ascii_case(n) {
            let after = h.get(j + n.len()).copied();
            if after.is_none_or(|c| is_ws(c) || c == b'/' || c == b'>') {
                return Some(j);
            }
        }
        i = j + 1;
    }
    None
}

fn memchr_lt(h: &[u8], from: usize) -> Option<usize> {
    memchr::memchr(b'<', &h[from..]).map(|p| p + from)
}

/// Build the tree of `s`, or `None` where html5ever's tree could differ (module docs).
pub(crate) fn build(s: &str) -> Option<Dom<'_>> {
    build_until(s, false).map(|(d, _)| d)
}

/// [`build`]; with `stop_after_postlist`, stop at the end tag that closes `#postlist`
/// (when no formatting element is open around it) and return where the rest of `s`
/// starts: the tree up to there is html5ever's, and the rest is not read at all.
fn build_until(s: &str, stop_after_postlist: bool) -> Option<(Dom<'_>, Option<usize>)> {
    let mut t = Builder::new(s.len());
    let mut i = 0;
    while i < s.len() {
        if stop_after_postlist && t.postlist_done {
            return Some((t.dom, Some(i)));
        }
        i = match step(s, i, &mut t) {
            Some(next) => next,
            None => t.skip_post(s, i)?,
        };
    }
    Some((t.dom, None))
}

/// Read the text and the tag at `i`; the index after them, `None` to decline.
fn step<'a>(s: &'a str, mut i: usize, t: &mut Builder<'a>) -> Option<usize> {
    let b = s.as_bytes();
    let Some(lt) = memchr_lt(b, i) else {
        t.characters(&s[i..])?;
        return Some(b.len());
    };
    let next = b.get(lt + 1).copied();
    match next {
        Some(c) if c.is_ascii_alphabetic() => {
            t.characters(&s[i..lt])?;
            t.pos = lt;
            i = start_tag(s, lt, t)?;
        }
        Some(b'/') => {
            t.characters(&s[i..lt])?;
            match b.get(lt + 2) {
                Some(c) if c.is_ascii_alphabetic() => {
                    let gt = lt + 2 + memchr::memchr(b'>', &b[lt + 2..])?;
                    let inner = &s[lt + 2..gt];
                    if inner.contains(['<', '"', '\'']) {
                        return None;
                    }
                    let end = inner
                        .find(|c: char| c.is_ascii_whitespace() || c == '/')
                        .unwrap_or(inner.len());
                    t.pos = gt + 1;
                    t.end(&lower(&inner[..end]))?;
                    i = gt + 1;
                }
                Some(b'>') => i = lt + 3,
                _ => return None,
            }
        }
        Some(b'!') => {
            t.characters(&s[i..lt])?;
            let rest = &s[lt..];
            if let Some(body) = rest.strip_prefix("<!--") {
                if body.starts_with('>') || body.starts_with("->") {
                    return None;
                }
                let end = body.find("-->")?;
                let text = &body[..end];
                if text.contains("--!") || text.contains(['\r', '\0']) {
                    return None;
                }
                if t.body != NONE {
                    let cur = t.current();
                    t.append(cur, Data::Comment(text));
                }
                i = lt + 4 + end + 3;
            } else if rest.len() > 9 && rest.as_bytes()[2..9].eq_ignore_ascii_case(b"doctype") {
                if t.html != NONE {
                    return None;
                }
                i = lt + rest.find('>')? + 1;
            } else {
                return None;
            }
        }
        Some(b'?') => return None,
        _ => {
            // A lone `<` is text: keep it with what follows.
            let upto = memchr_lt(b, lt + 1).unwrap_or(b.len());
            t.characters(&s[i..upto])?;
            i = upto;
        }
    }
    Some(i)
}

/// Where the next post container (`<div id="post_N"`) or the block after the last one
/// (`<div id="postlistreply"`) starts, at or after `from`.
fn next_container(s: &str, from: usize) -> Option<usize> {
    let b = s.as_bytes();
    memchr::memmem::find_iter(&b[from..], b"<div id=\"post")
        .map(|k| from + k)
        .find(|&k| {
            let rest = &b[k + 13..];
            (rest.first() == Some(&b'_') && rest.get(1).is_some_and(u8::is_ascii_digit))
                || rest.starts_with(b"listreply\"")
        })
}

/// Read a start tag at `lt` (and a raw-text element's content); the index after it.
fn start_tag<'a>(s: &'a str, lt: usize, t: &mut Builder<'a>) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = lt + 1;
    while i < b.len() && !is_ws(b[i]) && b[i] != b'/' && b[i] != b'>' {
        if b[i] == 0 || b[i] == b'<' {
            return None;
        }
        i += 1;
    }
    let name = lower(&s[lt + 1..i]);
    // The attributes go straight into the tree's list; the first of two same-named ones
    // wins.
    let a = t.dom.attrs.len();
    loop {
        while i < b.len() && is_ws(b[i]) {
            i += 1;
        }
        match b.get(i)? {
            b'>' => {
                i += 1;
                break;
            }
            b'/' => {
                i += 1;
                continue;
            }
            _ => {}
        }
        let k0 = i;
        while i < b.len() && !is_ws(b[i]) && !matches!(b[i], b'/' | b'>' | b'=') {
            if matches!(b[i], b'"' | b'\'' | b'<' | 0) {
                return None;
            }
            i += 1;
        }
        if i == k0 {
            return None; // `=` first
        }
        let key = lower(&s[k0..i]);
        while i < b.len() && is_ws(b[i]) {
            i += 1;
        }
        let mut value: Cow<str> = Cow::Borrowed("");
        if b.get(i) == Some(&b'=') {
            i += 1;
            while i < b.len() && is_ws(b[i]) {
                i += 1;
            }
            match b.get(i)? {
                q @ (b'"' | b'\'') => {
                    let close = i + 1 + memchr::memchr(*q, &b[i + 1..])?;
                    value = decode_text(&s[i + 1..close])?;
                    i = close + 1;
                }
                b'>' => return None,
                _ => {
                    let v0 = i;
                    while i < b.len() && !is_ws(b[i]) && b[i] != b'>' {
                        if matches!(b[i], b'"' | b'\'' | b'<' | b'=' | b'`' | 0) {
                            return None;
                        }
                        i += 1;
                    }
                    value = decode_text(&s[v0..i])?;
                }
            }
        }
        if !t.dom.attrs[a..].iter().any(|(x, _)| *x == key) {
            t.dom.attrs.push((key, value));
        }
    }
    let raw = matches!(&*name, "script" | "style" | "title" | "textarea");
    let rcdata = matches!(&*name, "title" | "textarea");
    let tag = name.clone();
    let id = t.start(name, (a as u32, t.dom.attrs.len() as u32))?;
    if id == NONE {
        // `<html>`, `<head>`, `<body>`: no element made, its attributes are dropped.
        t.dom.attrs.truncate(a);
    }
    if raw {
        let end = match &*tag {
            "title" => "</title",
            "textarea" => "</textarea",
            "script" => "</script",
            _ => "</style",
        };
        let close = find_ci(s, i, end)?;
        let content = &s[i..close];
        if &*tag == "script" && content.contains("<!--") {
            return None;
        }
        if !content.is_empty() && id != NONE {
            let mut text = if rcdata {
                decode_text(content)?
            } else if content.contains('\0') {
                return None;
            } else if content.contains('\r') {
                Cow::Owned(content.replace("\r\n", "\n").replace('\r', "\n"))
            } else {
                Cow::Borrowed(content)
            };
            if &*tag == "textarea" && text.starts_with('\n') {
                // html5ever drops the newline right after `<textarea>`.
                text = match text {
                    Cow::Borrowed(b) => Cow::Borrowed(&b[1..]),
                    Cow::Owned(o) => Cow::Owned(o[1..].to_string()),
                };
            }
            if !text.is_empty() {
                t.text(id, text);
            }
        }
        i = close + b[close..].iter().position(|&c| c == b'>')? + 1;
    }
    Some(i)
}

// ---------------------------------------------------------------------------------------
// The stock post reader.

fn first<'d>(root: NodeRef<'d>, pred: impl Fn(NodeRef<'d>) -> bool) -> Option<NodeRef<'d>> {
    root.elements().find(|&e| pred(e))
}

fn id_starts(e: NodeRef<'_>, prefix: &str) -> bool {
    e.id_attr().is_some_and(|i| i.starts_with(prefix))
}

/// Whether an element comes after `el` in document order, outside it, that satisfies
/// `pred` (itself or one of its descendants): `html::followed` on this tree.
fn followed<'d>(el: NodeRef<'d>, pred: impl Fn(NodeRef<'d>) -> bool) -> bool {
    let mut node = Some(el);
    while let Some(n) = node {
        let mut sib = n.next_sibling();
        while let Some(s) = sib {
            if s.element_name().is_some() && s.elements().any(&pred) {
                return true;
            }
            sib = s.next_sibling();
        }
        node = n.parent();
    }
    false
}

fn is_follower(e: NodeRef<'_>) -> bool {
    matches!(
        e.id_attr(),
        Some(
            "postlistreply"
                | "hiddenpoststip"
                | "post_new"
                | "modactions"
                | "f_pst"
                | "fastpostform"
                | "ft"
                | "footer"
        )
    ) || (e.is("div") && (e.has_class_name("pgs") || e.has_class_name("pgbtn")))
}

fn pagination(doc: NodeRef<'_>) -> (u32, u32) {
    let Some(pg) = first(doc, |e| e.is("div") && e.has_class_name("pg")) else {
        return (1, 1);
    };
    let page = first(pg, |e| e.is("strong"))
        .and_then(|s| s.normalized_text().parse::<u32>().ok())
        .filter(|&p| p > 0)
        .unwrap_or(1);
    let from_label = pg
        .elements()
        .filter(|e| e.is("span") && e.attr_of("title").is_some())
        .filter(|e| e.ancestors().any(|a| a.is("label")))
        .find_map(|s| html::first_number(s.attr_of("title")?));
    let total = from_label.unwrap_or_else(|| {
        pg.elements()
            .filter(|e| e.is("a"))
            .filter_map(|a| html::first_number(&a.normalized_text()))
            .max()
            .unwrap_or(page)
    });
    (page, total.max(page))
}

fn is_hidden(e: NodeRef<'_>) -> bool {
    e.attr_of("style")
        .is_some_and(|s| s.replace(' ', "").contains("display:none"))
        || html::HIDDEN_CLASSES.iter().any(|c| e.has_class_name(c))
}

/// `html::author_text` on this tree.
fn author_text(a: NodeRef<'_>) -> String {
    fn walk(n: NodeRef<'_>, out: &mut String, top: bool) {
        for ch in n.child_nodes() {
            if let Some(t) = ch.text_of() {
                out.push_str(t);
            } else if let Some(name) = ch.element_name() {
                if is_hidden(ch) || matches!(name, "script" | "style") {
                    continue;
                }
                if top {
                    let t = ch.normalized_text();
                    if t.ends_with('：') || t.ends_with(':') {
                        continue;
                    }
                }
                walk(ch, out, false);
            }
        }
    }
    let mut s = String::new();
    walk(a, &mut s, true);
    html::strip_author_label(&s)
}

/// Whether `tail` could hold an element of class `pg`: the word `pg` between quotes,
/// `=`, `>` or whitespace (so `.jpg` or `pgs` do not count).
fn may_name_pg(tail: &[u8]) -> bool {
    let edge = |c: Option<&u8>| {
        matches!(c, None | Some(b'"' | b'\'' | b'=' | b'>')) || c.is_some_and(|&c| is_ws(c))
    };
    memchr::memmem::find_iter(tail, b"pg")
        .any(|i| edge(i.checked_sub(1).map(|j| &tail[j])) && edge(tail.get(i + 2)))
}

/// A stock post (see the module docs), or `None`.
fn parse_post(
    c: NodeRef<'_>,
    pid: u64,
    ctx: &ParseContext,
    opts: &BodyOpts,
    floor_names: &[String],
) -> Option<PagePost> {
    let table = first(c, |e| e.is("table") && id_starts(e, "pid"))?;
    if !table.has_class_name("plhin") {
        return None;
    }
    let link = first(c, |e| e.is("a") && id_starts(e, "postnum"))?;
    let floor_label = link.normalized_text();
    let copied = html::copied_floor(&floor_label);
    let author_link = first(c, |e| {
        e.is("a")
            && e.has_class_name("xw1")
            && e.ancestors().enumerate().any(|(i, a)| {
                a.has_class_name("authi")
                    && e.ancestors().skip(i + 1).any(|p| p.has_class_name("pls"))
            })
    })?;
    let author = author_text(author_link);
    if author.is_empty() {
        return None;
    }
    let uid = html::uid_from_href(author_link.attr_of("href")?)?;
    let uid = Some(uid).filter(|&u| u != 0);
    let floor = match copied {
        // A pinned or 推荐 entry: a copy, the floor it copies where the label shows one.
        Some(floor) => floor,
        None => {
            let em = first(link, |e| e.is("em") && e.id != link.id).map(|e| e.normalized_text());
            Some(html::floor_number(
                em.as_deref(),
                &floor_label,
                floor_names,
            )?)
        }
    };
    let poston = first(c, |e| id_starts(e, "authorposton"))?;
    let title = first(poston, |e| e.is("span") && e.attr_of("title").is_some())
        .and_then(|s| s.attr_of("title"));
    let time = parse_post_time(title, &poston.normalized_text(), ctx.fetched_at, ctx.tz)?;
    let (html, out, locked) = match first(c, |e| e.is("td") && id_starts(e, "postmessage_")) {
        Some(m) => {
            let out = body::extract(m, opts);
            let locked = out.lock;
            (m.inner_html(), out, locked)
        }
        None => {
            // A locked body (`div.locked` in place of the message cell).
            let l = c.elements().find(|e| {
                e.is("div")
                    && e.has_class_name("locked")
                    && !html::is_moderator_note(&e.normalized_text())
            })?;
            let kind = body::lock_kind_from_text(&l.normalized_text());
            (l.inner_html(), body::BodyOut::default(), Some(kind))
        }
    };
    Some(PagePost {
        pid: Some(pid),
        floor,
        floor_label,
        author,
        uid,
        time,
        edit: out.edit,
        quote: out.quote,
        html,
        text: out.text,
        red: out.red,
        large: out.large,
        locked,
        deleted: false,
        duplicate: copied.is_some(),
    })
}

/// A page read by [`parse`].
#[derive(Debug)]
pub(crate) struct FastRead {
    pub parsed: Parsed,
    /// Posts this path did not read itself and left, each alone, to html5ever.
    pub posts_declined: usize,
}

/// Read a stock PC thread page through the fast tree, or `None` to leave it to the
/// html5ever path. `trimmed` is the decoded page, `closed` whether it ends in
/// `</body>`/`</html>` (as [`html::parse_html_with_warnings`] computed them).
pub(crate) fn parse(
    trimmed: &str,
    closed: bool,
    ctx: &ParseContext,
    floor_names: &[String],
) -> Option<FastRead> {
    if ctx.source.contains("authorid=") || trimmed.contains("显示全部楼层") {
        return None;
    }
    // A page that ends in `</body>`/`</html>` is read only up to the end of `#postlist`
    // (the page chrome after it is a fifth of a stock page): what the reader takes from
    // after the list is only that the page is complete (`closed` says so) and whether the
    // pager's links are author-filtered (any `authorid=` in the rest declines, as a
    // filtered pager there would); a page whose first pager comes after the list is built
    // whole.
    let (mut dom, rest) = build_until(trimmed, closed)?;
    if let Some(r) = rest {
        let tail = &trimmed.as_bytes()[r..];
        if memchr::memmem::find(tail, b"authorid=").is_some() {
            return None;
        }
        let doc = NodeRef { dom: &dom, id: 0 };
        if first(doc, |e| e.is("div") && e.has_class_name("pg")).is_none() && may_name_pg(tail) {
            dom = build(trimmed)?;
        }
    }
    let doc = NodeRef { dom: &dom, id: 0 };
    let postlist = first(doc, |e| e.id_attr() == Some("postlist"))?;
    let viewer_uid = html::viewer_uid(trimmed);
    let tid = ctx.tid.or_else(|| html::tid_from_script(trimmed))?;
    let title = first(doc, |e| e.id_attr() == Some("thread_subject"))
        .map(|s| s.normalized_text())
        .or_else(|| {
            first(doc, |e| e.is("title")).map(|t| {
                let t = t.normalized_text();
                t.split(" - ").next().unwrap_or("").trim().to_string()
            })
        })
        .unwrap_or_default();
    let (page, total_pages) = pagination(doc);
    let filtered_pager = doc
        .elements()
        .filter(|e| e.is("div") && e.has_class_name("pg"))
        .any(|pg| {
            pg.elements()
                .any(|a| a.is("a") && a.attr_of("href").is_some_and(|h| h.contains("authorid=")))
        });
    if filtered_pager {
        return None;
    }
    let containers: Vec<NodeRef> = postlist
        .child_nodes()
        .filter(|e| e.id_attr().is_some_and(html::is_post_container_id))
        .collect();
    let last = *containers.last()?;
    let list_closed = closed || followed(postlist, |_| true);
    if !(list_closed || followed(last, is_follower)) {
        return None; // truncated: the html5ever path says so
    }
    let opts = BodyOpts {
        judge_size: true,
        tz: ctx.tz,
    };
    let mut seen = HashSet::new();
    let mut posts = Vec::with_capacity(containers.len());
    let mut warnings = Vec::new();
    let mut posts_declined = 0;
    for c in containers {
        let pid: u64 = c.id_attr()?.strip_prefix("post_")?.parse().ok()?;
        let read = if dom.broken.contains(&c.id) {
            None
        } else {
            parse_post(c, pid, ctx, &opts, floor_names)
        };
        let mut post = match read {
            Some(p) => p,
            None => {
                // Not the stock shape (a placeholder, a pinned or locked post, a
                // customised header): this post alone goes through html5ever.
                posts_declined += 1;
                let (from, to) = dom.span(c.id)?;
                html::parse_post_alone(
                    &trimmed[from..to],
                    pid,
                    ctx,
                    &opts,
                    floor_names,
                    &mut warnings,
                )?
                .ok()?
            }
        };
        if let Some(pid) = post.pid
            && !seen.insert(pid)
        {
            post.duplicate = true;
        }
        posts.push(post);
    }
    html::finish_posts(&mut posts, &mut warnings, page, total_pages, false);
    Some(FastRead {
        parsed: Parsed {
            page: crate::model::ThreadPage {
                tid,
                title,
                page,
                total_pages,
                posts,
                author_filtered: false,
                viewer_uid,
            },
            warnings,
        },
        posts_declined,
    })
}

#[cfg(test)]
mod tests;
