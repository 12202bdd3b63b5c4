//! Generated Discuz! X3.4 thread pages for the benches (`parse`, `import_peer`): a thread of
//! PC pages of `ppp` posts (quotes, jammer, colours, sizes, relative times, `display:none`
//! noise) and the same thread as mobile-API pages.
//!
//! Every post has the stock template's parts around its message (`crates/testforum/src/stock.rs`:
//! the numbercard, star, group icon, medals, online mark, signature, 评分 log, 点评,
//! 回帖奖励, attachments and image list, ads between posts; a poll on the first post), as
//! pages saved from real X3.4 forums carry them.
//!
//! [`Thread::pc_page`] is the post list with a thin page around it (what `parse` has always
//! measured); [`Thread::saved_page`] wraps the same posts in the chrome a real viewthread
//! page carries (head scripts, navigation and menus, the fast-reply editor, the footer
//! scripts), ≈ 58 KB a page as a browser saves it.

#![allow(dead_code)] // each bench uses its own part

/// The stock parts around each post (numbercard, medals, signature, 评分, 点评 …), the
/// test forum's own.
#[path = "../../crates/testforum/src/stock.rs"]
#[allow(clippy::duplicate_mod)] // the library's tests load this file twice
mod stock;

/// One thread to generate.
#[derive(Debug, Clone, Copy)]
pub struct Thread {
    pub tid: u64,
    pub pages: u32,
    pub ppp: u32,
    /// The pid of floor 1 (floor n has `pid_base + n - 1`).
    pub pid_base: u64,
}

/// The `parse` bench's thread: 200 pages of 10 posts.
pub const BENCH: Thread = Thread {
    tid: 880001,
    pages: 200,
    ppp: 10,
    pid_base: 5_000_001,
};

/// When the pages were saved (2024-03-02 00:00 +08:00): the base for 昨天 HH:MM.
pub const SAVED_AT: i64 = 1709308800;
pub const SAVED_AT_LOCAL: &str = "2024-03-02 00:00";

impl Thread {
    pub fn posts(&self) -> u32 {
        self.pages * self.ppp
    }

