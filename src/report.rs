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
