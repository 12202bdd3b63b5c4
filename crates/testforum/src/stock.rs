//! The parts of a stock Discuz! X3.4 post that are not its message (issue 22), as
//! `template/default/forum/viewthread_node.htm`, `viewthread_node_body.htm`,
//! `viewthread_poll.htm` and the profile nodes (`profile_node_numbercard` …) render them:
//! the numbercard, star, user-group icon, medals, online mark, 来自手机, signature,
//! 评分 log, 点评 comments, 回帖奖励, poll, attachments and image list, the 电梯直达
//! box of the first post, ads between posts.
//!
//! Which post carries which part follows from its pid alone, so the test forum and the
//! benches' generated pages (`benches/support/thread.rs` includes this file) serve the
//! same shapes. Only `std` is used here, for that reason.

use std::fmt::Write as _;

/// Who and where a post is.
#[derive(Debug, Clone, Copy)]
pub struct PostIds {
    pub pid: u64,
    pub uid: u64,
    pub tid: u64,
    pub fid: u64,
    /// The thread's first post.
    pub first: bool,
}

/// The parts around one post's message (empty strings where the post has none).
#[derive(Debug, Default)]
pub struct PostParts {
    /// Left column, after the avatar: the numbercard (主题, 帖子, 积分).
    pub numbercard: String,
    /// Left column, after the group title: star, group icon, medals, credits, 发消息.
    pub profile: String,
    /// In the hidden user card after the name: 当前在线 / 当前离线.
    pub online: &'static str,
    /// After `em#authorpostonP`: 来自手机.
    pub mobile: &'static str,
    /// In `div.pi` before the floor link: the first post's 电梯直达 box.
    pub jump: String,
    /// In `div.pct` before `div.pcb`: 回帖奖励.
    pub reward: String,
    /// The class of the block around the message table (`pcbs` in a poll thread).
    pub body_class: &'static str,
    /// In that block after the message table: the poll, attachments, image list.
    pub after_message: String,
    /// Inside `div#comment_P.cm`: 点评.
    pub comments: String,
    /// After the comments: the 评分 log (replacing `div#post_rate_div_P`).
    pub rate: String,
    /// In `td.plc.plm`: the signature.
    pub sign: String,
    /// In the post's last row (`tr.ad`), right cell: an ad between posts.
    pub ad: String,
}

/// A user who comments and rates (never a poster of the generated threads).
const BYSTANDER: (u64, &str) = (9001, "路过的裁判");

/// The parts of the post `p`.
pub fn parts(p: PostIds) -> PostParts {
    let k = p.pid;
    PostParts {
        numbercard: numbercard(p.uid),
        profile: profile(p),
        online: if p.uid.is_multiple_of(2) {
            "<em>当前在线</em>"
        } else {
            "<em>当前离线</em>"
        },
        mobile: if k % 5 == 1 {
            "\r\n<span class=\"xg1\">来自手机</span>"
        } else {
            ""
        },
        jump: if p.first { jump(p.tid) } else { String::new() },
        reward: if !p.first && k % 6 == 2 {
            "<div class=\"cm\">\r\n<h3 class=\"psth xs1\"><span class=\"icon_ring vm\"></span>\r\n回帖奖励 <span class=\"xw1 xs2 xi1\">+2</span> 枚金钱\r\n</h3>\r\n</div>\r\n".into()
        } else {
            String::new()
        },
        body_class: if p.first && p.tid % 2 == 1 {
            "pcbs"
        } else {
            "t_fsz"
        },
        after_message: {
            let mut s = String::new();
            if p.first && p.tid % 2 == 1 {
                s.push_str(&poll(p));
            }
            if k % 4 == 3 {
                s.push_str(&attachments(p));
            }
            s
        },
        comments: if k.is_multiple_of(3) {
            comments(p)
        } else {
            String::new()
        },
        rate: if k % 4 == 1 { rate(p) } else { String::new() },
        sign: if !p.uid.is_multiple_of(3) {
            format!(
                "<div class=\"sign\" style=\"max-height:100px;maxHeightIE:100px;\">好好玩版杀，<font color=\"Red\">不要</font>场外 <img src=\"static/image/smiley/default/{}.gif\" smilieid=\"1\" border=\"0\" alt=\"\" /></div>",
                p.uid % 9 + 1
            )
        } else {
            String::new()
        },
        ad: if k % 3 == 2 {
            "<div class=\"a_p\"><a href=\"https://ad.example.com/click?id=3\" target=\"_blank\"><img src=\"data/attachment/common/cf/ad_between.gif\" width=\"468\" height=\"60\" alt=\"广告\" border=\"0\"></a></div>".into()
        } else {
            String::new()
        },
    }
}

