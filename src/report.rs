//! Output plumbing shared by the report commands: the `--format` switch and BBCode safety.

use clap::ValueEnum;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    #[default]
    Text,
    Json,
    Bbcode,
}

/// Make player-written text inert inside a BBCode post. Discuz! parses `[tag]` anywhere
/// and has no escape that survives its HTML filter (`&#91;` is shown literally: its
/// `dhtmlspecialchars` restores only 3–5 digit entities), so `[` and `]` become the
/// full-width `［` and `］`, which read the same and are never parsed as tags.
pub fn bbcode_escape(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '[' => '［',
            ']' => '］',
            c => c,
        })
        .collect()
}

/// A link to a post by pid (`forum.php?mod=redirect&goto=findpost&ptid=T&pid=P`).
pub fn findpost_url(base_url: &str, tid: u64, pid: u64) -> String {
    format!(
        "{}forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={pid}",
        with_slash(base_url)
    )
}

/// A link to one author's posts in a thread (只看该作者).
pub fn author_only_url(base_url: &str, tid: u64, uid: u64) -> String {
    format!(
        "{}forum.php?mod=viewthread&tid={tid}&page=1&authorid={uid}",
        with_slash(base_url)
    )
}

pub fn with_slash(base: &str) -> String {
    if base.ends_with('/') {
        base.to_string()
    } else {
        format!("{base}/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_neutralises_closing_tags() {
        let e = bbcode_escape("[/quote][size=7]大[/size]");
        assert!(!e.contains('[') && !e.contains(']'), "{e}");
        assert_eq!(e, "［/quote］［size=7］大［/size］");
    }
}

/// How many terminal columns `s` takes: CJK characters take two (text reports line up
/// columns by this, never by `char` count).
pub fn display_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// `s` padded with spaces on the right to `width` display columns.
pub fn pad_right(s: &str, width: usize) -> String {
    let w = display_width(s);
    format!("{s}{}", " ".repeat(width.saturating_sub(w)))
}

/// `s` padded with spaces on the left to `width` display columns.
pub fn pad_left(s: &str, width: usize) -> String {
    let w = display_width(s);
    format!("{}{s}", " ".repeat(width.saturating_sub(w)))
}

/// The widest of `items` in display columns (at least `min`).
pub fn max_width<'a>(items: impl IntoIterator<Item = &'a str>, min: usize) -> usize {
    items
        .into_iter()
        .map(display_width)
        .max()
        .unwrap_or(0)
        .max(min)
}

#[cfg(test)]
mod width_tests {
    use super::*;

    #[test]
    fn cjk_takes_two_columns() {
        assert_eq!(display_width("傻树"), 4);
        assert_eq!(display_width("ab"), 2);
        assert_eq!(pad_right("傻树", 6), "傻树  ");
        assert_eq!(pad_left("7", 3), "  7");
        assert_eq!(max_width(["a", "白色防御者"], 4), 10);
    }
}
