//! Records pasted into a post (贴证): chat-log lines, PM headers, key–value layouts,
//! feedback with arrows, links. Line-level shapes on the original text; each has a name
//! the flag gives as its reason. A post is looked at only when it holds what every shape
//! needs (a clock time, an arrow, a link, a header word): see [`worth_a_look`].

use std::sync::OnceLock;

use regex::Regex;

const TIME: &str = r"\d{1,2}\s*[:：]\s*\d{2}(?:\s*[:：]\s*\d{2})?";
const DATE: &str = r"\d{4}\s*[-/年.]\s*\d{1,2}\s*[-/月.]\s*\d{1,2}\s*日?";

struct Shape {
    name: &'static str,
    re: Regex,
}

fn shapes() -> &'static [Shape] {
    static S: OnceLock<Vec<Shape>> = OnceLock::new();
    S.get_or_init(|| {
        let name = r"[^\s:：,，。!！?？]{1,16}";
        let specs: Vec<(&'static str, String)> = vec![
            (
                "聊天记录行（时间在前：时间 名字：内容）",
                format!(
                    r"(?m)^[ \t]*(?:{DATE}[ \t]*)?[\[【(（]?{TIME}[\]】)）]?[ \t]*(?:[<【\[]?{name}[>】\]]?[ \t]*[:：]|[<【\[]{name}[>】\]])"
                ),
            ),
            (
                "聊天记录行（精确到秒的时间）",
                r"\d{1,2}\s*[:：]\s*\d{2}\s*[:：]\s*\d{2}".to_string(),
            ),
            (
                "聊天记录抬头（名字 时间，换行后是内容）",
                format!(r"(?m)^[ \t]*{name}[ \t]*(?:[(（]\d{{5,12}}[)）])?[ \t]+(?:{DATE}[ \t]+)?{TIME}[ \t]*\n"),
            ),
            (
                "聊天记录（括号中的时间）",
                format!(r"[\[【(（]{TIME}[\]】)）]"),
            ),
            (
                "聊天记录（名字(QQ号)）",
                r"[^\s(（]{1,16}[(（]\d{5,12}[)）]".to_string(),
            ),
            (
                "带来源的聊天行（QQ 时间 名字：）",
                format!(r"(?:QQ|qq|微信|树洞)[ \t]*{TIME}[ \t]*{name}[ \t]*[:：]"),
            ),
            (
                "私信抬头（发件人：/来自…的消息）",
                r"(?:发件人|收件人|发送人|发送者|收件时间)\s*[:：]|来自\s*\S{1,16}\s*的(?:短)?消息|(?:QQ|qq|微信)号?\s*[:：]\s*\d{5,}".to_string(),
            ),
            (
                "带来源标记的聊天行（【QQ】名字…）",
                format!(r"[\[【](?:QQ|qq|微信|树洞|私信|站内信|QQ群)[\]】][ \t]*{name}"),
            ),
            (
                "贴出的反馈记录（反馈 → …）",
                r"(?:反馈|查验|结果|技能)[^\n]{0,12}(?:→|->|=>)|(?:→|->)\s*\S{0,6}(?:狼人|好人|金水|查杀|阵营)".to_string(),
            ),
            (
                "贴出的反馈记录（反馈：…阵营）",
                r"反馈\s*[:：]\s*[^\n，,。]{0,10}(?:阵营|身份|是狼|是好人|查杀|金水|好人|狼人)".to_string(),
            ),
            ("网址", r"(?i)https?://\S+|www\.[a-z0-9-]+\.[a-z]{2,}".to_string()),
        ];
        specs
            .into_iter()
            .map(|(name, re)| Shape {
                name,
                re: Regex::new(&re).unwrap_or_else(|e| panic!("{name}: {e}")),
            })
            .collect()
    })
}

/// Does `text` hold anything a record shape needs: a clock time, an arrow, a link, a header
/// word, a bracketed source tag, an id in brackets?
pub fn worth_a_look(text: &str, clock: bool) -> bool {
    clock
        || [
            "→", "->", "=>", "http", "www.", "发件", "收件", "发送", "来自", "反馈", "QQ", "qq",
            "微信", "【",
        ]
        .iter()
        .any(|w| text.contains(w))
        || (text.contains('(') || text.contains('（')) && text.bytes().any(|b| b.is_ascii_digit())
}

/// The first record shape in `text`: its byte span and name.
pub fn find(text: &str) -> Option<(usize, usize, &'static str)> {
    shapes()
        .iter()
        .find_map(|s| s.re.find(text).map(|m| (m.start(), m.end(), s.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_lines_headers_arrows_and_links_are_records() {
        for t in [
            "21:05 小明：我是预言家",
            "[21:05:33] 阿狸：今晚刀三号",
            "阿狸 21:05:12\n我是女巫",
            "发件人：阿狸\n内容：我是预言家",
            "查验反馈 → 七号：好人",
            "【QQ】小红 22:10 我查了七号",
            "截图 http://example.com/a.png",
        ] {
            assert!(find(t).is_some(), "{t}");
        }
        for t in [
            "投票对象：3号\n投票理由：发言前后矛盾",
            "我21:05会上线，晚点发言",
            "票型：\n三号→五号\n四号→五号",
            "21:00 之前我会投票",
        ] {
            assert!(find(t).is_none(), "{t}: {:?}", find(t));
        }
    }
}