fn credits(uid: u64) -> u64 {
    uid * 13 % 4000 + 50
}

/// `profile_node_numbercard`: a `<th>` straight in a `<table>`.
fn numbercard(uid: u64) -> String {
    format!(
        "<div class=\"tns xg2\"><table cellspacing=\"0\" cellpadding=\"0\"><th><p><a href=\"home.php?mod=space&uid={uid}&do=thread&type=thread&view=me&from=space\" class=\"xi2\">{threads}</a></p>主题</th><th><p><a href=\"home.php?mod=space&uid={uid}&do=thread&type=reply&view=me&from=space\" class=\"xi2\">{posts}</a></p>帖子</th><td><p><a href=\"home.php?mod=space&uid={uid}&do=profile\" class=\"xi2\">{credits}</a></p>积分</td></table></div>\r\n",
        threads = uid % 17 + 1,
        posts = uid * 7 % 991 + 20,
        credits = credits(uid),
    )
}

/// The star and upgrade progress, group icon, medals, credits, 发消息.
fn profile(p: PostIds) -> String {
    let (pid, uid, tid) = (p.pid, p.uid, p.tid);
    let credits = credits(uid);
    let mut s = format!(
        "<p><span id=\"g_up{pid}\" onmouseover=\"showMenu({{'ctrlid':this.id, 'pos':'12!'}});\"><img src=\"static/image/common/star_level2.gif\" alt=\"Rank: 2\" /></span></p>\r\n\
<div id=\"g_up{pid}_menu\" class=\"tip tip_4\" style=\"display: none;\"><div class=\"tip_horn\"></div><div class=\"tip_c\">新手上路, 积分 {credits}, 距离下一级还需 {next} 积分</div></div>\r\n\
<p><span class=\"pbg2\"  id=\"upgradeprogress_{pid}\" onmouseover=\"showMenu({{'ctrlid':this.id, 'pos':'12!', 'menuid':'g_up{pid}_menu'}});\"><span class=\"pbr2\" style=\"width:{pct}%;\"></span></span></p>\r\n\
<p><a href=\"home.php?mod=spacecp&amp;ac=usergroup&amp;gid=10\" target=\"_blank\"><img src=\"static/image/group/group_10.gif\" alt=\"\" class=\"vm\" /></a></p>\r\n",
        next = 5000 - credits,
        pct = credits * 100 / 5000,
    );
    if uid % 2 == 1 {
        let _ = write!(
            s,
            "<p class=\"md_ctrl\"><a href=\"home.php?mod=medal\"><img id=\"md_{pid}_3\" src=\"static/image/common/medal3.gif\" alt=\"版杀之星\" title=\"版杀之星\" onmouseover=\"showMenu({{'ctrlid':this.id, 'menuid':'md_3_menu', 'pos':'12!'}})\" /><img id=\"md_{pid}_7\" src=\"static/image/common/medal7.gif\" alt=\"优秀法官\" title=\"优秀法官\" onmouseover=\"showMenu({{'ctrlid':this.id, 'menuid':'md_7_menu', 'pos':'12!'}})\" /></a></p>\r\n"
        );
    }
    let _ = write!(
        s,
        "<dl class=\"pil cl\">\r\n\t<dt>积分</dt><dd><a href=\"home.php?mod=space&uid={uid}&do=profile\" target=\"_blank\" class=\"xi2\">{credits}</a></dd>\r\n</dl>\r\n\
<ul class=\"xl xl2 o cl\">\r\n<li class=\"addflw\">\r\n<a href=\"home.php?mod=spacecp&ac=follow&op=add&hash=ec6618f9&fuid={uid}\" id=\"followmod_{uid}\" title=\"收听TA\" class=\"xi2\" onclick=\"showWindow('followmod', this.href, 'get', 0);\">收听TA</a>\r\n</li>\r\n<li class=\"pm2\"><a href=\"home.php?mod=spacecp&ac=pm&op=showmsg&handlekey=showmsg_{uid}&touid={uid}&pmid=0&daterange=2&pid={pid}&tid={tid}\" onclick=\"showWindow('sendpm', this.href);\" title=\"发消息\" class=\"xi2\">发消息</a></li>\r\n</ul>\r\n"
    );
    s
}

