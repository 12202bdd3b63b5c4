//! Post times as Discuz renders them (MARKUP §5): absolute dates in several orders, with or
//! without seconds, 12 h or 24 h; relative forms (刚刚, N 秒前 … N 天前) against the fetch time.

use chrono::{Datelike, Duration, NaiveDate, NaiveDateTime, NaiveTime};
use chrono_tz::Tz;

use crate::model::Timestamp;
use crate::time::{local_to_ts, to_local};

fn normalize(s: &str) -> String {
    let s = s.replace(['\u{a0}', '\u{3000}'], " ");
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn parse_date(d: &str) -> Option<NaiveDate> {
    let parts: Vec<&str> = d.split(['-', '/', '.']).collect();
    if parts.len() != 3
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let n = |p: &str| p.parse::<u32>().ok();
    let (y, m, dd) = if parts[0].len() == 4 {
        (n(parts[0])?, n(parts[1])?, n(parts[2])?) // Y-n-j, Y-m-d, Y/n/j
    } else if parts[2].len() == 4 {
        (n(parts[2])?, n(parts[1])?, n(parts[0])?) // j-n-Y, j/n/Y
    } else {
        return None;
    };
    NaiveDate::from_ymd_opt(y as i32, m, dd)
}

/// `H:i`, `H:i:s`, `h:i A` / `h:i:s PM`.
fn parse_clock(t: &str, ampm: Option<&str>) -> Option<NaiveTime> {
    let parts: Vec<&str> = t.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let mut h: u32 = parts[0].parse().ok()?;
    let m: u32 = parts[1].parse().ok()?;
    let s: u32 = match parts.get(2) {
        Some(s) => s.parse().ok()?,
        None => 0,
    };
    match ampm.map(|a| a.to_ascii_uppercase()) {
        Some(a) if a == "AM" && h == 12 => h = 0,
        Some(a) if a == "PM" && h < 12 => h += 12,
        Some(_) => return None,
        None => {}
    }
    NaiveTime::from_hms_opt(h, m, s)
}

/// An absolute local time (`2024-5-3 21:15:03`, `2024-05-03 21:15`, `3/5/2024 09:15 PM`…)
/// in `tz`. `None` when `s` is not such a time.
pub fn parse_absolute(s: &str, tz: Tz) -> Option<Timestamp> {
    let s = normalize(s);
    let mut it = s.split(' ');
    let date = parse_date(it.next()?)?;
    let clock = it.next()?;
    let ampm = it.next();
    if it.next().is_some() {
        return None;
    }
    let time = parse_clock(clock, ampm)?;
    Some(local_to_ts(NaiveDateTime::new(date, time), tz))
}

fn leading_number(s: &str) -> Option<(i64, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    Some((s[..end].parse().ok()?, s[end..].trim_start()))
}

/// A relative time (刚刚, N 秒前, N 分钟前, 半小时前, N 小时前, 昨天 HH:MM, 前天 HH:MM,
/// N 天前) resolved against `fetched_at` in `tz`. `N 天前` keeps the fetch time of day
/// (the page does not tell the hour).
pub fn parse_relative(s: &str, fetched_at: Timestamp, tz: Tz) -> Option<Timestamp> {
    let s = normalize(s);
    let s = s.trim();
    if s == "刚刚" {
        return Some(fetched_at);
    }
    if s == "半小时前" {
        return Some(fetched_at - 1800);
    }
    for (prefix, days) in [("昨天", 1i64), ("前天", 2)] {
        if let Some(rest) = s.strip_prefix(prefix) {
            let rest = rest.trim();
            let mut parts = rest.split(' ');
            let clock = parts.next()?;
            let time = parse_clock(clock, parts.next())?;
            let day = to_local(fetched_at, tz).date_naive() - Duration::days(days);
            return Some(local_to_ts(NaiveDateTime::new(day, time), tz));
        }
    }
    let (n, unit) = leading_number(s)?;
    if n > 100_000 {
        return None; // no forum renders such ages; avoids overflow on garbage
    }
    let secs = match unit {
        "秒前" => n,
        "分钟前" => n * 60,
        "小时前" => n * 3600,
        "天前" => {
            let local = to_local(fetched_at, tz);
            let day = local.date_naive() - Duration::days(n);
            let t = NaiveDateTime::new(day, local.time());
            return Some(local_to_ts(t, tz));
        }
        _ => return None,
    };
    Some(fetched_at - secs)
}

/// A label in front of a time: `发表于：`, `时间：`, `发布时间:` (no digits, then a colon).
static RE_LABEL: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"^[^\d:：]{1,8}[：:]\s*").unwrap());

/// A post time: the `span[title]` value when given, else the absolute text, else the
/// relative text against the fetch time (MARKUP §5 parsing rule). A leading `发表于`, or
/// any short label ending in a colon (customised templates: `时间：`, `发表于：`), is
/// ignored.
pub fn parse_post_time(
    title: Option<&str>,
    text: &str,
    fetched_at: Timestamp,
    tz: Tz,
) -> Option<Timestamp> {
    if let Some(t) = title.and_then(|t| parse_absolute(t, tz)) {
        return Some(t);
    }
    let text = normalize(text);
    let text = text.trim_start_matches("发表于").trim();
    let text = match RE_LABEL.find(text) {
        Some(m) => text[m.end()..].trim(),
        None => text.trim_start_matches(['：', ':']).trim(),
    };
    if let Some(t) = parse_absolute(text, tz) {
        return Some(t);
    }
    // Absolute text followed by something (e.g. `| 只看该作者`): take the first two tokens.
    let first_two: Vec<&str> = text.splitn(4, ' ').collect();
    if first_two.len() >= 2 {
        let ampm = first_two
            .get(2)
            .filter(|a| a.eq_ignore_ascii_case("am") || a.eq_ignore_ascii_case("pm"));
        let cand = match ampm {
            Some(a) => format!("{} {} {}", first_two[0], first_two[1], a),
            None => format!("{} {}", first_two[0], first_two[1]),
        };
        if let Some(t) = parse_absolute(&cand, tz) {
            return Some(t);
        }
    }
    parse_relative(text, fetched_at, tz).or_else(|| {
        // `昨天 08:32 来自手机` and the like: retry on the leading tokens.
        let toks: Vec<&str> = text.split(' ').collect();
        (1..toks.len())
            .rev()
            .find_map(|k| parse_relative(&toks[..k].join(" "), fetched_at, tz))
    })
}

