//! Benchmark: parse (run with `cargo bench --bench parse`).
//!
//! Builds a 2,000-post thread in memory — 200 PC pages of 10 posts (X3.4 markup, quotes,
//! jammer, colours, sizes, relative times) and the same thread as 200 mobile-API pages —
//! and reports pages/s and MB/s for each. Target: the 200 PC pages well under 1 s.

use std::time::{Duration, Instant};

use bansha::config::Charset;
use bansha::discuz::{self, ParseContext};

const PAGES: u32 = 200;
const PPP: u32 = 10;
const TID: u64 = 880001;

fn post_html(pid: u64, floor: u32, page: u32) -> String {
    let uid = 1000 + (floor % 23) as u64;
    let body = if floor.is_multiple_of(3) {
        format!(
            "<div class=\"quote\"><blockquote><font size=\"2\"><a href=\"https://bbs.example.com/forum.php?mod=redirect&amp;goto=findpost&amp;pid={q}&amp;ptid={TID}\" target=\"_blank\"><font color=\"#999999\">玩家{u} 发表于 2024-3-2 08:18</font></a></font><br />\r\n被引用的发言内容</blockquote></div><br />\r\n\
投票对象：<font color=\"Red\"><font size=\"5\">{n}号</font></font><font class=\"jammer\">4&amp;]x 2Q+:k1</font><br />\r\n\
投票理由：<span style=\"display:none\">7 m1 (z8</span>发言有问题，逻辑前后矛盾，建议大家仔细看看他的第二段发言。<br />\r\n",
            q = pid - 1,
            u = uid - 1,
            n = floor % 12 + 1
        )
    } else {
        "今天的发言：我是好人，昨晚没有信息。<br />\r\n\
我怀疑 3 号和 7 号，理由如下：<br />\r\n\
1. 3 号的发言前后矛盾；<font class=\"jammer\">Zq 8&amp;v</font><br />\r\n\
2. 7 号一直在带节奏。<br />\r\n"
            .repeat(3)
    };
    let time = if floor.is_multiple_of(2) {
        "<span title=\"2024-3-2 08:32:16\">昨天&nbsp;08:32</span>".to_string()
    } else {
        format!(
            "2024-3-1 {:02}:{:02}:{:02}",
            floor % 24,
            floor % 60,
            pid % 60
        )
    };
    format!(
        r#"<div id="post_{pid}" >
<table id="pid{pid}" class="plhin" summary="pid{pid}" cellspacing="0" cellpadding="0">
<tr>
 <td class="pls" rowspan="2">
  <div id="favatar{pid}" class="pls favatar">
   <div class="pi"><div class="authi"><a href="home.php?mod=space&amp;uid={uid}" target="_blank" class="xw1">玩家{uid}</a></div></div>
   <div class="p_pop blk bui card_gender_0" id="userinfo{pid}" style="display: none; margin-top: -11px;">
    <div class="i y"><div><strong><a href="home.php?mod=space&amp;uid={uid}" target="_blank" class="xi2">玩家{uid}</a></strong></div>
    <dl class="cl"><dt>积分</dt><dd><a href="home.php?mod=space&amp;uid={uid}&amp;do=profile" target="_blank" class="xi2">1234</a></dd></dl></div>
   </div>
   <div><div class="avatar" onmouseover="showauthor(this, 'userinfo{pid}')"><a href="home.php?mod=space&amp;uid={uid}" class="avtm" target="_blank"><img src="uc_server/avatar.php?uid={uid}&amp;size=middle" /></a></div></div>
   <p><em><a href="home.php?mod=spacecp&amp;ac=usergroup&amp;gid=10" target="_blank">新手上路</a></em></p>
  </div>
 </td>
 <td class="plc">
  <div class="pi">
   <strong><a href="forum.php?mod=redirect&goto=findpost&ptid={TID}&pid={pid}"  id="postnum{pid}" onclick="setCopy(this.href, '帖子地址复制成功');return false;"><em>{floor}</em><sup>#</sup></a></strong>
   <div class="pti"><div class="pdbt"></div>
    <div class="authi">
     <img class="authicn vm" id="authicon{pid}" src="static/image/common/online_member.gif" />
     <em id="authorposton{pid}">发表于 {time}</em>
     <span class="pipe">|</span>
     <a href="forum.php?mod=viewthread&amp;tid={TID}&amp;page={page}&amp;authorid={uid}" rel="nofollow">只看该作者</a>
    </div>
   </div>
  </div>
  <div class="pct"><div class="pcb">
   <div class="t_fsz">
    <table cellspacing="0" cellpadding="0"><tr><td class="t_f" id="postmessage_{pid}">
{body}</td></tr></table>
   </div>
   <div id="comment_{pid}" class="cm"></div>
   <div id="post_rate_div_{pid}"></div>
  </div></div>
 </td>
</tr>
<tr><td class="plc plm"></td></tr>
<tr id="_postposition{pid}"></tr>
<tr><td class="pls"></td><td class="plc" style="overflow:visible;">
  <div class="po hin"><div class="pob cl"><em>
   <a class="fastre" href="forum.php?mod=post&amp;action=reply&amp;fid=2&amp;tid={TID}&amp;repquote={pid}&amp;extra=page%3D1&amp;page={page}" onclick="showWindow('reply', this.href)">回复</a>
  </em><p><a href="javascript:;" id="mgc_post_{pid}" onmouseover="showMenu(this.id)" class="showmenu">使用道具</a><a href="javascript:;" onclick="showWindow('miscreport{pid}', 'misc.php?mod=report&rtype=post&rid={pid}&tid={TID}&fid=2', 'get', -1);return false;">举报</a></p></div></div>
</td></tr>
<tr class="ad"><td class="pls"></td><td class="plc"></td></tr>
</table>
</div>
"#
    )
}