    fn post_html(&self, pid: u64, floor: u32, page: u32) -> String {
        let tid = self.tid;
        let uid = 1000 + (floor % 23) as u64;
        let body = if floor.is_multiple_of(3) {
            format!(
                "<div class=\"quote\"><blockquote><font size=\"2\"><a href=\"https://bbs.example.com/forum.php?mod=redirect&amp;goto=findpost&amp;pid={q}&amp;ptid={tid}\" target=\"_blank\"><font color=\"#999999\">玩家{u} 发表于 2024-3-2 08:18</font></a></font><br />\r\n被引用的发言内容</blockquote></div><br />\r\n\
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
        let parts = stock::parts(stock::PostIds {
            pid,
            uid,
            tid,
            fid: 2,
            first: floor == 1,
        });
        let rate = if parts.rate.is_empty() {
            format!("<div id=\"post_rate_div_{pid}\"></div>")
        } else {
            parts.rate.clone()
        };
        format!(
            r#"<div id="post_{pid}" >
<table id="pid{pid}" class="plhin" summary="pid{pid}" cellspacing="0" cellpadding="0">
<tr>
 <td class="pls" rowspan="2">
  <div id="favatar{pid}" class="pls favatar">
   <div class="pi"><div class="authi"><a href="home.php?mod=space&amp;uid={uid}" target="_blank" class="xw1">玩家{uid}</a></div></div>
   <div class="p_pop blk bui card_gender_0" id="userinfo{pid}" style="display: none; margin-top: -11px;">
    <div class="i y"><div><strong><a href="home.php?mod=space&amp;uid={uid}" target="_blank" class="xi2">玩家{uid}</a></strong>{online}</div>
    <dl class="cl"><dt>积分</dt><dd><a href="home.php?mod=space&amp;uid={uid}&amp;do=profile" target="_blank" class="xi2">1234</a></dd></dl></div>
   </div>
   <div><div class="avatar" onmouseover="showauthor(this, 'userinfo{pid}')"><a href="home.php?mod=space&amp;uid={uid}" class="avtm" target="_blank"><img src="uc_server/avatar.php?uid={uid}&amp;size=middle" /></a></div></div>
   {numbercard}<p><em><a href="home.php?mod=spacecp&amp;ac=usergroup&amp;gid=10" target="_blank">新手上路</a></em></p>
{profile}  </div>
 </td>
 <td class="plc">
  <div class="pi">
   {jump}<strong><a href="forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={pid}"  id="postnum{pid}" onclick="setCopy(this.href, '帖子地址复制成功');return false;"><em>{floor}</em><sup>#</sup></a></strong>
   <div class="pti"><div class="pdbt"></div>
    <div class="authi">
     <img class="authicn vm" id="authicon{pid}" src="static/image/common/online_member.gif" />
     <em id="authorposton{pid}">发表于 {time}</em>{mobile}
     <span class="pipe">|</span>
     <a href="forum.php?mod=viewthread&amp;tid={tid}&amp;page={page}&amp;authorid={uid}" rel="nofollow">只看该作者</a>
    </div>
   </div>
  </div>
  <div class="pct">{reward}<div class="pcb">
   <div class="{body_class}">
    <table cellspacing="0" cellpadding="0"><tr><td class="t_f" id="postmessage_{pid}">
{body}</td></tr></table>
{after_message}   </div>
   <div id="comment_{pid}" class="cm">{comments}</div>
   {rate}
  </div></div>
 </td>
</tr>
<tr><td class="plc plm">{sign}</td></tr>
<tr id="_postposition{pid}"></tr>
<tr><td class="pls"></td><td class="plc" style="overflow:visible;">
  <div class="po hin"><div class="pob cl"><em>
   <a class="fastre" href="forum.php?mod=post&amp;action=reply&amp;fid=2&amp;tid={tid}&amp;repquote={pid}&amp;extra=page%3D1&amp;page={page}" onclick="showWindow('reply', this.href)">回复</a>
  </em><p><a href="javascript:;" id="mgc_post_{pid}" onmouseover="showMenu(this.id)" class="showmenu">使用道具</a><a href="javascript:;" onclick="showWindow('miscreport{pid}', 'misc.php?mod=report&rtype=post&rid={pid}&tid={tid}&fid=2', 'get', -1);return false;">举报</a></p></div></div>
</td></tr>
<tr class="ad"><td class="pls"></td><td class="plc">{ad}</td></tr>
</table>
</div>
"#,
            online = parts.online,
            numbercard = parts.numbercard,
            profile = parts.profile,
            jump = parts.jump,
            mobile = parts.mobile,
            reward = parts.reward,
            body_class = parts.body_class,
            after_message = parts.after_message,
            comments = parts.comments,
            sign = parts.sign,
            ad = parts.ad,
        )
    }

    fn posts_html(&self, page: u32) -> String {
        let mut posts = String::new();
        for i in 0..self.ppp {
            let floor = (page - 1) * self.ppp + i + 1;
            posts.push_str(&self.post_html(self.pid_base + floor as u64 - 1, floor, page));
        }
        posts
    }

    fn pager(&self, page: u32) -> String {
        let (tid, pages) = (self.tid, self.pages);
        format!(
            "<div class=\"pg\"><strong>{page}</strong><a href=\"forum.php?mod=viewthread&amp;tid={tid}&amp;extra=page%3D1&amp;page={n}\">{n}</a><label><input type=\"text\" name=\"custompage\" class=\"px\" size=\"2\" value=\"{page}\" /><span title=\"共 {pages} 页\"> / {pages} 页</span></label></div>",
            n = page % pages + 1
        )
    }

    /// A PC page with a thin page around the post list.
    pub fn pc_page(&self, page: u32) -> Vec<u8> {
        let tid = self.tid;
        let posts = self.posts_html(page);
        let pager = self.pager(page);
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
<script type="text/javascript">var fid = parseInt('2'), tid = parseInt('{tid}');</script>
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

    /// A PC page as a browser saves it from a stock X3.4 site: the same posts inside the
    /// full page chrome (≈ 58 KB).
    pub fn saved_page(&self, page: u32) -> Vec<u8> {
        let tid = self.tid;
        let posts = self.posts_html(page);
        let pager = self.pager(page);
        let scripts: String = [
            "common", "forum", "smilies", "seditor", "bbcode", "md5", "ajax", "home",
        ]
        .iter()
        .map(|s| {
            format!("<script src=\"static/js/{s}.js?Xy1\" type=\"text/javascript\"></script>\n")
        })
        .collect();
        let css: String = ["common", "forum_viewthread", "widthauto", "extend_module"]
            .iter()
            .map(|s| format!("<link rel=\"stylesheet\" type=\"text/css\" href=\"data/cache/style_1_{s}.css?Xy1\" />\n"))
            .collect();
        let nav: String = ["论坛", "群组", "导读", "排行榜", "家园", "搜索", "帮助", "版杀规则", "小黑屋", "勋章"]
            .iter()
            .enumerate()
            .map(|(i, n)| format!("<li id=\"mn_N{i:02x}f\" ><a href=\"forum.php?mod=guide&amp;view={i}\" hidefocus=\"true\" title=\"{n}\"  >{n}<span>{n}</span></a></li>\n"))
            .collect();
        let menus: String = (1..=10)
            .map(|i| format!("<li><a href=\"forum.php?mod=forumdisplay&amp;fid={i}\" target=\"_blank\" title=\"版块{i}\">版块 {i}</a><span class=\"xg1\">今日: {}</span></li>\n", i * 7 % 31))
            .collect();
        let toolbar: String = [
            "fastpostbold", "fastpostcolor", "fastpostimg", "fastposturl", "fastpostquote",
            "fastpostcode", "fastpostsml", "fastpostat", "fastpostattach", "fastpostaudio",
            "fastpostvideo", "fastpostflash", "fastpostsize", "fastpostfont",
        ]
        .iter()
        .map(|b| format!("<a href=\"javascript:;\" title=\"{b}\" class=\"{b}\" onclick=\"seditor_menu('fastpost', '{b}')\" id=\"{b}\">{b}</a>\n"))
        .collect();
        let smilies: String = (1..=12)
            .map(|i| format!("<td id=\"smilie_{i}_td\"><img id=\"smilie_{i}\" width=\"20\" height=\"20\" src=\"static/image/smiley/default/{i}.gif\" alt=\"[s:{i}]\" onclick=\"seditor_insertunit('fastpost', '[s:{i}]')\" style=\"cursor:pointer\" /></td>\n"))
            .collect();
        let links: String = (1..=10)
            .map(|i| format!("<a href=\"https://friend{i}.example.com/\" target=\"_blank\" title=\"友情链接 {i}\">友情链接{i}</a><span class=\"pipe\">|</span>\n"))
            .collect();
        format!(
            r#"<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />
<title>版杀 第一天 讨论帖 - 第{page}页 - 版杀专区 - 示例论坛 - Powered by Discuz!</title>
<link href="https://bbs.example.com/thread-{tid}-1-1.html" rel="canonical" />
<meta name="keywords" content="版杀 第一天 讨论帖" />
<meta name="description" content="版杀 第一天 讨论帖 ,示例论坛" />
<meta name="generator" content="Discuz! X3.4" />
<meta name="author" content="Discuz! Team and Comsenz UI Team" />
<meta name="copyright" content="2001-2021 Tencent Cloud." />
<meta name="MSSmartTagsPreventParsing" content="True" />
<meta http-equiv="MSThemeCompatible" content="Yes" />
<base href="https://bbs.example.com/" />
{css}<script type="text/javascript">var STYLEID = '1', STATICURL = 'static/', IMGDIR = 'static/image/common', VERHASH = 'Xy1', charset = 'utf-8', discuz_uid = '446740', cookiepre = 'B7Y9_2132_', cookiedomain = '', cookiepath = '/', showusercard = '1', attackevasive = '0', disallowfloat = 'newthread', creditnotice = '1|威望|,2|金钱|,3|贡献|', defaultstyle = '', REPORTURL = 'aHR0cHM6Ly9iYnMuZXhhbXBsZS5jb20vdGhyZWFkLTg4MDAwMS0xLTEuaHRtbA==', SITEURL = 'https://bbs.example.com/', JSPATH = 'static/js/', CSSPATH = 'data/cache/style_', DYNAMICURL = '';</script>
{scripts}<meta name="application-name" content="示例论坛" />
<meta name="msapplication-tooltip" content="示例论坛" />
<meta name="msapplication-task" content="name=论坛;action-uri=https://bbs.example.com/forum.php;icon-uri=https://bbs.example.com/static/image/common/bbs.ico" />
<link rel="archives" title="示例论坛" href="https://bbs.example.com/archiver/" />
<script type="text/javascript">var fid = parseInt('2'), tid = parseInt('{tid}');</script>
<script type="text/javascript">zoomstatus = parseInt(1);var imagemaxwidth = '600';var aimgcount = new Array();</script>
</head>
<body id="nv_forum" class="pg_viewthread" onkeydown="if(event.keyCode==27) return false;">
<div id="append_parent"></div><div id="ajaxwaitid"></div>
<div id="toptb" class="cl">
<div class="wp">
<div class="z"><a href="javascript:;"  onclick="setHomepage('https://bbs.example.com/');">设为首页</a><a href="https://bbs.example.com/"  onclick="addFavorite(this.href, '示例论坛');return false;">收藏本站</a></div>
<div class="y">
<a id="switchblind" href="javascript:;" onclick="toggleBlind(this)" title="开启辅助访问" class="switchblind">开启辅助访问</a>
<a href="javascript:;" id="switchwidth" onclick="widthauto(this)" title="切换到宽版" class="switchwidth">切换到宽版</a>
</div>
</div>
</div>
<div id="hd">
<div class="wp">
<div class="hdc cl"><h2><a href="./" title="示例论坛"><img src="static/image/common/logo.png" alt="示例论坛" border="0" /></a></h2>
<div id="um">
<div class="avt y"><a href="home.php?mod=space&amp;uid=446740"><img src="uc_server/avatar.php?uid=446740&amp;size=small" /></a></div>
<p>
<strong class="vwmy"><a href="home.php?mod=space&amp;uid=446740" target="_blank" title="访问我的空间">导演</a></strong>
<span class="pipe">|</span><a href="javascript:;" id="myitem" class="showmenu" onmouseover="showMenu({{'ctrlid':'myitem'}});">我的</a>
<span class="pipe">|</span><a href="home.php?mod=spacecp">设置</a>
<span class="pipe">|</span><a href="home.php?mod=space&amp;do=pm" id="pm_ntc">消息</a>
<span class="pipe">|</span><a href="home.php?mod=space&amp;do=notice" id="myprompt" class="a showmenu" onmouseover="showMenu({{'ctrlid':'myprompt'}});">提醒</a>
<span class="pipe">|</span><a href="member.php?mod=logging&amp;action=logout&amp;formhash=ec6618f9">退出</a>
</p>
<p>
<a href="home.php?mod=spacecp&amp;ac=credit&amp;showcredit=1" id="extcreditmenu" onmouseover="delayShow(this, showCreditmenu);" class="showmenu">积分: 1234</a>
<span class="pipe">|</span><a href="home.php?mod=spacecp&amp;ac=usergroup" id="g_upmine" class="xi2" onmouseover="delayShow(this, showUpgradeinfo)">用户组: 版主</a>
</p>
</div>
</div>
<div id="nv">
<a href="javascript:;" id="qmenu" onmouseover="delayShow(this, function () {{showMenu({{'ctrlid':'qmenu','pos':'34!','ctrlclass':'a','duration':2}});showForummenu(2);}})">快捷导航</a>
<ul>{nav}</ul>
</div>
<div id="mu" class="cl">
</div><div id="scbar" class="cl">
<form id="scbar_form" method="post" autocomplete="off" onsubmit="searchFocus($('scbar_txt'))" action="search.php?searchsubmit=yes" target="_blank">
<input type="hidden" name="mod" id="scbar_mod" value="search" />
<input type="hidden" name="formhash" value="ec6618f9" />
<input type="hidden" name="srchtype" value="title" />
<input type="hidden" name="srhfid" value="2" />
<input type="hidden" name="srhlocality" value="forum::viewthread" />
<table cellspacing="0" cellpadding="0">
<tr>
<td class="scbar_icon_td"></td>
<td class="scbar_txt_td"><input type="text" name="srchtxt" id="scbar_txt" value="请输入搜索内容" autocomplete="off" x-webkit-speech speech /></td>
<td class="scbar_type_td"><a href="javascript:;" id="scbar_type" class="xg1" onclick="showMenu(this.id)" hidefocus="true">搜索</a></td>
<td class="scbar_btn_td"><button type="submit" name="searchsubmit" id="scbar_btn" sc="1" class="pn pnc" value="true"><strong class="xi2">搜索</strong></button></td>
<td class="scbar_hot_td">
<div id="scbar_hot">
<strong class="xw1">热搜: </strong>
<a href="search.php?mod=forum&amp;srchtxt=%E7%89%88%E6%9D%80&amp;formhash=ec6618f9&amp;searchsubmit=true&amp;source=hotsearch" target="_blank" class="xi2" sc="1">版杀</a>
<a href="search.php?mod=forum&amp;srchtxt=%E6%8A%95%E7%A5%A8&amp;formhash=ec6618f9&amp;searchsubmit=true&amp;source=hotsearch" target="_blank" class="xi2" sc="1">投票</a>
</div>
</td>
</tr>
</table>
</form>
</div>
<ul id="scbar_type_menu" class="p_pop" style="display: none;"><li><a href="javascript:;" rel="curforum" fid="2" >本版</a></li><li><a href="javascript:;" rel="forum" class="curtype">帖子</a></li><li><a href="javascript:;" rel="user">用户</a></li></ul>
</div>
</div>
<div id="wp" class="wp">
<div id="pt" class="bm cl">
<div class="z">
<a href="./" class="nvhm" title="首页">示例论坛</a><em>&raquo;</em><a href="forum.php">论坛</a> <em>&rsaquo;</em> <a href="forum.php?gid=1">游戏区</a> <em>&rsaquo;</em> <a href="forum.php?mod=forumdisplay&amp;fid=2">版杀专区</a> <em>&rsaquo;</em> <a href="forum.php?mod=viewthread&amp;tid={tid}">版杀 第一天 讨论帖</a>
</div>
</div>
<div id="ct" class="wp cl">
<div id="pgt" class="pgs mbm cl ">
<div class="pgt">{pager}</div>
<span class="y pgb"><a href="forum.php?mod=forumdisplay&amp;fid=2">返回列表</a></span>
<a id="newspecial" onmouseover="$('newspecial').id = 'newspecialtmp';this.id = 'newspecial';showMenu({{'ctrlid':this.id}})" onclick="showWindow('newthread', 'forum.php?mod=post&action=newthread&fid=2')" href="javascript:;" title="发新帖"><img src="static/image/common/pn_post.png" alt="发新帖" /></a>
<a id="post_reply" onclick="showWindow('reply', 'forum.php?mod=post&action=reply&fid=2&tid={tid}')" href="javascript:;" title="回复"><img src="static/image/common/pn_reply.png" border="0" alt="回复" /></a>
</div>
<div id="postlist" class="pl bm">
<table cellspacing="0" cellpadding="0">
<tr>
<td class="pls ptn pbn">
<div class="hm ptn">
<span class="xg1">查看:</span> <span class="xi1">12345</span><span class="pipe">|</span><span class="xg1">回复:</span> <span class="xi1">{replies}</span>
</div>
</td>
<td class="plc ptm pbn vwthd">
<div class="y">
<a href="forum.php?mod=viewthread&amp;action=printable&amp;tid={tid}" title="打印" target="_blank"><img src="static/image/common/print.png" alt="打印" class="vm" /></a>
<a href="forum.php?mod=redirect&amp;goto=nextoldset&amp;tid={tid}" title="上一主题"><img src="static/image/common/thread-prev.png" alt="上一主题" class="vm" /></a>
<a href="forum.php?mod=redirect&amp;goto=nextnewset&amp;tid={tid}" title="下一主题"><img src="static/image/common/thread-next.png" alt="下一主题" class="vm" /></a>
</div>
<h1 class="ts">
<span id="thread_subject">版杀 第一天 讨论帖</span>
</h1>
<span class="xg1">
<a href="forum.php?mod=viewthread&amp;tid={tid}" onclick="return copyThreadUrl(this, '示例论坛')" >[复制链接]</a>
</span>
</td>
</tr>
</table>
<table cellspacing="0" cellpadding="0" class="ad">
<tr>
<td class="pls">
</td>
<td class="plc">
</td>
</tr>
</table>
{posts}<div id="postlistreply" class="pl"><div id="post_new" class="viewthread_table" style="display: none"></div></div>
</div>
<form method="post" autocomplete="off" name="modactions" id="modactions">
<input type="hidden" name="formhash" value="ec6618f9" />
<input type="hidden" name="optgroup" />
<input type="hidden" name="operation" />
<input type="hidden" name="listextra" value="page%3D1" />
<input type="hidden" name="page" value="{page}" />
</form>
<div class="pgbtn"><a href="forum.php?mod=viewthread&amp;tid={tid}&amp;extra=page%3D1&amp;page={next}" hidefocus="true" class="bm_h">下一页 &raquo;</a></div>
<div class="pgs mtm mbm cl">
{pager}
<span class="pgb y"><a href="forum.php?mod=forumdisplay&amp;fid=2">返回列表</a></span>
</div>
<!--[diy=diyfastposttop]--><div id="diyfastposttop" class="area"></div><!--[/diy]-->
<script type="text/javascript">
var postminchars = parseInt('10');
var postmaxchars = parseInt('100000');
var disablepostctrl = parseInt('0');
</script>
<div id="f_pst" class="pl bm bmw">
<form method="post" autocomplete="off" id="fastpostform" action="forum.php?mod=post&amp;action=reply&amp;fid=2&amp;tid={tid}&amp;extra=page%3D1&amp;replysubmit=yes&amp;infloat=yes&amp;handlekey=fastpost" onSubmit="return fastpostvalidate(this)">
<table cellspacing="0" cellpadding="0">
<tr>
<td class="pls">
<div class="avatar avtm"><img src="uc_server/avatar.php?uid=446740&amp;size=middle" /></div>
</td>
<td class="plc">
<span id="fastpostreturn"></span>
<div class="cl">
<div id="fastsmiliesdiv" class="y"><div id="fastsmiliesdiv_data"><div id="fastsmilies"><table cellspacing="0" cellpadding="0"><tr>
{smilies}</tr></table></div></div></div>
<div class="hasfsl" id="fastposteditor">
<div class="tedt mtn">
<div class="bar">
<span class="y">
<a href="forum.php?mod=post&amp;action=reply&amp;fid=2&amp;tid={tid}" onclick="return switchAdvanceMode(this.href)">高级模式</a>
</span><div class="fpd">
{toolbar}</div></div>
<div class="area">
<textarea rows="6" cols="80" name="message" id="fastpostmessage" onKeyDown="seditor_ctlent(event, 'fastpostvalidate($(\'fastpostform\'))');" tabindex="4" class="pt"></textarea>
</div>
</div>
</div>
</div>
<div id="seccheck_fastpost">
</div>
<input type="hidden" name="formhash" value="ec6618f9" />
<input type="hidden" name="usesig" value="1" />
<input type="hidden" name="subject" value="  " />
<p class="ptm pnpost">
<a href="home.php?mod=spacecp&amp;ac=credit&amp;op=rule&amp;fid=2" class="y" target="_blank">本版积分规则</a>
<button type="button" onclick="showWindow('login', 'member.php?mod=logging&action=login&guestmessage=yes')" name="replysubmit" id="fastpostsubmit" class="pn pnc vm" value="replysubmit" tabindex="5"><strong>发表回复</strong></button>
<label for="fastpostrefresh"><input id="fastpostrefresh" type="checkbox" class="pc" />回帖后跳转到最后一页</label>
<script type="text/javascript">if(getcookie('fastpostrefresh') == 1) {{$('fastpostrefresh').checked=true;}}</script>
</p>
</td>
</tr>
</table>
</form>
</div>
</div>
</div>
<div class="wp mtn">
<!--[diy=diy3]--><div id="diy3" class="area"></div><!--[/diy]-->
</div>
<script type="text/javascript">
function succeedhandle_followmod(url, msg, values) {{
var fObj = $('followmod_'+values['fuid']);
if(values['type'] == 'add') {{
fObj.innerHTML = '不收听';
fObj.href = 'home.php?mod=spacecp&ac=follow&op=del&fuid='+values['fuid'];
}} else if(values['type'] == 'del') {{
fObj.innerHTML = '收听TA';
fObj.href = 'home.php?mod=spacecp&ac=follow&op=add&hash=ec6618f9&fuid='+values['fuid'];
}}
}}
fixed_avatar([{pids}], 1);
</script>
<div id="qmenu_menu" class="p_pop blk" style="display: none;">
<div class="ptm pbw hm">
请 <a href="javascript:;" class="xi2" onclick="lsSubmit()"><strong>登录</strong></a> 后使用快捷导航<br />没有帐号？<a href="member.php?mod=register" class="xi2 xw1">立即注册</a>
</div>
<div id="fjump_menu" class="btda"><ul>
{menus}</ul></div></div>
<div id="ft" class="wp cl">
<div id="flk" class="y">
<p>
<a href="forum.php?mobile=yes" >手机版</a><span class="pipe">|</span><a href="forum.php?mod=misc&action=showdarkroom" >小黑屋</a><span class="pipe">|</span><a href="archiver/" >Archiver</a><span class="pipe">|</span><strong><a href="https://bbs.example.com/" target="_blank">示例论坛</a></strong>
<script type="text/javascript">var _hmt = _hmt || [];</script>
</p>
<p class="xs0">
GMT+8, 2024-3-2 00:00<span id="debuginfo">
, Processed in 0.061542 second(s), 26 queries
, Gzip On, Redis On.
</span>
</p>
</div>
<div id="frt">
<p>Powered by <strong><a href="https://www.discuz.vip" target="_blank">Discuz!</a></strong> <em>X3.4</em></p>
<p class="xs0">Copyright &copy; 2001-2021, Tencent Cloud.</p>
</div>
<div id="flinks">{links}</div>
</div>
<script src="home.php?mod=misc&ac=sendmail&rand=1709308800" type="text/javascript"></script>
<div id="scrolltop">
<span hidefocus="true"><a title="返回顶部" onclick="window.scrollTo('0','0')" class="scrolltopa" ><b>返回顶部</b></a></span>
<span>
<a href="forum.php?mod=forumdisplay&amp;fid=2" hidefocus="true" class="returnlist" title="返回列表"><b>返回列表</b></a>
</span>
</div>
<script type="text/javascript">_attachEvent(window, 'scroll', function () {{ showTopLink(); }});checkBlind();</script>
</body>
</html>
"#,
            replies = self.posts() - 1,
            next = page % self.pages + 1,
            pids = (0..self.ppp)
                .map(|i| (self.pid_base + ((page - 1) * self.ppp + i) as u64).to_string())
                .collect::<Vec<_>>()
                .join(", "),
        )
        .into_bytes()
    }

    /// The same page through the mobile API (`module=viewthread`).
    pub fn api_page(&self, page: u32) -> Vec<u8> {
        let tid = self.tid;
        let mut list = Vec::new();
        for i in 0..self.ppp {
            let floor = (page - 1) * self.ppp + i + 1;
            let pid = self.pid_base + floor as u64 - 1;
            let message = if floor.is_multiple_of(3) {
                format!(
                    "<div class=\"reply_wrap\"><a href=\"https://bbs.example.com/forum.php?mod=redirect&amp;goto=findpost&amp;pid={}&amp;ptid={tid}\"><font color=\"#999999\">玩家 发表于 2024-3-2 08:18</font></a><br />\r\n引用</div><br />\r\n投票对象：<font color=\"Red\">{}号</font><br />\r\n投票理由：发言有问题，逻辑前后矛盾。",
                    pid - 1,
                    floor % 12 + 1
                )
            } else {
                "今天的发言：我是好人，昨晚没有信息。<br />\r\n我怀疑 3 号和 7 号，理由如下：<br />\r\n1. 3 号的发言前后矛盾；<br />\r\n2. 7 号一直在带节奏。<br />\r\n".repeat(3)
            };
            list.push(serde_json::json!({
                "pid": pid.to_string(), "tid": tid.to_string(), "first": if floor == 1 { "1" } else { "0" },
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
                "thread": {"tid": tid.to_string(), "subject": "版杀 第一天 讨论帖", "replies": (self.posts() - 1).to_string(), "maxposition": self.posts().to_string()},
                "postlist": list, "ppp": self.ppp.to_string(), "page": page.to_string(),
                "cache_custominfo_postno": ["<sup>#</sup>"],
            }
        });
        serde_json::to_vec(&doc).unwrap()
    }
}
