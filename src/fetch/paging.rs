//! Paging through the mobile API: the page a request asks for when it wants the end of a
//! thread, and the posts per page the forum actually served (sites may cap `ppp`).

use std::sync::LazyLock;

/// A page number past any thread's end: Discuz! serves the last page for it (PC and API,
/// MARKUP §2.1 / §10.2), so one request reads a thread's newest posts without knowing
/// its page count.
pub const LAST_PAGE: u32 = 99_999;

static PPP: LazyLock<regex::Regex> =
    LazyLock::new(|| regex::Regex::new(r#""ppp"\s*:\s*"?(\d+)"#).expect("regex"));

/// The `Variables.ppp` of a `module=viewthread` answer: the posts per page the forum
/// served, which is lower than asked when the site caps it.
pub fn served_ppp(body: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(body).ok()?;
    PPP.captures(text)?[1].parse().ok().filter(|&p| p > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_ppp_reads_the_string_typed_field() {
        let cap = std::fs::read("tests/fixtures/discuz/captured/s1-viewthread-error.json")
            .expect("captured fixture");
        assert_eq!(served_ppp(&cap), Some(30));
        assert_eq!(served_ppp(br#"{"Variables":{"ppp":50}}"#), Some(50));
        assert_eq!(served_ppp(br#"{"Variables":{"tpp":"50"}}"#), None);
        assert_eq!(served_ppp(br#"{"Variables":{"ppp":"0"}}"#), None);
    }
}