/// The first post's 电梯直达 box (`div#fj`).
fn jump(tid: u64) -> String {
    format!(
        "<div id=\"fj\" class=\"y\">\r\n<label class=\"z\">电梯直达</label>\r\n<input type=\"text\" class=\"px p_fre z\" size=\"2\" onkeyup=\"$('fj_btn').href='forum.php?mod=redirect&ptid={tid}&authorid=0&postno='+this.value\" onkeydown=\"if(event.keyCode==13) {{window.location=$('fj_btn').href;return false;}}\" title=\"跳转到指定楼层\" />\r\n<a href=\"javascript:;\" id=\"fj_btn\" class=\"z\" title=\"跳转到指定楼层\"><img src=\"static/image/common/fj_btn.png\" alt=\"跳转到指定楼层\" class=\"vm\" /></a>\r\n</div>\r\n"
    )
}

/// `viewthread_poll.htm` (a poll thread's first post), after the message table.
fn poll(p: PostIds) -> String {
    let (fid, tid, pid) = (p.fid, p.tid, p.pid);
    let mut rows = String::new();
    for (i, (name, votes)) in [("同意延长讨论", 12), ("不同意", 3)].iter().enumerate() {
        let key = i + 1;
        let _ = write!(
            rows,
            "<tr>\r\n<td class=\"pslt\"><input class=\"pr\" type=\"radio\" id=\"option_{key}\" name=\"pollanswers[]\" value=\"{v}\"  onclick=\"$('pollsubmit').disabled = false\" /></td>\r\n<td class=\"pvt\">\r\n<label for=\"option_{key}\">{key}. &nbsp;{name}</label>\r\n</td>\r\n<td class=\"pvts\"></td>\r\n</tr>\r\n<tr>\r\n<td>&nbsp;</td>\r\n<td>\r\n<div class=\"pbg\">\r\n<div class=\"pbr\" style=\"width: {w}%; background-color:#E92725\"></div>\r\n</div>\r\n</td>\r\n<td>{w}% <em style=\"color:#E92725\">({votes})</em></td>\r\n</tr>\r\n",
            v = 300 + key,
            w = votes * 100 / 15,
        );
    }
    format!(
        "\r\n<script type=\"text/javascript\">\r\n</script>\r\n<form id=\"poll\" name=\"poll\" method=\"post\" autocomplete=\"off\" action=\"forum.php?mod=misc&action=votepoll&fid={fid}&tid={tid}&pollsubmit=yes&quickforward=yes\" onsubmit=\"if($('post_{pid}')) {{ajaxpost('poll', 'post_{pid}', 'post_{pid}');return false}}\">\r\n<input type=\"hidden\" name=\"formhash\" value=\"ec6618f9\" />\r\n<div class=\"pinf\">\r\n<strong>单选投票</strong>, 共有 15 人参与投票\r\n</div>\r\n<div class=\"pcht\">\r\n<table summary=\"poll panel\" cellspacing=\"0\" cellpadding=\"0\" width=\"100%\">\r\n{rows}<tr>\r\n<td class=\"selector\">&nbsp;</td>\r\n<td colspan=\"2\">\r\n<button class=\"pn\" type=\"submit\" disabled=\"disabled\" name=\"pollsubmit\" id=\"pollsubmit\" value=\"true\"><span>提交</span></button>\r\n</td>\r\n</tr>\r\n</table>\r\n</div>\r\n</form>\r\n"
    )
}

