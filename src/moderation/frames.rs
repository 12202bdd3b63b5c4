//! Frames that make words someone else's, applied to every hit of a post (in the original
//! text's byte offsets): a report (举报14楼…, 5楼提到了场助，这个算违规吧), reported speech
//! (他刚才说：…, 7楼：“…”), a pasted post header (`… 发表于 2026-3-5 21:05` and the line
//! after it). Checked only for posts that have a hit, so they cost the clean posts nothing.

use std::sync::OnceLock;

use regex::Regex;

/// Words that make a post a report to the moderators or a question about the rules: the
/// words it mentions are evidence, not the author's.
const REPORT: &[&str] = &[
    "举报",
    "算违规吧",
    "算违规吗",
    "这个算违规",
    "转述",
    "这话违规",
    "要判吧",
    "要判吗",
    "什么意思",
    "违规吧",
    "违规吗",
    "违规了吧",
    "违规的吧",
    "是违规的",
    "算不算",
    "这种话",
    "会吃牌",
    "会被判",
    "会被罚",
    "管理看",
    "管理来",
    "管理注意",
    "请管理",
    "请导演处理",
    "不能提",
    "不允许",
    "规则写了",
    "规则不允许",
    "不讨论",
    "不能讨论",
    "这个词",
    "这个梗",
    "这个概念",
    "这种东西",
    "不能作为依据",
    "不要用",
    "别这么说",
];

/// Does the post report or discuss someone's words rather than say its own?
pub fn is_report(text: &str) -> bool {
    REPORT.iter().any(|w| text.contains(w))
}

fn speech() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r"(他|她|有人|对方|楼上|\d+\s*楼|[\d一二三四五六七八九十]+号)(刚才|刚刚|之前|昨天|还|也|就)?(说|讲|问|写)(了|过|的是)?\s*[:：“「]|\d+\s*楼\s*[:：]\s*[“「]",
        )
        .expect("speech")
    })
}

/// Byte ranges of `text` that are someone else's words: reported speech to the end of its
/// line, a 发表于 header line and the line after it.
pub fn foreign_ranges(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    if text.contains('说') || text.contains('楼') || text.contains('讲') || text.contains('问')
    {
        for m in speech().find_iter(text) {
            let end = text[m.end()..]
                .find('\n')
                .map_or(text.len(), |i| m.end() + i);
            out.push((m.start(), end));
        }
    }
    if text.contains("发表于") {
        let mut at = 0;
        let lines: Vec<&str> = text.split('\n').collect();
        for (i, l) in lines.iter().enumerate() {
            if l.contains("发表于") {
                let next = lines.get(i + 1).map_or(0, |n| n.len() + 1);
                out.push((at, (at + l.len() + next).min(text.len())));
            }
            at += l.len() + 1;
        }
    }
    out
}

/// Is the span `[s, e)` inside one of `ranges`?
pub fn inside(ranges: &[(usize, usize)], s: usize, e: usize) -> bool {
    ranges.iter().any(|&(a, b)| a <= s && e <= b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_speech_and_pasted_headers_are_foreign() {
        let t = "他刚才说：我发誓我是预言家";
        let r = foreign_ranges(t);
        assert!(inside(&r, t.find("我发誓").unwrap(), t.len()), "{r:?}");
        let t = "引用 七号 发表于 2026-3-5 21:05\n我发誓我是预言家\n我不信他";
        let r = foreign_ranges(t);
        let s = t.find("我发誓").unwrap();
        assert!(inside(&r, s, s + "我发誓".len()));
        assert!(!inside(&r, t.find("我不信").unwrap(), t.len()));
        assert!(foreign_ranges("我说：三号是狼").is_empty());
        assert!(is_report("5楼提到了场助，这个算违规吧") && !is_report("我是预言家"));
    }
}
