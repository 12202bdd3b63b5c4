//! Integration tests: testforum. The test forum over real HTTP on 127.0.0.1, checked with a
//! plain client (raw `TcpStream`) and by parsing what it serves, never by what it was told.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use bansha_testforum::{
    Fault, FaultScope, FloorMode, ForumSpec, Lock, PostSpec, SiteCharset, TestForum, ThreadSpec,
    UserSpec, Version,
};
use scraper::{Html, Selector};
use serde_json::Value;

const T0: &str = "2026-03-04 09:00";

fn ts(s: &str) -> i64 {
    bansha::time::parse_local(s, chrono_tz::Asia::Shanghai).unwrap()
}

#[derive(Debug)]
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// The Content-Length the server announced.
    announced: Option<usize>,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn set_cookies(&self) -> Vec<(String, String)> {
        self.headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("set-cookie"))
            .filter_map(|(_, v)| {
                let kv = v.split(';').next()?;
                let (k, v) = kv.split_once('=')?;
                Some((k.to_string(), v.to_string()))
            })
            .collect()
    }
    fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("utf-8 body")
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("json body")
    }
}

/// One HTTP/1.1 request over a fresh connection; reads until the server closes.
fn request(
    f: &TestForum,
    method: &str,
    target: &str,
    cookies: &[(String, String)],
    body: &[u8],
    timeout: Duration,
) -> std::io::Result<Resp> {
    let mut s = TcpStream::connect(f.addr())?;
    s.set_read_timeout(Some(timeout))?;
    let mut head = format!(
        "{method} {target} HTTP/1.1\r\nHost: {}\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0\r\nConnection: close\r\n",
        f.addr()
    );
    if !cookies.is_empty() {
        let c: Vec<String> = cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
        head.push_str(&format!("Cookie: {}\r\n", c.join("; ")));
    }
    if method == "POST" {
        head.push_str(&format!(
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes())?;
    s.write_all(body)?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no header end"))?;
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other("bad status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let announced = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse().ok());
    Ok(Resp {
        status,
        headers,
        body: raw[split + 4..].to_vec(),
        announced,
    })
}

fn get(f: &TestForum, target: &str) -> Resp {
    request(f, "GET", target, &[], b"", Duration::from_secs(10)).unwrap()
}

fn get_c(f: &TestForum, target: &str, cookies: &[(String, String)]) -> Resp {
    request(f, "GET", target, cookies, b"", Duration::from_secs(10)).unwrap()
}

/// Post ids of `#postlist > div[id^=post_]` in page order.
fn post_ids(html: &str) -> Vec<u64> {
    let doc = Html::parse_document(html);
    let sel = Selector::parse("#postlist > div").unwrap();
    doc.select(&sel)
        .filter_map(|e| e.value().id())
        .filter_map(|id| id.strip_prefix("post_"))
        .filter_map(|n| n.parse().ok())
        .collect()
}

fn select_texts(html: &str, css: &str) -> Vec<String> {
    let doc = Html::parse_document(html);
    let sel = Selector::parse(css).unwrap();
    doc.select(&sel)
        .map(|e| e.text().collect::<String>().trim().to_string())
        .collect()
}

fn discuz_uid(html: &str) -> String {
    let i = html.find("discuz_uid = '").expect("discuz_uid in page") + 14;
    html[i..].split('\'').next().unwrap().to_string()
}

fn users() -> Vec<UserSpec> {
    vec![
        UserSpec {
            uid: 1,
            name: "导演A".into(),
            password: Some("pw1".into()),
        },
        UserSpec {
            uid: 101,
            name: "傻树".into(),
            password: None,
        },
        UserSpec {
            uid: 102,
            name: "小红".into(),
            password: None,
        },
    ]
}

/// A thread of `n` posts (first by 导演A, then alternating 傻树/小红), one minute apart.
fn thread(tid: u64, n: usize) -> ThreadSpec {
    let base = ts(T0);
    let posts = (0..n)
        .map(|i| {
            let author = match i {
                0 => "导演A",
                i if i % 2 == 1 => "傻树",
                _ => "小红",
            };
            let t = bansha::time::format_local(base + 60 * i as i64, chrono_tz::Asia::Shanghai);
            PostSpec::new(author, &t, &format!("第{}楼\n投票对象：小红", i + 1))
        })
        .collect();
    ThreadSpec {
        tid,
        fid: 2,
        subject: "第二天投票帖 & 讨论".into(),
        posts,
    }
}

fn spec(threads: Vec<ThreadSpec>) -> ForumSpec {
    let mut s = ForumSpec {
        users: users(),
        threads,
        ..Default::default()
    };
    s.site.now = Some("2026-03-20 12:00".into());
    s
}

#[test]
fn dynamic_and_rewritten_urls_serve_the_same_pages_with_pagination() {
    let mut s = spec(vec![thread(7, 25)]);
    s.site.rewrite = true;
    let f = TestForum::start(s).unwrap();
    assert!(f.base_url().starts_with("http://127.0.0.1:"));
    let pids = f.pids(7);

    let dynamic = get(
        &f,
        "/forum.php?mod=viewthread&amp;tid=7&extra=page%3D1&page=2&mobile=no&ordertype=2",
    );
    assert_eq!(dynamic.status, 200);
    assert_eq!(
        dynamic.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let dyn_html = dynamic.text();
    assert_eq!(post_ids(&dyn_html), pids[10..20].to_vec());
    assert!(
        dynamic
            .set_cookies()
            .contains(&("B7Y9_2132_mobile".into(), "no".into()))
    );
    // Parameter order does not matter.
    let reordered = get(&f, "/forum.php?page=2&tid=7&mod=viewthread").text();
    assert_eq!(post_ids(&reordered), pids[10..20].to_vec());

    let rewritten = get(&f, "/thread-7-2-1.html").text();
    assert_eq!(post_ids(&rewritten), pids[10..20].to_vec());
    assert_eq!(select_texts(&rewritten, "#pgt div.pg > strong"), ["2"]);
    assert_eq!(
        select_texts(&rewritten, "#pgt div.pg a.nxt"),
        ["下一页"],
        "page 2 of 3 has a next link"
    );
    // Rewriting is on: pager links use the rewritten form.
    assert!(rewritten.contains("href=\"thread-7-3-1.html\" class=\"nxt\""));
    let doc = Html::parse_document(&rewritten);
    let total = Selector::parse("#pgt div.pg label span").unwrap();
    assert_eq!(
        doc.select(&total).next().unwrap().value().attr("title"),
        Some("共 3 页")
    );
    // Floors 11..20 on page 2.
    let floors = select_texts(&rewritten, "#postlist a[id^=postnum] em");
    assert_eq!(floors.first().map(String::as_str), Some("11"));
    assert_eq!(floors.last().map(String::as_str), Some("20"));
    assert_eq!(
        select_texts(&rewritten, "#thread_subject"),
        ["第二天投票帖 & 讨论"]
    );

    // Past the end: the last page, same URL, no next link.
    let past = get(&f, "/forum.php?mod=viewthread&tid=7&page=9").text();
    assert_eq!(post_ids(&past), pids[20..25].to_vec());
    assert_eq!(select_texts(&past, "#pgt div.pg > strong"), ["3"]);
    assert!(select_texts(&past, "div.pg a.nxt").is_empty());

    // A one-page thread has no pager.
    let f1 = TestForum::start(spec(vec![thread(8, 3)])).unwrap();
    let one = get(&f1, "/forum.php?mod=viewthread&tid=8").text();
    assert!(select_texts(&one, "div.pg").is_empty());
    assert_eq!(post_ids(&one).len(), 3);
    assert_eq!(discuz_uid(&one), "0");
}

#[test]
fn post_markup_has_author_uid_time_and_rendered_bbcode() {
    let mut t = thread(7, 3);
    t.posts[1].message =
        "投票对象：[color=Red]小红[/color]\n[size=5]大字[/size] [b]粗[/b] <x>".into();
    t.posts[2].reply_to = Some(2);
    t.posts[2].message = "回复正文".into();
    let f = TestForum::start(spec(vec![t])).unwrap();
    let pids = f.pids(7);
    let html = get(&f, "/forum.php?mod=viewthread&tid=7").text();
    let doc = Html::parse_document(&html);
    let one = |css: &str| {
        let sel = Selector::parse(css).unwrap();
        doc.select(&sel)
            .next()
            .unwrap_or_else(|| panic!("{css} missing"))
    };
    let p1 = pids[1];
    let author = one(&format!("#post_{p1} td.pls div.pi div.authi a.xw1"));
    assert_eq!(author.text().collect::<String>(), "傻树");
    assert_eq!(
        author.value().attr("href"),
        Some("home.php?mod=space&uid=101")
    );
    let card = one(&format!("#userinfo{p1} strong a.xi2"));
    assert_eq!(card.text().collect::<String>(), "傻树");
    // Older than a week: the absolute time with seconds, no span.
    let t = one(&format!("em#authorposton{p1}"));
    assert_eq!(t.inner_html(), "发表于 2026-3-4 09:01:00");
    let body = one(&format!("td#postmessage_{p1}")).inner_html();
    assert!(body.contains("<font color=\"Red\">小红</font>"), "{body}");
    assert!(body.contains("<font size=\"5\">大字</font>"), "{body}");
    assert!(body.contains("<strong>粗</strong>") && body.contains("&lt;x&gt;"));
    assert!(body.contains("<br>") || body.contains("<br/>") || body.contains("<br />"));
    // Floor link with raw & and the first post's link to the thread.
    assert!(html.contains(&format!(
        "href=\"forum.php?mod=redirect&goto=findpost&ptid=7&pid={p1}\"  id=\"postnum{p1}\""
    )));
    assert!(html.contains(&format!(
        "href=\"forum.php?mod=viewthread&tid=7\"  id=\"postnum{}\"",
        pids[0]
    )));
    // The quote: header, findpost link to the quoted pid, excerpt, then the reply.
    let q = one(&format!("td#postmessage_{} div.quote blockquote", pids[2]));
    let link = q
        .select(&Selector::parse("a").unwrap())
        .next()
        .unwrap()
        .value()
        .attr("href")
        .unwrap()
        .to_string();
    assert_eq!(
        link,
        format!(
            "{}forum.php?mod=redirect&goto=findpost&pid={p1}&ptid=7",
            f.base_url()
        )
    );
    let qt = q.text().collect::<String>();
    assert!(qt.starts_with("傻树 发表于 2026-3-4 09:01"), "{qt}");
    assert!(qt.contains("投票对象：小红"), "{qt}");
    let whole = one(&format!("td#postmessage_{}", pids[2]))
        .text()
        .collect::<String>();
    assert!(whole.trim_end().ends_with("回复正文"), "{whole}");
}

#[test]
fn findpost_redirects_to_the_page_holding_the_post() {
    let f = TestForum::start(spec(vec![thread(7, 25)])).unwrap();
    let pids = f.pids(7);
    let r = get(
        &f,
        &format!(
            "/forum.php?mod=redirect&pid={}&goto=findpost&ptid=7",
            pids[14]
        ),
    );
    assert_eq!(r.status, 301);
    let loc = r.header("location").unwrap().to_string();
    assert_eq!(
        loc,
        format!("forum.php?mod=viewthread&tid=7&page=2#pid{}", pids[14])
    );
    let page = get(&f, &format!("/{}", loc.split('#').next().unwrap())).text();
    assert!(post_ids(&page).contains(&pids[14]));
    // A missing pid goes to the first page.
    let r = get(&f, "/forum.php?mod=redirect&goto=findpost&ptid=7&pid=1");
    assert_eq!(r.header("location"), Some("forum.php?mod=viewthread&tid=7"));
}

#[test]
fn api_viewthread_is_string_typed_like_the_captured_files() {
    let mut s = spec(vec![thread(7, 12)]);
    s.site.floor_names = vec!["楼主".into(), "沙发".into()];
    let f = TestForum::start(s).unwrap();
    let pids = f.pids(7);
    let r = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7&page=2&ppp=5",
    );
    assert_eq!(r.status, 200);
    assert!(
        r.header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    assert!(r.body.is_ascii(), "non-ASCII must be \\u-escaped");
    assert!(r.text().contains("\\/"), "slashes are escaped");
    let j = r.json();
    assert_eq!(j["Version"], "4");
    assert_eq!(j["Charset"], "UTF-8");
    let v = &j["Variables"];
    assert_eq!(v["member_uid"], "0");
    assert_eq!(v["cookiepre"], "B7Y9_2132_");
    assert!(v["auth"].is_null());
    assert_eq!(v["ppp"], "5");
    assert_eq!(v["thread"]["tid"], "7");
    assert_eq!(v["thread"]["subject"], "第二天投票帖 &amp; 讨论");
    assert_eq!(v["thread"]["replies"], "11");
    assert_eq!(
        v["cache_custominfo_postno"],
        serde_json::json!(["<sup>#</sup>", "楼主", "沙发"])
    );
    let list = v["postlist"].as_array().unwrap();
    let got: Vec<u64> = list
        .iter()
        .map(|p| p["pid"].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(got, pids[5..10].to_vec());
    let p = &list[0];
    assert_eq!(p["position"], "6");
    assert_eq!(p["number"], "6");
    assert_eq!(p["first"], "0");
    assert_eq!(p["author"], "傻树");
    assert_eq!(p["authorid"], "101");
    assert_eq!(p["dbdateline"], (ts(T0) + 300).to_string());
    assert_eq!(p["dateline"], "2026-3-4 09:05");
    assert_eq!(p["message"], "第6楼<br />\r\n投票对象：小红");
    // Every scalar in a post item is a string.
    for item in list {
        for (k, val) in item.as_object().unwrap() {
            assert!(val.is_string(), "{k} is {val}");
        }
    }
    // Default ppp of X3.4's API is 5.
    let d = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7",
    )
    .json();
    assert_eq!(d["Variables"]["postlist"].as_array().unwrap().len(), 5);
    assert_eq!(d["Variables"]["postlist"][0]["first"], "1");
}

#[test]
fn missing_thread_is_a_message_page_and_an_api_message() {
    let f = TestForum::start(spec(vec![thread(7, 2)])).unwrap();
    let r = get(&f, "/forum.php?mod=viewthread&tid=999");
    assert_eq!(r.status, 200, "X3.4 answers 200");
    let html = r.text();
    assert_eq!(
        select_texts(&html, "#messagetext p"),
        ["抱歉，指定的主题不存在或已被删除或正在被审核"]
    );
    assert!(select_texts(&html, "#postlist").is_empty());
    let j = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=999",
    )
    .json();
    assert_eq!(j["Message"]["messageval"], "thread_nonexistence");
    assert_eq!(j["Variables"]["postlist"], serde_json::json!([]));
    assert_eq!(j["Variables"]["thread"]["lastpost"], "1970-1-1 08:00");
    let check = get(&f, "/api/mobile/index.php?check").json();
    assert_eq!(check["discuzversion"], "X3.4");
    assert_eq!(check["charset"], "utf-8");
    let bad = get(&f, "/api/mobile/index.php?version=4&module=nope").json();
    assert_eq!(bad["error"], "module_not_exists");

    let mut s = spec(vec![thread(7, 2)]);
    s.site.version = Version::X35;
    let f35 = TestForum::start(s).unwrap();
    assert_eq!(get(&f35, "/forum.php?mod=viewthread&tid=999").status, 404);
    assert!(
        get(&f35, "/forum.php?mod=viewthread&tid=7")
            .text()
            .contains("<meta charset=\"utf-8\" />")
    );
}

#[test]
fn gbk_site_serves_gbk_bytes_and_utf8_json() {
    let mut s = spec(vec![thread(7, 3)]);
    s.site.charset = SiteCharset::Gbk;
    s.threads[0].posts[1].message = "投票对象：小红 ❤".into();
    let f = TestForum::start(s).unwrap();
    let r = get(&f, "/forum.php?mod=viewthread&tid=7");
    assert_eq!(r.header("content-type"), Some("text/html; charset=gbk"));
    assert!(String::from_utf8(r.body.clone()).is_err(), "not UTF-8");
    let (text, _, had_errors) = encoding_rs::GBK.decode(&r.body);
    assert!(!had_errors);
    assert!(text.contains("charset = 'gbk'"));
    assert!(text.contains("content=\"text/html; charset=gbk\""));
    assert!(text.contains("<span id=\"thread_subject\">第二天投票帖 &amp; 讨论</span>"));
    // The subject's bytes really are GBK.
    let (gbk_subject, _, _) = encoding_rs::GBK.encode("第二天投票帖");
    assert!(
        r.body
            .windows(gbk_subject.len())
            .any(|w| w == &gbk_subject[..])
    );
    // A character outside GBK arrives as a numeric reference.
    assert!(text.contains("小红 &#10084;"), "{}", &text[..200]);

    let j = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7&ppp=10",
    );
    assert!(j.body.is_ascii());
    let j = j.json();
    assert_eq!(j["Charset"], "GBK");
    assert_eq!(j["Variables"]["postlist"][1]["message"], "投票对象：小红 ❤");
    // subjectenc is URL-encoded in the site charset.
    assert!(
        j["Variables"]["thread"]["subjectenc"]
            .as_str()
            .unwrap()
            .starts_with("%B5%DA"),
        "{}",
        j["Variables"]["thread"]["subjectenc"]
    );
}

#[test]
fn custom_floor_names_sticky_and_recommended_replies() {
    let mut s = spec(vec![thread(7, 15)]);
    s.site.floor_names = vec!["楼主".into(), "沙发".into(), "板凳".into(), "地板".into()];
    s.threads[0].posts[12].sticky = true; // floor 13, on page 2
    s.threads[0].posts[3].recommend = true; // floor 4, on page 1
    let f = TestForum::start(s).unwrap();
    let pids = f.pids(7);
    let html = get(&f, "/forum.php?mod=viewthread&tid=7").text();
    let labels = select_texts(&html, "#postlist a[id^=postnum]");
    assert_eq!(labels[0], "楼主");
    // Sequential mode (default): a pinned reply from another page has no number.
    assert_eq!(
        labels[1], "来自 #",
        "pinned reply right after the first post"
    );
    assert_eq!(labels[2], "推荐");
    assert_eq!(labels[3], "沙发");
    assert_eq!(labels[4], "板凳");
    assert_eq!(labels[5], "5#", "floor 4 shown only in its 推荐 slot");
    let ids = post_ids(&html);
    assert_eq!(ids[1], pids[12]);
    assert_eq!(ids[2], pids[3]);
    assert_eq!(ids.iter().filter(|p| **p == pids[3]).count(), 1);
    // The pinned reply appears again on its own page.
    let p2 = get(&f, "/forum.php?mod=viewthread&tid=7&page=2").text();
    assert!(post_ids(&p2).contains(&pids[12]));
    // Position mode: the pinned label carries the real floor.
    f.set_floor_mode(FloorMode::Position);
    let html = get(&f, "/forum.php?mod=viewthread&tid=7").text();
    assert_eq!(
        select_texts(&html, "#postlist a[id^=postnum]")[1],
        "来自 13#"
    );
}

#[test]
fn author_filtered_pages_renumber_and_ordertype_reverses() {
    let f = TestForum::start(spec(vec![thread(7, 9)])).unwrap();
    let pids = f.pids(7);
    let html = get(&f, "/forum.php?mod=viewthread&tid=7&authorid=101").text();
    assert_eq!(
        post_ids(&html),
        vec![pids[1], pids[3], pids[5], pids[7]],
        "only 傻树's posts"
    );
    assert_eq!(
        select_texts(&html, "#postlist a[id^=postnum] em"),
        ["1", "2", "3", "4"]
    );
    assert!(html.contains("显示全部楼层"));
    let desc = get(&f, "/forum.php?mod=viewthread&tid=7&ordertype=1").text();
    assert_eq!(post_ids(&desc)[..3], [pids[0], pids[8], pids[7]]);
    assert_eq!(
        select_texts(
            &get(&f, "/forum.php?mod=viewthread&tid=7&authorid=555").text(),
            "#messagetext p"
        ),
        ["未定义操作"]
    );
}

#[test]
fn control_api_add_edit_delete_and_relative_times() {
    let mut s = spec(vec![thread(7, 12)]);
    s.site.now = Some("2026-03-04 09:40".into());
    let f = TestForum::start(s).unwrap();
    let pids = f.pids(7);

    // Relative times against the forum's clock, with the absolute time in the title.
    let html = get(&f, "/forum.php?mod=viewthread&tid=7").text();
    let doc = Html::parse_document(&html);
    let sel = Selector::parse(&format!("em#authorposton{} span", pids[0])).unwrap();
    let span = doc.select(&sel).next().unwrap();
    assert_eq!(span.value().attr("title"), Some("2026-3-4 09:00:00"));
    assert_eq!(span.text().collect::<String>(), "半小时前");
    f.set_now(ts("2026-03-05 10:00"));
    let html = get(&f, "/forum.php?mod=viewthread&tid=7").text();
    assert!(html.contains("<span title=\"2026-3-4 09:00:00\">昨天&nbsp;09:00</span>"));

    // add_post: a new pid, appended on the last page.
    let new = f.add_post(7, "小红", "投票对象：傻树", ts("2026-03-05 09:58"));
    assert!(new > *pids.last().unwrap());
    let p2 = get(&f, "/forum.php?mod=viewthread&tid=7&page=2").text();
    assert_eq!(post_ids(&p2).last(), Some(&new));
    assert!(p2.contains("<span title=\"2026-3-5 09:58:00\">2&nbsp;分钟前</span>"));

    // edit_post: the notice appears only for edits more than 60 s after posting.
    f.edit_post(new, "投票对象：导演A", ts("2026-03-05 09:58") + 60);
    let p2 = get(&f, "/forum.php?mod=viewthread&tid=7&page=2").text();
    let body = select_texts(&p2, &format!("td#postmessage_{new}"));
    assert_eq!(body, ["投票对象：导演A"]);
    f.edit_post(new, "投票对象：阿蓝", ts("2026-03-05 10:05"));
    let p2 = get(&f, "/forum.php?mod=viewthread&tid=7&page=2").text();
    let doc = Html::parse_document(&p2);
    let sel = Selector::parse(&format!("td#postmessage_{new} i.pstatus")).unwrap();
    assert_eq!(
        doc.select(&sel).next().unwrap().text().collect::<String>(),
        " 本帖最后由 小红 于 2026-3-5 10:05 编辑 "
    );
    let j = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7&ppp=100",
    )
    .json();
    let last = j["Variables"]["postlist"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last["message"],
        " 本帖最后由 小红 于 2026-3-5 10:05 编辑 <br />\r\n<br />\r\n投票对象：阿蓝"
    );

    // delete_post in sequential mode: later floors shift down, posts move across pages.
    assert!(f.delete_post(pids[3]));
    let p1 = get(&f, "/forum.php?mod=viewthread&tid=7").text();
    assert!(!post_ids(&p1).contains(&pids[3]));
    assert_eq!(
        post_ids(&p1).last(),
        Some(&pids[10]),
        "floor 11 moved to page 1"
    );
    let floors = select_texts(&p1, "#postlist a[id^=postnum] em");
    assert_eq!(floors[3], "4");
    let j = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7&ppp=100",
    )
    .json();
    let p = &j["Variables"]["postlist"][3];
    assert_eq!(p["pid"], pids[4].to_string());
    assert_eq!(p["number"], "4");
    assert_eq!(p["position"], "5", "the stored position does not move");

    // Position mode: a placeholder keeps the floor, numbers stay.
    f.set_floor_mode(FloorMode::Position);
    let p1 = get(&f, "/forum.php?mod=viewthread&tid=7").text();
    let doc = Html::parse_document(&p1);
    let tables = Selector::parse("#postlist > div > table").unwrap();
    let placeholders: Vec<_> = doc
        .select(&tables)
        .filter(|t| !t.value().classes().any(|c| c == "plhin"))
        .collect();
    assert_eq!(placeholders.len(), 1);
    let ph = placeholders[0].text().collect::<String>();
    assert!(
        ph.contains("无效楼层，该帖已经被删除") && ph.contains('4'),
        "{ph}"
    );
    assert_eq!(select_texts(&p1, "#postlist a[id^=postnum] em")[3], "5");
    assert!(
        !f.delete_post(pids[0]),
        "the first post cannot be deleted alone"
    );
}