/// The local calendar year of a timestamp (for tests and diagnostics).
#[allow(dead_code)]
pub(crate) fn local_year(ts: Timestamp, tz: Tz) -> i32 {
    to_local(ts, tz).year()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::parse_local;

    const SH: Tz = chrono_tz::Asia::Shanghai;

    fn at(s: &str) -> Timestamp {
        parse_local(s, SH).unwrap()
    }

    #[test]
    fn absolute_forms() {
        let want = at("2024-05-03 21:15:03");
        assert_eq!(parse_absolute("2024-5-3 21:15:03", SH), Some(want));
        assert_eq!(parse_absolute("2024-05-03 21:15:03", SH), Some(want));
        assert_eq!(parse_absolute("2024/5/3 21:15:03", SH), Some(want));
        assert_eq!(parse_absolute("3-5-2024 21:15:03", SH), Some(want));
        assert_eq!(parse_absolute("3/5/2024\u{a0}21:15:03", SH), Some(want));
        assert_eq!(
            parse_absolute("2024-5-3 21:15", SH),
            Some(at("2024-05-03 21:15"))
        );
        assert_eq!(
            parse_absolute("2024-5-3 09:15 PM", SH),
            Some(at("2024-05-03 21:15"))
        );
        assert_eq!(
            parse_absolute("2024-5-3 12:05 AM", SH),
            Some(at("2024-05-03 00:05"))
        );
        assert_eq!(parse_absolute("2024-13-3 21:15", SH), None);
        assert_eq!(parse_absolute("昨天 21:15", SH), None);
        assert_eq!(parse_absolute("2024-5-3", SH), None);
    }

    #[test]
    fn relative_forms_against_fetch_time() {
        let now = at("2024-05-03 10:00:00");
        assert_eq!(parse_relative("刚刚", now, SH), Some(now));
        assert_eq!(parse_relative("42\u{a0}秒前", now, SH), Some(now - 42));
        assert_eq!(parse_relative("3 分钟前", now, SH), Some(now - 180));
        assert_eq!(parse_relative("半小时前", now, SH), Some(now - 1800));
        assert_eq!(
            parse_relative("5&nbsp;小时前".replace("&nbsp;", " ").as_str(), now, SH),
            Some(now - 5 * 3600)
        );
        assert_eq!(
            parse_relative("昨天\u{a0}21:15", now, SH),
            Some(at("2024-05-02 21:15"))
        );
        assert_eq!(
            parse_relative("前天 08:01", now, SH),
            Some(at("2024-05-01 08:01"))
        );
        assert_eq!(
            parse_relative("昨天 09:15 PM", now, SH),
            Some(at("2024-05-02 21:15"))
        );
        assert_eq!(
            parse_relative("5 天前", now, SH),
            Some(at("2024-04-28 10:00:00"))
        );
        assert_eq!(parse_relative("很久以前", now, SH), None);
        assert_eq!(parse_relative("5 年前", now, SH), None);
        assert_eq!(parse_relative("99999999999999 天前", now, SH), None);
        assert_eq!(parse_relative("9223372036854775807 小时前", now, SH), None);
    }

    #[test]
    fn post_time_prefers_title_then_absolute_then_relative() {
        let now = at("2024-05-03 10:00:00");
        assert_eq!(
            parse_post_time(Some("2024-5-2 08:32:16"), "发表于 昨天 08:32", now, SH),
            Some(at("2024-05-02 08:32:16"))
        );
        assert_eq!(
            parse_post_time(None, "发表于 2024-4-1 08:00:05", now, SH),
            Some(at("2024-04-01 08:00:05"))
        );
        assert_eq!(
            parse_post_time(Some("garbage"), "发表于 3 分钟前", now, SH),
            Some(now - 180)
        );
        assert_eq!(
            parse_post_time(None, "发表于 2024-4-1 08:00 来自手机", now, SH),
            Some(at("2024-04-01 08:00"))
        );
        assert_eq!(
            parse_post_time(None, "发表于 昨天 08:00 来自手机", now, SH),
            Some(at("2024-05-02 08:00"))
        );
        assert_eq!(parse_post_time(None, "发表于", now, SH), None);
        // Customised templates' labels.
        assert_eq!(
            parse_post_time(None, "时间：2022-2-12 23:58:16", now, SH),
            Some(at("2022-02-12 23:58:16"))
        );
        assert_eq!(
            parse_post_time(None, "发表于：2024-4-1 08:00", now, SH),
            Some(at("2024-04-01 08:00"))
        );
        assert_eq!(
            parse_post_time(None, "发布时间: 昨天 08:00", now, SH),
            Some(at("2024-05-02 08:00"))
        );
        assert_eq!(local_year(now, SH), 2024);
    }
}
