//! The BBCode subset the fixtures use, rendered as Discuz! X3.4/X3.5 `discuzcode()` does
//! for the PC page and for the mobile API (MARKUP 6.1–6.7, 10.5).

use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::spec::Version;

/// What the rendering depends on besides the message.
pub(crate) struct Ctx<'a> {
    /// PC template (true) or mobile API `message` (false).
    pub pc: bool,
    pub version: Version,
    /// `http://127.0.0.1:PORT/`, prefixed to relative links.
    pub base_url: &'a str,
    /// Whether `[hide]` content is shown (logged-in viewers) or withheld (guests).
    pub show_hidden: bool,
    pub fid: u64,
    pub tid: u64,
    /// Seed of the 干扰码 noise; `None` = no jammer (always none in the API).
    pub jammer: Option<u64>,
}

macro_rules! re {
    ($name:ident, $pat:expr) => {
        static $name: LazyLock<Regex> = LazyLock::new(|| Regex::new($pat).unwrap());
    };
}

re!(QUOTE, r"(?s)\[quote\](?:\r\n)*(.+?)(?:\r\n)*\[/quote\]");
re!(HIDE, r"(?s)\[hide\](?:\r\n)*(.+?)(?:\r\n)*\[/hide\]");
re!(URL, r"(?s)\[url=([^\]\s]+)\](.*?)\[/url\]");
re!(COLOR_RGB, r"(?i)\[color=(rgb\([\d\s,]+\))\]");
re!(COLOR, r"(?i)\[color=([#\w]+)\]");
re!(SIZE_NUM, r"(?i)\[size=(\d{1,2})\]");
re!(SIZE_UNIT, r"(?i)\[size=(\d{1,2}(?:\.\d+)?(?:px|pt))\]");
re!(SIZE_BIG, r"(?i)\[size=(\d{3,}(?:\.\d+)?(?:px|pt)?)\]");
re!(
    ANY_TAG,
    r"(?i)\[/?(?:quote|hide|url|color|size|b|i|u|s|i=s)(?:=[^\]]*)?\]"
);

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Render `message` (BBCode as stored) to the HTML Discuz emits.
pub(crate) fn render(message: &str, ctx: &Ctx) -> String {
    let msg = message.replace("\r\n", "\n").replace('\n', "\r\n");
    let mut s = esc(&msg);

    // Quotes: PC `div.quote > blockquote`, API `div.reply_wrap`.
    let (qo, qc) = if ctx.pc {
        ("<div class=\"quote\"><blockquote>", "</blockquote></div>")
    } else {
        ("<div class=\"reply_wrap\">", "</div>")
    };
    // Nested quotes: apply repeatedly from the innermost outward.
    loop {
        let n = QUOTE
            .replace_all(&s, |c: &Captures| format!("{qo}{}{qc}", &c[1]))
            .into_owned();
        if n == s {
            break;
        }
        s = n;
    }
    s = HIDE
        .replace_all(&s, |c: &Captures| {
            if ctx.show_hidden {
                format!(
                    "<div class=\"showhide\"><h4>本帖隐藏的内容</h4>{}</div>",
                    &c[1]
                )
            } else {
                format!(
                    "<div class=\"locked\">游客，如果您要查看本帖隐藏内容请<a href=\"forum.php?mod=post&amp;action=reply&amp;fid={}&amp;tid={}\" onclick=\"showWindow('reply', this.href)\">回复</a></div>",
                    ctx.fid, ctx.tid
                )
            }
        })
        .into_owned();
    s = URL
        .replace_all(&s, |c: &Captures| {
            let href = &c[1];
            let href = if href.starts_with("http://") || href.starts_with("https://") {
                href.to_string()
            } else {
                format!("{}{}", ctx.base_url, href.trim_start_matches('/'))
            };
            if ctx.pc {
                format!("<a href=\"{href}\" target=\"_blank\">{}</a>", &c[2])
            } else {
                format!("<a href=\"{href}\">{}</a>", &c[2])
            }
        })
        .into_owned();
    s = COLOR_RGB
        .replace_all(&s, "<font style=\"color:$1\">")
        .into_owned();
    s = COLOR.replace_all(&s, "<font color=\"$1\">").into_owned();
    s = s.replace("[/color]", "</font>");
    if ctx.pc {
        s = SIZE_NUM.replace_all(&s, "<font size=\"$1\">").into_owned();
        s = SIZE_UNIT
            .replace_all(&s, "<font style=\"font-size:$1\">")
            .into_owned();
        if ctx.version == Version::X35 {
            s = SIZE_BIG.replace_all(&s, "<font>").into_owned();
        }
        s = s.replace("[/size]", "</font>");
        s = s.replace("[i=s]", "<i class=\"pstatus\">");
        for (a, b) in [("i", "i"), ("u", "u"), ("s", "strike")] {
            s = s.replace(&format!("[{a}]"), &format!("<{b}>"));
            s = s.replace(&format!("[/{a}]"), &format!("</{b}>"));
        }
    } else {
        s = SIZE_NUM.replace_all(&s, "").into_owned();
        s = SIZE_UNIT.replace_all(&s, "").into_owned();
        s = SIZE_BIG.replace_all(&s, "").into_owned();
        s = s.replace("[/size]", "");
        s = s.replace("[i=s]", "");
        for t in ["[i]", "[/i]", "[u]", "[/u]"] {
            s = s.replace(t, "");
        }
        s = s.replace("[s]", "<strike>").replace("[/s]", "</strike>");
    }
    s = s.replace("[b]", "<strong>").replace("[/b]", "</strong>");

    if let Some(seed) = ctx.jammer {
        let mut rng = fastrand::Rng::with_seed(seed);
        let mut out = String::with_capacity(s.len() * 2);
        let mut parts = s.split("\r\n").peekable();
        while let Some(p) = parts.next() {
            out.push_str(p);
            if parts.peek().is_some() {
                out.push_str(&jammer(&mut rng));
            }
        }
        s = out;
    }
    s = s
        .replace('\t', "&nbsp; &nbsp; &nbsp; &nbsp; ")
        .replace("   ", "&nbsp; &nbsp;")
        .replace("  ", "&nbsp;&nbsp;");
    s = s.replace("\r\n", "<br />\r\n");
    if !ctx.pc {
        static NBSP: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?:&nbsp;){2,}").unwrap());
        s = NBSP.replace_all(&s, "").into_owned();
    }
    s
}