#[test]
fn locked_bodies_jammer_and_hidden_content() {
    let mut s = spec(vec![thread(7, 5)]);
    s.threads[0].posts[1].locked = Some(Lock::Banned);
    s.threads[0].posts[2].locked = Some(Lock::Blocked);
    s.threads[0].posts[3].jammer = true;
    s.threads[0].posts[3].message = "一\n二\n三".into();
    s.threads[0].posts[4].message = "公开[hide]隐藏的[/hide]".into();
    let f = TestForum::start(s).unwrap();
    let pids = f.pids(7);
    let html = get(&f, "/forum.php?mod=viewthread&tid=7").text();
    let locked = select_texts(&html, "div.pcb > div.locked");
    assert_eq!(
        locked[..2],
        [
            "提示: 作者被禁止或删除 内容自动屏蔽",
            "提示: 该帖被管理员或版主屏蔽"
        ]
    );
    assert!(!html.contains(&format!("postmessage_{}", pids[1])));
    let doc = Html::parse_document(&html);
    let jam = Selector::parse(&format!(
        "td#postmessage_{} font.jammer, td#postmessage_{} span[style]",
        pids[3], pids[3]
    ))
    .unwrap();
    assert_eq!(
        doc.select(&jam).count(),
        2,
        "noise at each of the two line breaks"
    );
    // Guests see the hide notice, not the content.
    let guest = select_texts(&html, &format!("td#postmessage_{} div.locked", pids[4]));
    assert!(
        guest[0].starts_with("游客，如果您要查看本帖隐藏内容请"),
        "{guest:?}"
    );
    let (salt, auth) = f.login_session(1);
    let pre = f.cookie_prefix();
    let cookies = [
        (format!("{pre}saltkey"), salt),
        (format!("{pre}auth"), auth),
    ];
    let logged = get_c(&f, "/forum.php?mod=viewthread&tid=7", &cookies).text();
    assert_eq!(
        select_texts(&logged, &format!("td#postmessage_{} div.showhide", pids[4])),
        ["本帖隐藏的内容隐藏的"]
    );
    let j = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7&ppp=10",
    )
    .json();
    assert_eq!(
        j["Variables"]["postlist"][1]["message"],
        "提示: <em>作者被禁止或删除 内容自动屏蔽</em>"
    );
    assert_eq!(
        j["Variables"]["postlist"][3]["message"],
        "一<br />\r\n二<br />\r\n三"
    );
    assert_eq!(
        j["Variables"]["postlist"][3]["status"], "1024",
        "short post flag"
    );
}