/// `showattach()`: an image with its hidden tooltip, a file whose tooltip `<div>` sits in
/// a `<p>` (as the stock template has it), and the image list's thumbnails.
fn attachments(p: PostIds) -> String {
    let (pid, aid) = (p.pid, p.pid % 100_000 + 700);
    format!(
        "<div class=\"pattl\">\r\n<div class=\"bbda cl mtw mbm pbm\">\r\n<strong>更多图片</strong>\r\n<a href=\"javascript:;\" onclick=\"attachimglst('{pid}', 0)\" class=\"xi2 attl_g\">小图</a>\r\n<a href=\"javascript:;\" onclick=\"attachimglst('{pid}', 1, 0)\" class=\"xi2 attl_m\">大图</a>\r\n</div>\r\n<div id=\"imagelist_{pid}\" class=\"cl\" style=\"display:none\"><ignore_js_op>\r\n<dl class=\"tattl attm\">\r\n<dt></dt><dd>\r\n<p class=\"mbn\">\r\n<a href=\"forum.php?mod=attachment&amp;aid=NzAw&amp;nothumb=yes\" onmouseover=\"showMenu({{'ctrlid':this.id,'pos':'12'}})\" id=\"aid{aid}\" class=\"xw1\" target=\"_blank\">身份牌.jpg</a>\r\n<em class=\"xg1\">(52.13 KB, 下载次数: 3)</em>\r\n</p>\r\n<div class=\"tip tip_4\" id=\"aid{aid}_menu\" style=\"display: none\" disautofocus=\"true\">\r\n<div class=\"tip_c\">\r\n<p class=\"y\"><span title=\"2024-3-1 08:00\">2024-3-1 08:00</span> 上传</p>\r\n<p>下载次数: 3</p>\r\n<a href=\"forum.php?mod=attachment&amp;aid=NzAw&amp;nothumb=yes\" target=\"_blank\">下载附件</a>\r\n</div>\r\n<div class=\"tip_horn\"></div>\r\n</div>\r\n<p class=\"mbn\">\r\n</p>\r\n<div class=\"mbn savephotop\">\r\n<img id=\"aimg_{aid}\" aid=\"{aid}\" src=\"static/image/common/none.gif\" zoomfile=\"data/attachment/forum/202403/01/card.jpg\" file=\"data/attachment/forum/202403/01/card.jpg\" class=\"zoom\" onclick=\"zoom(this, this.src, 0, 0, 0)\" width=\"400\" inpost=\"1\" onmouseover=\"showMenu({{'ctrlid':this.id,'pos':'12'}})\" />\r\n</div>\r\n</dd>\r\n</dl>\r\n</ignore_js_op></div>\r\n<div id=\"imagelistthumb_{pid}\" class=\"pattl_c cl\"><div class=\"loadicon vm\"></div> 图片列表加载中...</div>\r\n<ignore_js_op>\r\n<dl class=\"tattl\">\r\n<dt>\r\n<img src=\"static/image/filetype/zip.gif\" border=\"0\" class=\"vm\" alt=\"\" />\r\n</dt>\r\n<dd>\r\n<p class=\"attnm\">\r\n<a href=\"forum.php?mod=attachment&amp;aid=NzAx\" onmouseover=\"showMenu({{'ctrlid':this.id,'pos':'12'}})\" id=\"aid{aid2}\" target=\"_blank\">规则说明.zip</a>\r\n<div class=\"tip tip_4\" id=\"aid{aid2}_menu\" style=\"display: none\" disautofocus=\"true\">\r\n<div class=\"tip_c\">\r\n<p class=\"y\"><span title=\"2024-3-1 08:00\">2024-3-1 08:00</span> 上传</p>\r\n<p>下载次数: 3</p>\r\n</div>\r\n<div class=\"tip_horn\"></div>\r\n</div>\r\n</p>\r\n<p>1.2 KB, 下载次数: 3</p>\r\n<p>\r\n</p>\r\n</dd>\r\n</dl>\r\n</ignore_js_op>\r\n</div>\r\n",
        aid2 = aid + 1,
    )
}