/// `jammer()` of `source/function/function_discuzcode.php`: noise replacing a line break.
fn jammer(rng: &mut fastrand::Rng) -> String {
    let mut noise = String::new();
    for _ in 0..rng.u32(5..=15) {
        noise.push(rng.u8(32..=59) as char);
        noise.push(' ');
        noise.push(rng.u8(63..=126) as char);
    }
    if rng.bool() {
        format!("<font class=\"jammer\">{noise}</font>\r\n")
    } else {
        format!("\r\n<span style=\"display:none\">{noise}</span>")
    }
}

/// The quoted excerpt Discuz puts into a reply's `[quote]`: BBCode and nested quotes
/// stripped, at most 3 lines and 100 characters (then ` ...`).
pub(crate) fn quote_excerpt(message: &str) -> String {
    let no_quotes = {
        let mut s = message.replace("\r\n", "\n");
        loop {
            let n = QUOTE.replace_all(&s, "").into_owned();
            if n == s {
                break;
            }
            s = n;
        }
        s
    };
    static EDIT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?s)\[i=s\].*?\[/i\]\n*").unwrap());
    let no_edit = EDIT.replace_all(&no_quotes, "");
    let plain = ANY_TAG.replace_all(&no_edit, "");
    let lines: Vec<&str> = plain
        .split('\n')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(3)
        .collect();
    let joined = lines.join("\n");
    if joined.chars().count() > 100 {
        let cut: String = joined.chars().take(100).collect();
        format!("{cut} ...")
    } else {
        joined
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(pc: bool) -> Ctx<'static> {
        Ctx {
            pc,
            version: Version::X34,
            base_url: "http://127.0.0.1:1/",
            show_hidden: true,
            fid: 2,
            tid: 7,
            jammer: None,
        }
    }

    #[test]
    fn pc_and_api_markup() {
        let m = "[quote][size=2][url=forum.php?mod=redirect&goto=findpost&pid=5&ptid=7][color=#999999]甲 发表于 2026-3-4 09:00[/color][/url][/size]\n原文[/quote]\n投票对象：[color=Red][size=5]乙[/size][/color] <x>";
        let pc = render(m, &ctx(true));
        assert_eq!(
            pc,
            "<div class=\"quote\"><blockquote><font size=\"2\"><a href=\"http://127.0.0.1:1/forum.php?mod=redirect&amp;goto=findpost&amp;pid=5&amp;ptid=7\" target=\"_blank\"><font color=\"#999999\">甲 发表于 2026-3-4 09:00</font></a></font><br />\r\n原文</blockquote></div><br />\r\n投票对象：<font color=\"Red\"><font size=\"5\">乙</font></font> &lt;x&gt;"
        );
        let api = render(m, &ctx(false));
        assert_eq!(
            api,
            "<div class=\"reply_wrap\"><a href=\"http://127.0.0.1:1/forum.php?mod=redirect&amp;goto=findpost&amp;pid=5&amp;ptid=7\"><font color=\"#999999\">甲 发表于 2026-3-4 09:00</font></a><br />\r\n原文</div><br />\r\n投票对象：<font color=\"Red\">乙</font> &lt;x&gt;"
        );
    }

    #[test]
    fn jammer_follows_every_line_break_and_keeps_text() {
        let mut c = ctx(true);
        c.jammer = Some(42);
        let h = render("一\n二\n三", &c);
        assert_eq!(h.matches("<br />").count(), 2, "{h}");
        assert!(h.contains("jammer") || h.contains("display:none"), "{h}");
        assert!(h.starts_with('一') && h.ends_with('三'), "{h}");
    }

    #[test]
    fn excerpt_strips_nested_quotes_and_truncates() {
        let long = "字".repeat(120);
        assert_eq!(quote_excerpt("[quote]旧[/quote]\n[b]新[/b]"), "新");
        assert_eq!(quote_excerpt(&long), format!("{} ...", "字".repeat(100)));
        assert_eq!(quote_excerpt("1\n2\n3\n4"), "1\n2\n3");
    }
}