#[test]
fn water_posts_are_hidden_by_style_but_complete() {
    let mut s = spec(vec![thread(7, 3)]);
    s.site.hide_water = true;
    s.threads[0].posts[1].message = "投5".into();
    let f = TestForum::start(s).unwrap();
    let pids = f.pids(7);
    let html = get(&f, "/forum.php?mod=viewthread&tid=7").text();
    assert!(html.contains(&format!(
        "<div id=\"post_{}\" style=\"display:none;\">",
        pids[1]
    )));
    assert!(html.contains(&format!("<div id=\"post_{}\" >", pids[2])));
    assert_eq!(post_ids(&html), pids, "hidden posts are still on the page");
    assert_eq!(
        select_texts(&html, &format!("td#postmessage_{}", pids[1])),
        ["投5"]
    );
    assert!(html.contains("还有一些帖子被系统自动隐藏，点此展开"));
}

#[test]
fn faults_are_served_to_the_next_matching_requests() {
    let f = TestForum::start(spec(vec![thread(7, 3), thread(8, 3)])).unwrap();
    let page = "/forum.php?mod=viewthread&tid=7";

    f.inject(Fault::Http500, 1);
    assert_eq!(get(&f, page).status, 500);
    assert_eq!(get(&f, page).status, 200, "only the next request");

    f.inject(Fault::Http503, 2);
    assert_eq!(get(&f, page).status, 503);
    assert_eq!(get(&f, page).status, 503);
    assert_eq!(get(&f, page).status, 200);

    // Scoped to a tid: other threads are unaffected.
    f.inject_scoped(
        Fault::CcPage,
        1,
        FaultScope {
            tid: Some(8),
            path_contains: None,
        },
    );
    assert_eq!(post_ids(&get(&f, page).text()).len(), 3);
    let cc = get(&f, "/thread-8-1-1.html").text();
    assert_eq!(select_texts(&cc, "b"), ["频繁刷新限制"]);
    assert!(!cc.contains("postlist"));

    f.inject(Fault::AntiScrape, 1);
    let js = get(&f, page).text();
    assert!(js.starts_with("<script") && js.contains("location") && !js.contains("<html"));

    f.inject(Fault::LoginRequired, 2);
    let lr = get(&f, page).text();
    assert_eq!(
        select_texts(&lr, "#messagetext p"),
        ["抱歉，您尚未登录，没有权限访问该版块"]
    );
    assert!(lr.contains("id=\"messagelogin\""));
    let j = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7",
    )
    .json();
    assert_eq!(j["Message"]["messageval"], "viewperm_login_nopermission//1");

    // Truncated: the full Content-Length is announced, less is sent.
    f.inject_scoped(
        Fault::Truncated,
        1,
        FaultScope {
            tid: None,
            path_contains: Some("api/mobile".into()),
        },
    );
    assert_eq!(get(&f, page).status, 200, "path scope: PC page unaffected");
    let tr = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7",
    );
    assert!(tr.body.len() < tr.announced.unwrap());
    assert!(serde_json::from_slice::<Value>(&tr.body).is_err());

    // Stall past the client's timeout; the next request is normal.
    f.inject(Fault::Stall(Duration::from_secs(30)), 1);
    let err = request(&f, "GET", page, &[], b"", Duration::from_millis(300)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
        "{err:?}"
    );
    assert_eq!(get(&f, page).status, 200);

    let log = f.requests();
    assert_eq!(log.len(), f.request_count());
    let faults: Vec<_> = log.iter().filter_map(|r| r.fault.clone()).collect();
    assert_eq!(faults.len(), 9);
    let stalled = log
        .iter()
        .find(|r| r.fault == Some(Fault::Stall(Duration::from_secs(30))));
    assert_eq!(stalled.unwrap().status, 0);
}