fn pc_page(page: u32) -> Vec<u8> {
    let mut posts = String::new();
    for i in 0..PPP {
        let floor = (page - 1) * PPP + i + 1;
        posts.push_str(&post_html(5_000_000 + floor as u64, floor, page));
    }
    let pager = format!(
        "<div class=\"pg\"><strong>{page}</strong><a href=\"forum.php?mod=viewthread&amp;tid={TID}&amp;extra=page%3D1&amp;page={n}\">{n}</a><label><input type=\"text\" name=\"custompage\" class=\"px\" size=\"2\" value=\"{page}\" /><span title=\"共 {PAGES} 页\"> / {PAGES} 页</span></label></div>",
        n = page % PAGES + 1
    );
    let head = "<link rel=\"stylesheet\" type=\"text/css\" href=\"data/cache/style_1_common.css?Xy1\" />\n".repeat(8);
    let nav = "<li><a href=\"forum.php\" hidefocus=\"true\" title=\"BBS\">论坛<span>BBS</span></a></li>\n".repeat(30);
    format!(
        r#"<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml"><head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />
<title>版杀 第一天 讨论帖 - 第{page}页 - 版杀专区 - 示例论坛 - Powered by Discuz!</title>
{head}<script type="text/javascript">var STYLEID = '1', STATICURL = 'static/', charset = 'utf-8', discuz_uid = '446740', cookiepre = 'B7Y9_2132_';</script>
</head><body id="nv_forum" class="pg_viewthread">
<div id="nv"><ul>{nav}</ul></div>
<script type="text/javascript">var fid = parseInt('2'), tid = parseInt('{TID}');</script>
<div id="wp" class="wp"><div id="ct" class="wp cl">
<div id="pgt" class="pgs mbm cl "><div class="pgt">{pager}</div></div>
<div id="postlist" class="pl bm">
<table cellspacing="0" cellpadding="0"><tr><td class="pls ptn pbn"></td><td class="plc ptm pbn vwthd"><h1 class="ts"><span id="thread_subject">版杀 第一天 讨论帖</span></h1></td></tr></table>
{posts}<div id="postlistreply" class="pl"><div id="post_new" class="viewthread_table" style="display: none"></div></div>
</div>
<div class="pgs mtm mbm cl">{pager}</div>
</div></div></body></html>
"#
    )
    .into_bytes()
}

