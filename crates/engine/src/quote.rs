//! The one quotation checker of the workspace: a clause cited from a rule post (a rule
//! file's clause, a scenario's `rule`, a step's clause) is a quotation of the post, or a
//! reading labelled as such (starts with 解读 / 按字面 / 采用 / bansha …). bansha re-exports
//! it (`bansha::rules::clauses`); the engine's scenario test and bansha's tests use it.
//!
//! A clause is cut at the marks a quotation may use for omissions and joins (……, …, ——, —,
//! （ ）, ( ), ；, 。, ：); every piece of six or more characters must occur in the post,
//! whitespace, 【】 and quote styles ignored.

/// Marks that make a clause string a reading rather than a quotation.
const READING_MARKS: &[&str] = &[
    "解读",
    "按字面",
    "采用",
    "bansha",
    "本工具",
    "【解读】",
    "[解读]",
];

/// Whether a clause string is labelled as a reading.
pub fn is_reading(s: &str) -> bool {
    let s = s.trim_start();
    READING_MARKS.iter().any(|m| s.starts_with(m))
}

/// Whitespace, 【】 and 「」『』 dropped; curly quotes made straight.
pub fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '【' | '】' | '「' | '」' | '『' | '』'))
        .map(|c| match c {
            '“' | '”' => '"',
            '‘' | '’' => '\'',
            c => c,
        })
        .collect()
}

/// The pieces of a clause that must each occur in the post (` / ` joins two quotations).
pub fn pieces(s: &str) -> Vec<String> {
    let mut cut = s
        .replace(" / ", "\u{1}")
        .replace("……", "\u{1}")
        .replace("——", "\u{1}");
    for m in ['…', '—', '（', '）', '(', ')', '；', '。', '：'] {
        cut = cut.replace(m, "\u{1}");
    }
    cut.split('\u{1}')
        .map(normalize)
        .filter(|p| p.chars().count() >= 6)
        .collect()
}

/// The first piece of `clause` that `post` (already [`normalize`]d) does not contain; none
/// for a reading or a quotation.
pub fn missing_piece(clause: &str, post: &str) -> Option<String> {
    if is_reading(clause) {
        return None;
    }
    pieces(clause).into_iter().find(|p| !post.contains(p))
}

/// Err naming what is wrong when `rule` is empty, or neither a reading nor a quotation of
/// `post` (already [`normalize`]d).
pub fn check_quotation(rule: &str, post: &str) -> Result<(), String> {
    if rule.trim().is_empty() {
        return Err("`rule` must quote the rule sentence checked".into());
    }
    if is_reading(rule) {
        return Ok(());
    }
    let ps = pieces(rule);
    if ps.is_empty() {
        // Too short to cut: a quotation only verbatim (「8、村民：6人」).
        if post.contains(&normalize(rule)) {
            return Ok(());
        }
        return Err(format!(
            "`rule` 「{rule}」 has no piece of six characters to find in the rule post, and is not in it verbatim"
        ));
    }
    match ps.iter().find(|p| !post.contains(p.as_str())) {
        Some(p) => Err(format!(
            "`rule` 「{rule}」 is not a quotation of the rule post (nor a reading starting 解读/采用/按字面/bansha): 「{p}」 is not in it"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_readings_and_quotations() {
        assert!(is_reading("  采用论坛通行格式"));
        assert!(is_reading("bansha: x"));
        assert!(!is_reading("改票需回复原投票楼层"));
        assert_eq!(
            pieces("甲乙丙丁戊己……短句。庚辛壬癸子丑寅"),
            vec!["甲乙丙丁戊己", "庚辛壬癸子丑寅"]
        );
        let post = normalize("【改票格式】改票需回复原投票楼层\n“执行加速”状态");
        assert_eq!(missing_piece("改票需回复原投票楼层", &post), None);
        assert_eq!(missing_piece("解读：不在帖子里的一句话啊", &post), None);
        assert_eq!(
            missing_piece("不在帖子里的一句话啊", &post).as_deref(),
            Some("不在帖子里的一句话啊")
        );
        assert!(check_quotation("改票需回复原投票楼层 / 执行加速\"状态", &post).is_ok());
        assert!(check_quotation("", &post).is_err());
        assert!(check_quotation("短句", &post).is_err());
        assert!(check_quotation("改票格式", &post).is_ok());
        assert!(check_quotation("不在帖子里的一句话啊", &post).is_err());
    }
}