#[test]
fn stall_is_released_when_the_forum_stops() {
    let mut f = TestForum::start(spec(vec![thread(7, 1)])).unwrap();
    let addr = f.addr();
    f.inject(Fault::Stall(Duration::from_secs(600)), 1);
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(b"GET /forum.php?mod=viewthread&tid=7 HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    // Wait (with a deadline) until the server has logged the stalled request.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while f.request_count() == 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "request never arrived"
        );
        std::thread::yield_now();
    }
    f.stop();
    let mut buf = Vec::new();
    let n = s.read_to_end(&mut buf).expect("closed, not timed out");
    assert_eq!(n, 0, "nothing was sent");
    assert!(TcpStream::connect(addr).is_err(), "port closed after stop");
}

fn form_login(f: &TestForum, user: &[u8], pw: &str, target: &str) -> Resp {
    let mut body = b"username=".to_vec();
    for b in user {
        body.extend(format!("%{b:02X}").bytes());
    }
    body.extend(format!("&password={pw}").bytes());
    request(f, "POST", target, &[], &body, Duration::from_secs(10)).unwrap()
}

#[test]
fn login_cookies_and_expiry() {
    let f = TestForum::start(spec(vec![thread(7, 2)])).unwrap();
    let pre = f.cookie_prefix();
    assert_eq!(pre, "B7Y9_2132_");
    let page = "/forum.php?mod=viewthread&tid=7";

    // A guest gets a saltkey and discuz_uid 0.
    let g = get(&f, page);
    assert!(
        g.set_cookies()
            .iter()
            .any(|(k, v)| *k == format!("{pre}saltkey") && v.len() == 8)
    );
    assert_eq!(discuz_uid(&g.text()), "0");

    // Wrong password.
    let bad = form_login(
        &f,
        "导演A".as_bytes(),
        "nope",
        "/api/mobile/index.php?version=4&module=login&loginsubmit=yes&loginfield=auto",
    );
    assert_eq!(bad.json()["Message"]["messageval"], "login_invalid");
    assert!(!bad.set_cookies().iter().any(|(k, _)| k.ends_with("auth")));

    // API login sets saltkey + auth; pages then show the uid.
    let ok = form_login(
        &f,
        "导演A".as_bytes(),
        "pw1",
        "/api/mobile/index.php?version=4&module=login&loginsubmit=yes&loginfield=auto",
    );
    let j = ok.json();
    assert_eq!(j["Message"]["messageval"], "login_succeed");
    assert_eq!(j["Variables"]["member_uid"], "1");
    let cookies = ok.set_cookies();
    assert!(cookies.iter().any(|(k, _)| *k == format!("{pre}auth")));
    assert!(cookies.iter().any(|(k, _)| *k == format!("{pre}saltkey")));
    let html = get_c(&f, page, &cookies).text();
    assert_eq!(discuz_uid(&html), "1");
    assert_eq!(select_texts(&html, "strong.vwmy a"), ["导演A"]);
    let api = get_c(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7",
        &cookies,
    )
    .json();
    assert_eq!(api["Variables"]["member_uid"], "1");
    assert!(api["Variables"]["auth"].is_string());

    // auth is only valid with the saltkey it was issued with.
    let mut wrong_salt = cookies.clone();
    for c in wrong_salt.iter_mut() {
        if c.0.ends_with("saltkey") {
            c.1 = "XXXXXXXX".into();
        }
    }
    assert_eq!(discuz_uid(&get_c(&f, page, &wrong_salt).text()), "0");

    // Expiry: guest again, the dead auth is cleared; logging in again works.
    f.expire_login();
    let exp = get_c(&f, page, &cookies);
    assert_eq!(discuz_uid(&exp.text()), "0");
    assert!(
        exp.set_cookies()
            .iter()
            .any(|(k, v)| *k == format!("{pre}auth") && v.is_empty())
    );
    let api = get_c(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7",
        &cookies,
    )
    .json();
    assert_eq!(api["Variables"]["member_uid"], "0");
    assert!(api["Variables"]["auth"].is_null());
    let again = form_login(
        &f,
        "导演A".as_bytes(),
        "pw1",
        "/member.php?mod=logging&action=login&loginsubmit=yes&infloat=yes&lssubmit=yes&inajax=1",
    );
    let c2 = again.set_cookies();
    assert_eq!(discuz_uid(&get_c(&f, page, &c2).text()), "1");

    // The log records the cookies each request carried.
    let log = f.requests();
    let last = log.last().unwrap();
    assert_eq!(last.method, "GET");
    assert_eq!(last.target, page);
    assert!(last.cookies.contains(&format!("{pre}auth")));
    assert_eq!(last.uid, 1);
    assert_eq!(log[0].cookies, Vec::<String>::new());
    assert!(log.windows(2).all(|w| w[0].since_start <= w[1].since_start));
    assert!(
        log.iter().all(|r| r.time == ts("2026-03-20 12:00")),
        "the forum's clock"
    );
}