fn api_page(page: u32) -> Vec<u8> {
    let mut list = Vec::new();
    for i in 0..PPP {
        let floor = (page - 1) * PPP + i + 1;
        let pid = 5_000_000 + floor as u64;
        let message = if floor.is_multiple_of(3) {
            format!(
                "<div class=\"reply_wrap\"><a href=\"https://bbs.example.com/forum.php?mod=redirect&amp;goto=findpost&amp;pid={}&amp;ptid={TID}\"><font color=\"#999999\">玩家 发表于 2024-3-2 08:18</font></a><br />\r\n引用</div><br />\r\n投票对象：<font color=\"Red\">{}号</font><br />\r\n投票理由：发言有问题，逻辑前后矛盾。",
                pid - 1,
                floor % 12 + 1
            )
        } else {
            "今天的发言：我是好人，昨晚没有信息。<br />\r\n我怀疑 3 号和 7 号，理由如下：<br />\r\n1. 3 号的发言前后矛盾；<br />\r\n2. 7 号一直在带节奏。<br />\r\n".repeat(3)
        };
        list.push(serde_json::json!({
            "pid": pid.to_string(), "tid": TID.to_string(), "first": if floor == 1 { "1" } else { "0" },
            "author": format!("玩家{}", 1000 + floor % 23), "authorid": (1000 + floor % 23).to_string(),
            "dateline": "2024-3-1 08:00", "dbdateline": (1709251200 + floor as i64 * 60).to_string(),
            "number": floor.to_string(), "position": floor.to_string(), "message": message,
            "anonymous": "0", "attachment": "0", "status": "0", "attachments": [],
        }));
    }
    let doc = serde_json::json!({
        "Version": "4", "Charset": "UTF-8",
        "Variables": {
            "member_uid": "446740", "formhash": "ec6618f9",
            "thread": {"tid": TID.to_string(), "subject": "版杀 第一天 讨论帖", "replies": (PAGES * PPP - 1).to_string(), "maxposition": (PAGES * PPP).to_string()},
            "postlist": list, "ppp": PPP.to_string(), "page": page.to_string(),
            "cache_custominfo_postno": ["<sup>#</sup>"],
        }
    });
    serde_json::to_vec(&doc).unwrap()
}

/// CPU time of this thread in seconds (Linux `/proc/thread-self/schedstat`), so that the
/// figures mean something on a machine shared with other builds; `None` elsewhere.
fn cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn run(label: &str, pages: &[Vec<u8>], parse: impl Fn(&[u8], &ParseContext) -> usize) -> Duration {
    let bytes: usize = pages.iter().map(Vec::len).sum();
    let ctx = ParseContext {
        source: "bench".into(),
        tid: None,
        page: None,
        fetched_at: 1709337600,
        tz: chrono_tz::Asia::Shanghai,
        charset: Charset::Auto,
    };
    // Warm-up, and a check that every post is read.
    let posts: usize = pages.iter().map(|p| parse(p, &ctx)).sum();
    assert_eq!(posts, (PAGES * PPP) as usize, "{label}: every post parsed");
    let rounds = 3;
    let mut best = Duration::MAX;
    let mut best_cpu = f64::MAX;
    for _ in 0..rounds {
        let t = Instant::now();
        let c0 = cpu_secs();
        for p in pages {
            std::hint::black_box(parse(p, &ctx));
        }
        best = best.min(t.elapsed());
        if let (Some(a), Some(b)) = (c0, cpu_secs()) {
            best_cpu = best_cpu.min(b - a);
        }
    }
    let secs = best.as_secs_f64();
    let cpu = if best_cpu < f64::MAX {
        format!(
            "; CPU {:.3} s = {:.0} pages/s, {:.1} MB/s",
            best_cpu,
            pages.len() as f64 / best_cpu,
            bytes as f64 / 1e6 / best_cpu
        )
    } else {
        String::new()
    };
    println!(
        "{label}: {} pages, {} posts, {:.1} MB; wall {:.3} s (best of {rounds}) = {:.0} pages/s, {:.1} MB/s{cpu}",
        pages.len(),
        posts,
        bytes as f64 / 1e6,
        secs,
        pages.len() as f64 / secs,
        bytes as f64 / 1e6 / secs
    );
    best
}

fn main() {
    let pc: Vec<Vec<u8>> = (1..=PAGES).map(pc_page).collect();
    let api: Vec<Vec<u8>> = (1..=PAGES).map(api_page).collect();
    run("  (html5ever tree build only)", &pc, |b, _| {
        let d = scraper::Html::parse_document(std::str::from_utf8(b).unwrap());
        std::hint::black_box(&d);
        PPP as usize
    });
    let html = run("PC HTML ", &pc, |b, c| {
        discuz::parse_page(b, c).expect("pc page").posts.len()
    });
    run("API JSON", &api, |b, c| {
        discuz::parse_page(b, c).expect("api page").posts.len()
    });
    let gbk: Vec<Vec<u8>> = pc
        .iter()
        .map(|p| {
            let s = String::from_utf8(p.clone())
                .unwrap()
                .replace("charset=utf-8", "charset=gbk");
            encoding_rs::GBK.encode(&s).0.into_owned()
        })
        .collect();
    run("PC HTML (GBK)", &gbk, |b, c| {
        discuz::parse_page(b, c).expect("gbk page").posts.len()
    });
    if html >= Duration::from_secs(1) {
        println!(
            "WARNING: 200 PC pages took {:.3} s (target: well under 1 s)",
            html.as_secs_f64()
        );
    }
}