/// 点评 (`div#comment_P.cm`'s content).
fn comments(p: PostIds) -> String {
    let (uid, name) = BYSTANDER;
    let tid = p.tid;
    format!(
        "<h3 class=\"psth xs1\"><span class=\"icon_ring vm\"></span>点评</h3>\r\n<div class=\"pstl xs1 cl\">\r\n<div class=\"psta vm\">\r\n<a href=\"home.php?mod=space&uid={uid}\" c=\"1\"><img src=\"uc_server/avatar.php?uid={uid}&size=small\" /></a>\r\n<a href=\"home.php?mod=space&uid={uid}\" class=\"xi2 xw1\">{name}</a>\r\n</div>\r\n<div class=\"psti\">\r\n这票投得有道理&nbsp;\r\n<a href=\"forum.php?mod=redirect&goto=findpost&pid={pid}&ptid={tid}\" class=\"xi2\">详情</a>\r\n<span class=\"xg1\">\r\n发表于 <span title=\"2024-3-1 09:10\">2024-3-1 09:10</span>\r\n</span>\r\n</div>\r\n</div>\r\n",
        pid = p.pid,
    )
}

/// The 评分 log (`dl#ratelog_P.rate`), with its heading.
fn rate(p: PostIds) -> String {
    let (uid, name) = BYSTANDER;
    let (pid, tid) = (p.pid, p.tid);
    format!(
        "<h3 class=\"psth xs1\"><span class=\"icon_ring vm\"></span>评分</h3>\r\n<dl id=\"ratelog_{pid}\" class=\"rate\">\r\n<dd style=\"margin:0\">\r\n<div id=\"post_rate_{pid}\"></div>\r\n<table class=\"ratl\">\r\n<tr>\r\n<th class=\"xw1\" width=\"120\"><a href=\"forum.php?mod=misc&action=viewratings&tid={tid}&pid={pid}\" onclick=\"showWindow('viewratings', this.href)\" title=\"查看全部评分\"> 参与人数 <span class=\"xi1\">1</span></a></th>\r\n<th class=\"xw1\" width=\"80\">金钱 <i><span class=\"xi1\">+5</span></i></th>\r\n<th>\r\n<a href=\"javascript:;\" onclick=\"toggleRatelogCollapse('ratelog_{pid}', this);\" class=\"y xi2 op\">收起</a>\r\n<i class=\"txt_h\">理由</i>\r\n</th>\r\n</tr>\r\n<tbody class=\"ratl_l\"><tr id=\"rate_{pid}_{uid}\">\r\n<td>\r\n<a href=\"home.php?mod=space&uid={uid}\" target=\"_blank\"><img src=\"uc_server/avatar.php?uid={uid}&size=small\" /></a> <a href=\"home.php?mod=space&uid={uid}\" target=\"_blank\">{name}</a>\r\n</td>\r\n<td class=\"xi1\"> + 5</td>\r\n<td class=\"xg1\">分析到位</td>\r\n</tr>\r\n</tbody>\r\n</table>\r\n<p class=\"ratc\">\r\n<a href=\"forum.php?mod=misc&action=viewratings&tid={tid}&pid={pid}\" onclick=\"showWindow('viewratings', this.href)\" title=\"查看全部评分\" class=\"xi2\">查看全部评分</a>\r\n</p>\r\n</dd>\r\n</dl>\r\n"
    )
}