#[test]
fn gbk_site_login_needs_gbk_or_charset_param() {
    let mut s = spec(vec![thread(7, 2)]);
    s.site.charset = SiteCharset::Gbk;
    let f = TestForum::start(s).unwrap();
    let (gbk_name, _, _) = encoding_rs::GBK.encode("导演A");
    let api = "/api/mobile/index.php?version=4&module=login&loginsubmit=yes&loginfield=auto";
    let ok = form_login(&f, &gbk_name, "pw1", api).json();
    assert_eq!(ok["Variables"]["member_uid"], "1");
    // UTF-8 bytes on a GBK site fail unless charset=utf-8 is sent (X3.4).
    let utf8 = form_login(&f, "导演A".as_bytes(), "pw1", api).json();
    assert_eq!(utf8["Message"]["messageval"], "login_invalid");
    let with_cs = form_login(
        &f,
        "导演A".as_bytes(),
        "pw1",
        &format!("{api}&charset=utf-8"),
    )
    .json();
    assert_eq!(with_cs["Variables"]["member_uid"], "1");
}

#[test]
fn cookies_txt_logs_the_reader_in() {
    let f = TestForum::start(spec(vec![thread(7, 2)])).unwrap();
    let dir = crate::common::scratch_dir("tf-cookies");
    let path = dir.join("cookies.txt");
    f.write_cookies_txt(&path, 1).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# Netscape HTTP Cookie File"));
    // Parse it as a cookies.txt reader would: 7 tab-separated fields, #HttpOnly_ prefix.
    let mut cookies = Vec::new();
    for line in text.lines() {
        let line = line.strip_prefix("#HttpOnly_").unwrap_or(line);
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 7, "{line}");
        assert_eq!(fields[0], "127.0.0.1");
        cookies.push((fields[5].to_string(), fields[6].to_string()));
    }
    assert_eq!(cookies.len(), 2);
    let html = get_c(&f, "/forum.php?mod=viewthread&tid=7", &cookies).text();
    assert_eq!(discuz_uid(&html), "1");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn login_required_site_and_forum_lists() {
    let mut s = spec(vec![thread(7, 2), thread(9, 4)]);
    s.site.login_required = true;
    let f = TestForum::start(s).unwrap();
    let g = get(&f, "/forum.php?mod=viewthread&tid=7").text();
    assert_eq!(
        select_texts(&g, "#messagetext p"),
        ["抱歉，您尚未登录，没有权限访问该版块"]
    );
    let (salt, auth) = f.login_session(1);
    let pre = f.cookie_prefix();
    let c = [
        (format!("{pre}saltkey"), salt),
        (format!("{pre}auth"), auth),
    ];
    assert_eq!(
        post_ids(&get_c(&f, "/forum.php?mod=viewthread&tid=7", &c).text()).len(),
        2
    );

    let list = get(&f, "/forum.php?mod=forumdisplay&fid=2").text();
    let doc = Html::parse_document(&list);
    let rows = Selector::parse("tbody[id^=normalthread_] a.s.xst").unwrap();
    let subjects: Vec<_> = doc
        .select(&rows)
        .map(|a| a.value().attr("href").unwrap().to_string())
        .collect();
    assert_eq!(
        subjects,
        [
            "forum.php?mod=viewthread&tid=9&extra=page%3D1&page=1",
            "forum.php?mod=viewthread&tid=7&extra=page%3D1&page=1"
        ]
    );
    let j = get(
        &f,
        "/api/mobile/index.php?version=4&module=forumdisplay&fid=2",
    )
    .json();
    let tl = j["Variables"]["forum_threadlist"].as_array().unwrap();
    assert_eq!(tl.len(), 2);
    assert_eq!(tl[0]["tid"], "9");
    assert_eq!(tl[0]["replies"], "3");
    let (tid, _) = f.add_thread(2, "第三天讨论帖", "导演A", "开始", ts("2026-03-06 09:00"));
    let j = get(
        &f,
        "/api/mobile/index.php?version=4&module=forumdisplay&fid=2",
    )
    .json();
    assert_eq!(
        j["Variables"]["forum_threadlist"][0]["tid"],
        tid.to_string()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn works_from_inside_a_tokio_runtime() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let f = TestForum::start(spec(vec![thread(7, 2)])).unwrap();
    let mut s = tokio::net::TcpStream::connect(f.addr()).await.unwrap();
    s.write_all(b"GET /thread-7-1-1.html HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).await.unwrap();
    let text = String::from_utf8(buf).unwrap();
    assert!(text.starts_with("HTTP/1.1 200 OK"));
    assert_eq!(post_ids(&text).len(), 2);
    drop(f);
}

#[test]
fn spec_file_errors_name_the_key() {
    let bad = "[site]\nppp = 0\n";
    let e = ForumSpec::parse(std::path::Path::new("forum.toml"), bad).unwrap_err();
    assert_eq!(e.to_string(), "forum.toml:site.ppp: must be at least 1");
    let mut s = spec(vec![thread(7, 2)]);
    s.threads[0].posts[1].time = "yesterday".into();
    let err = TestForum::start(s).err().unwrap();
    assert!(err.to_string().contains("thread[0].post[1].time"), "{err}");
}

// ------------------------------------------------- HTML view == API view, by the parser

use bansha::discuz::{PageError, ParseContext, parse_html_with_floor_names, parse_page};
use bansha::model::{PagePost, ThreadPage};

fn parse(f: &TestForum, target: &str, floor_names: &[String]) -> Result<ThreadPage, PageError> {
    let r = get(f, target);
    let mut ctx = ParseContext::new(format!("{}{}", f.base_url(), &target[1..]), f.now());
    ctx.tid = Some(7);
    if floor_names.is_empty() {
        parse_page(&r.body, &ctx)
    } else {
        parse_html_with_floor_names(&r.body, &ctx, floor_names)
    }
}

/// Every real post of thread 7 as the PC pages show it (placeholders and pinned/hot
/// duplicates set aside), plus the placeholders' floors.
fn html_view(f: &TestForum, floor_names: &[String]) -> (Vec<PagePost>, Vec<u32>) {
    let first = parse(
        f,
        "/forum.php?mod=viewthread&tid=7&mobile=no&ordertype=2",
        floor_names,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut posts = Vec::new();
    let mut deleted = Vec::new();
    for page in 1..=first.total_pages {
        let p = parse(f, &format!("/thread-7-{page}-1.html"), floor_names)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.page, page);
        assert_eq!(p.tid, 7);
        for post in p.posts {
            if post.deleted {
                deleted.push(post.floor.expect("placeholder floor"));
                continue;
            }
            // Deduplicate by pid: keep the normal entry when there is one (a 推荐 reply
            // that belongs to page 1 is shown only in its 推荐 slot, MARKUP 4.3).
            match posts.iter().position(|q: &PagePost| q.pid == post.pid) {
                Some(i) if posts[i].duplicate && !post.duplicate => posts[i] = post,
                Some(_) => {}
                None => posts.push(post),
            }
        }
    }
    posts.sort_by_key(|p| p.pid);
    (posts, deleted)
}

fn api_view(f: &TestForum) -> (Vec<PagePost>, Vec<String>) {
    let target =
        "/api/mobile/index.php?version=4&module=viewthread&tid=7&page=1&ppp=1000&ordertype=2";
    let raw = get(f, target).json();
    let names: Vec<String> = raw["Variables"]["cache_custominfo_postno"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let page = parse(f, target, &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(page.total_pages, 1);
    (page.posts, names)
}

/// The fields both views must agree on.
#[derive(Debug, PartialEq)]
struct Essentials {
    pid: Option<u64>,
    floor: Option<u32>,
    author: String,
    uid: Option<u64>,
    time: i64,
    text: String,
    quote_pid: Option<u64>,
    red: String,
    editor: Option<String>,
    locked: Option<bansha::model::LockKind>,
}

fn essentials(p: &PagePost) -> Essentials {
    Essentials {
        pid: p.pid,
        floor: p.floor,
        author: p.author.clone(),
        uid: p.uid,
        time: p.time,
        text: p.text.clone(),
        quote_pid: p.quote.as_ref().and_then(|q| q.pid),
        red: p.red.clone(),
        editor: p.edit.as_ref().map(|e| e.editor.clone()),
        locked: p.locked,
    }
}

fn game_thread(n: usize) -> ThreadSpec {
    let mut t = thread(7, n);
    let base = ts(T0);
    for (i, p) in t.posts.iter_mut().enumerate() {
        // Seconds vary; some posts recent (relative times), most old.
        let at = base + 3671 * i as i64 + (i as i64 * 7) % 60;
        p.time = bansha::time::format_local(at, chrono_tz::Asia::Shanghai);
    }
    t.posts[2].message = "投票对象：[color=Red]傻树[/color]\n投票理由：[b]划水[/b]".into();
    t.posts[3].reply_to = Some(3);
    t.posts[3].message = "不同意\n改票对象：小红".into();
    t.posts[5].message = "[size=5]大字[/size]与[color=#ff0000]红字[/color]".into();
    t.posts[6].edited = Some(bansha::time::format_local(
        base + 3671 * 6 + 3600,
        chrono_tz::Asia::Shanghai,
    ));
    t.posts[8].jammer = true;
    t.posts[8].message = "第一行\n第二行\n第三行".into();
    t.posts[9].reply_to = Some(4);
    // A pinned reply from page 2 and a 推荐 reply: duplicates on page 1.
    t.posts[11].sticky = true;
    t.posts[7].recommend = true;
    t.posts[10].locked = Some(Lock::Banned);
    t.posts[12].message = "[hide]隐藏的票[/hide]".into();
    t
}

fn assert_same_posts(f: &TestForum, expect_posts: usize) -> (Vec<PagePost>, Vec<u32>) {
    assert_same_posts_but(f, expect_posts, false)
}

/// With `renumbered`, floors are left out of the comparison: after a deletion in
/// sequential mode the PC page shows renumbered floors while the API's `position` (which
/// the parser prefers, MARKUP 10.5) keeps the stored one.
fn assert_same_posts_but(
    f: &TestForum,
    expect_posts: usize,
    renumbered: bool,
) -> (Vec<PagePost>, Vec<u32>) {
    let (api, names) = api_view(f);
    let (html, deleted) = html_view(f, &names);
    assert_eq!(html.len(), expect_posts);
    assert_eq!(api.len(), expect_posts);
    for (h, a) in html.iter().zip(api.iter()) {
        let (mut he, mut ae) = (essentials(h), essentials(a));
        if renumbered {
            (he.floor, ae.floor) = (None, None);
        }
        assert_eq!(he, ae, "\nHTML {h:#?}\nAPI {a:#?}");
        assert!(h.pid.is_some() && h.floor.is_some(), "{h:#?}");
    }
    (html, deleted)
}

#[test]
fn html_and_api_views_parse_to_the_same_posts_utf8() {
    let mut s = spec(vec![game_thread(25)]);
    s.site.now = Some("2026-03-05 12:00".into());
    let f = TestForum::start(s).unwrap();
    let (html, _) = assert_same_posts(&f, 25);
    let pids = f.pids(7);
    assert_eq!(
        html.iter().map(|p| p.pid.unwrap()).collect::<Vec<_>>(),
        pids
    );
    assert_eq!(
        html.iter().map(|p| p.floor.unwrap()).collect::<Vec<_>>(),
        (1..=25).collect::<Vec<_>>()
    );
    assert_eq!(html[3].quote.as_ref().and_then(|q| q.pid), Some(pids[2]));
    assert!(
        !html[3].text.contains("划水"),
        "quoted text is not the replier's text"
    );
    assert_eq!(html[2].red, "傻树");
    assert_eq!(html[8].text, "第一行\n第二行\n第三行", "jammer stripped");
    assert_eq!(
        html[6].edit.as_ref().map(|e| e.editor.as_str()),
        Some("小红")
    );
}

#[test]
fn html_and_api_views_parse_to_the_same_posts_gbk_custom_floor_names() {
    let mut s = spec(vec![game_thread(14)]);
    s.site.charset = SiteCharset::Gbk;
    s.site.floor_names = vec!["楼主".into(), "沙发".into(), "板凳".into(), "地板".into()];
    s.site.now = Some("2026-03-05 12:00".into());
    s.threads[0].posts[4].message = "投票对象：小红 ❤ 𠀀".into();
    let f = TestForum::start(s).unwrap();
    let (html, _) = assert_same_posts(&f, 14);
    assert_eq!(html[1].floor, Some(2));
    assert_eq!(html[1].floor_label, "沙发");
    assert_eq!(
        html[4].text, "投票对象：小红 ❤ 𠀀",
        "numeric references decoded"
    );
}

#[test]
fn html_and_api_views_agree_after_a_deletion_in_both_floor_modes() {
    let mut s = spec(vec![game_thread(23)]);
    // Floor 8 is also a 推荐 reply: its floor is inferred from the gap in page 1's numbers
    // even with a deleted-floor placeholder on the page (regression, issue 16).
    assert!(s.threads[0].posts[7].recommend);
    s.site.version = Version::X35;
    s.site.floor_names = vec!["楼主".into()];
    s.site.floor_suffix = "楼".into();
    let f = TestForum::start(s).unwrap();
    let pids = f.pids(7);
    f.delete_post(pids[4]);
    f.add_post(
        7,
        "傻树",
        "投票对象：[color=Red]小红[/color]",
        ts("2026-03-06 10:00:30"),
    );

    // Sequential: the PC page renumbers (floor 5 is now the old floor 6); the API keeps
    // the stored position. Everything else agrees.
    let (html, deleted) = assert_same_posts_but(&f, 23, true);
    assert!(deleted.is_empty());
    assert_eq!(html[4].pid, Some(pids[5]));
    assert_eq!(html[4].floor, Some(5));
    let (api, _) = api_view(&f);
    assert_eq!(api[4].pid, Some(pids[5]));
    assert_eq!(api[4].floor, Some(6));

    // Position: the placeholder keeps floor 5; real posts keep their floors.
    f.set_floor_mode(FloorMode::Position);
    let (api, names) = api_view(&f);
    let (html, deleted) = html_view(&f, &names);
    assert_eq!(deleted, vec![5]);
    assert_eq!(html.len(), 23);
    for (h, a) in html.iter().zip(api.iter()) {
        assert_eq!(h.pid, a.pid);
        assert_eq!(a.floor, h.floor, "API position = PC position number");
        assert_eq!(essentials(h), essentials(a));
    }
    assert_eq!(html[4].floor, Some(6));
    assert_eq!(html.last().unwrap().floor, Some(24));
}

#[test]
fn fault_pages_parse_as_errors() {
    let f = TestForum::start(spec(vec![thread(7, 3)])).unwrap();
    let page = "/forum.php?mod=viewthread&tid=7";
    f.inject(Fault::CcPage, 1);
    assert!(matches!(
        parse(&f, page, &[]),
        Err(PageError::CcDefence { .. })
    ));
    f.inject(Fault::AntiScrape, 1);
    assert!(matches!(
        parse(&f, page, &[]),
        Err(PageError::AntiScrape { .. })
    ));
    f.inject(Fault::LoginRequired, 1);
    assert!(parse(&f, page, &[]).unwrap_err().is_login_problem());
    f.inject(Fault::Truncated, 1);
    assert!(parse(&f, page, &[]).is_err());
    assert!(
        parse(&f, "/forum.php?mod=viewthread&tid=999", &[])
            .unwrap_err()
            .is_gone()
    );
    let ok = parse(&f, page, &[]).unwrap();
    assert_eq!(ok.viewer_uid, Some(0));
    assert_eq!(ok.posts.len(), 3);
}

#[test]
fn the_api_can_cap_ppp_and_be_closed_from_the_spec_or_while_running() {
    let mut s = spec(vec![thread(7, 25)]);
    s.site.api_ppp_max = Some(8);
    let f = TestForum::start(s).unwrap();
    let capped = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7&page=1&ppp=1000",
    )
    .json();
    // The answer names the cap it served, and pages at it.
    assert_eq!(capped["Variables"]["ppp"], "8");
    assert_eq!(capped["Variables"]["postlist"].as_array().unwrap().len(), 8);
    let last = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7&page=99999&ppp=1000",
    )
    .json();
    assert_eq!(last["Variables"]["postlist"].as_array().unwrap().len(), 1);
    f.set_api_ppp_max(None);
    let all = get(
        &f,
        "/api/mobile/index.php?version=4&module=viewthread&tid=7&ppp=1000",
    )
    .json();
    assert_eq!(all["Variables"]["postlist"].as_array().unwrap().len(), 25);
    f.set_api_closed(true);
    for module in ["viewthread&tid=7", "forumdisplay&fid=2"] {
        let closed = get(
            &f,
            &format!("/api/mobile/index.php?version=4&module={module}"),
        );
        assert_eq!(
            closed.json(),
            serde_json::json!({"error": "mobile_is_closed"})
        );
    }
    // PC pages are unaffected.
    assert_eq!(get(&f, "/forum.php?mod=viewthread&tid=7").status, 200);
    let mut s = spec(vec![thread(7, 3)]);
    s.site.api_closed = true;
    let f = TestForum::start(s).unwrap();
    let closed = get(&f, "/api/mobile/index.php?check").json();
    assert_eq!(closed["error"], "mobile_is_closed");
    let e = ForumSpec::parse(
        std::path::Path::new("forum.toml"),
        "[site]\napi_ppp_max = 0\n",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "forum.toml:site.api_ppp_max: must be at least 1"
    );
    let ok = ForumSpec::parse(
        std::path::Path::new("forum.toml"),
        "[site]\napi_ppp_max = 30\napi_closed = true\n",
    )
    .unwrap();
    assert_eq!(ok.site.api_ppp_max, Some(30));
    assert!(ok.site.api_closed);
}

/// A 推荐 reply on a one-page thread: the page shows it only in its 推荐 slot, and when it
/// is the last reply no gap in the numbers points at it; one page means the slot is its only
/// appearance, so it is no duplicate (issue 16: this was left unguarded).
#[test]
fn a_recommended_last_reply_on_a_one_page_thread_is_its_only_appearance() {
    let mut s = spec(vec![thread(7, 6)]);
    s.threads[0].posts[5].recommend = true; // floor 6, the last
    let f = TestForum::start(s).unwrap();
    let pids = f.pids(7);
    let p = parse(&f, "/forum.php?mod=viewthread&tid=7", &[]).unwrap();
    assert_eq!(p.total_pages, 1);
    let hot: Vec<_> = p.posts.iter().filter(|q| q.pid == Some(pids[5])).collect();
    assert_eq!(hot.len(), 1, "{:?}", p.posts);
    assert_eq!(hot[0].floor_label, "推荐");
    assert!(!hot[0].duplicate, "its only appearance: {:?}", hot[0]);
    assert_eq!(p.posts.iter().filter(|q| !q.duplicate).count(), 6);
}
