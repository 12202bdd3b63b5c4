//! HTML pieces: escaping, the page layout, the little script. Every string that reaches
//! the page goes through [`esc`] (text and attribute values alike); nothing here knows a
//! rule.

use std::fmt::Write as _;

/// Escape for HTML text and double- or single-quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// A BBCode (or plain-text) block to paste into the forum, with its copy button.
pub fn copy_block(title: &str, text: &str) -> String {
    format!(
        "<div class=\"bb\"><div class=\"bbhead\"><span>{}</span><button type=\"button\" class=\"copy\">复制</button></div><pre class=\"bbcode\">{}</pre></div>",
        esc(title),
        esc(text.trim_end())
    )
}

/// A text block for reading (the director's notes), no copy button.
pub fn pre(text: &str) -> String {
    format!("<pre>{}</pre>", esc(text.trim_end()))
}

/// An error in place of a section: what the command would have said.
pub fn error_box(msg: &str) -> String {
    format!("<p class=\"error\">{}</p>", esc(msg))
}

/// A section the script refreshes from `src` when the store changes.
pub fn live_section(id: &str, title: &str, src: &str, inner: &str) -> String {
    format!(
        "<section id=\"{}\" class=\"card\"><h2>{}</h2><div class=\"live\" data-src=\"{}\">{inner}</div></section>",
        esc(id),
        esc(title),
        esc(src)
    )
}

pub struct Page<'a> {
    pub title: &'a str,
    pub game: &'a str,
    /// The nav entry to highlight (`day`, `flags`, `game`).
    pub active: &'a str,
    pub role: &'a str,
    pub who: &'a str,
    pub csrf: &'a str,
    pub version: &'a str,
    pub poll_secs: u64,
    pub nonce: &'a str,
    pub flash: Option<&'a str>,
    /// The game's timezone (every time on the page is in it).
    pub tz: &'a str,
}

/// A wide table in a box that scrolls sideways on its own (the page never does).
pub fn scroll_table(table: &str) -> String {
    format!("<div class=\"scroll\">{table}</div>")
}

/// The days of the game, the one shown in bold.
pub fn day_nav(cfg: &crate::config::Config, day: Option<u32>) -> String {
    let mut days: Vec<u32> = cfg.days.iter().map(|d| d.number).collect();
    days.sort();
    let mut s = String::from("<nav class=\"days\">");
    for n in days {
        if Some(n) == day {
            let _ = write!(s, "<strong>第{n}天</strong> ");
        } else {
            let _ = write!(s, "<a href=\"/day?day={n}\">第{n}天</a> ");
        }
    }
    s.push_str("</nav>");
    s
}

const STYLE: &str = "
*{box-sizing:border-box}
body{font-family:system-ui,'PingFang SC','Noto Sans CJK SC','Microsoft YaHei',sans-serif;margin:0;background:#f4f4f2;color:#222;overflow-wrap:anywhere}
header.top{display:flex;flex-wrap:wrap;gap:.4em 1em;align-items:center;padding:.5em 1em;background:#2d3e50;color:#fff}
header.top a{color:#fff;text-decoration:none;padding:.3em .6em;border-radius:4px;white-space:nowrap}
header.top a.on{background:#4a6178}
header.top .who{margin-left:auto;font-size:.9em}
header.top form{display:inline;margin:0}
#live.bad{color:#ffb4b4;font-weight:bold}
main{padding:1em;display:grid;gap:1em;max-width:100%}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(22em,100%),1fr));gap:1em}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.6em 1em;min-width:0}
h2{font-size:1.1em;margin:.3em 0 .6em}
h3{font-size:1em;margin:.8em 0 .4em}
pre{white-space:pre-wrap;word-break:break-word;background:#fafafa;border:1px solid #eee;padding:.5em;margin:.3em 0;font-size:.9em;font-family:'Sarasa Mono SC','Noto Sans Mono CJK SC',ui-monospace,monospace}
.bb{margin:.5em 0}.bbhead{display:flex;justify-content:space-between;align-items:center;font-size:.9em;color:#555}
button{cursor:pointer;padding:.3em .8em;border:1px solid #888;border-radius:4px;background:#f0f0f0;font:inherit;min-height:2em}
button.confirm{background:#e9f4ea;border-color:#5a8f5e}button.dismiss{background:#f4ecec;border-color:#a66}
button.danger{background:#fbe3e3;border-color:#b00020;color:#b00020}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:.9em}td,th{border-bottom:1px solid #eee;padding:.25em .6em;text-align:left;vertical-align:top}
td:first-child,td.name,#ledger td:first-child,#posts td:nth-child(2){white-space:nowrap}
.bad{color:#b00020}.ok{color:#2e7d32}.muted{color:#666;font-size:.9em}
.interim{color:#8a5a00;background:#fff4d6;padding:.2em .5em;border-radius:4px}
.error{color:#b00020;background:#fdecea;padding:.5em;border-radius:4px}
.flash{background:#e8f0fe;padding:.5em 1em;border-radius:4px}
.answer:empty{display:none}.answer{background:#e8f0fe;padding:.4em .8em;border-radius:4px}.answer.bad{background:#fdecea}
article.flag{border-top:1px solid #ddd;padding:.6em .3em;scroll-margin-top:1em}
article.flag:focus,article.flag.current{outline:3px solid #4a6178;outline-offset:2px}
article.flag .post{white-space:pre-wrap;word-break:break-word;background:#fbfbf5;border-left:3px solid #c9b458;padding:.4em .6em;margin:.4em 0}
.fhead .author{white-space:nowrap;font-weight:bold}
.tag{display:inline-block;font-size:.85em;border:1px solid #ccc;border-radius:3px;padding:0 .4em;margin-right:.3em}
.tag.warn{border-color:#c77;color:#a33}
.swatch{display:inline-block;width:1em;height:1em;vertical-align:middle;border:1px solid #999}
mark{background:#ffe066;padding:0 .1em}
.actions{display:flex;flex-wrap:wrap;gap:.5em;align-items:center}.actions form{margin:0;display:flex;flex-wrap:wrap;gap:.5em;align-items:center}
.dismiss-form{margin-left:auto!important}
.ask{background:#fff3f3;border:1px solid #b00020;border-radius:4px;padding:.5em;margin:.4em 0}
.ask p{margin:0 0 .5em}
div.aligned p{margin:.4em 0 .2em;font-weight:bold}table.report td{white-space:nowrap}
dl.status{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em;margin:0}dl.status dt{color:#555}dl.status dd{margin:0}
.days a{margin-right:.6em;white-space:nowrap}
label.wl{display:inline-flex;align-items:center;gap:.3em}
input[type=checkbox]{width:1.2em;height:1.2em}
@media (max-width:600px){
 main{padding:.5em;gap:.6em}
 .card{padding:.5em .6em}
 button{min-height:44px;padding:.4em .9em}
 input[type=checkbox]{width:24px;height:24px}
 label.wl{min-height:44px}
 .actions{gap:.6em}
 .dismiss-form{margin-left:0!important;width:100%;justify-content:space-between;border-top:1px dashed #ddd;padding-top:.5em}
 header.top{padding:.4em .5em}
 header.top a{padding:.5em .5em}
 .keys{display:none}
}
";

/// The page's one script: copy buttons, decisions answered in place (a destructive one
/// asks first), keyboard shortcuts, the countdown, and the live refresh that replaces a
/// section only when its HTML changed, keeping what the reader opened, ticked, focused
/// and where they are.
const SCRIPT: &str = r#"(function(){
var body=document.body, ms=(+body.dataset.poll||3)*1000, ver=body.dataset.version;
var live=document.getElementById('live');
function say(t,bad){if(live){live.textContent=t;live.className=bad?'bad':'muted';}}
function paint(root){(root||document).querySelectorAll('[data-colour]').forEach(function(e){
  if(e.classList.contains('swatch')) e.style.background=e.dataset.colour; else e.style.color=e.dataset.colour;});}
paint();
document.addEventListener('click',function(e){
  var b=e.target.closest&&e.target.closest('button.copy'); if(!b) return;
  var pre=b.closest('.bb').querySelector('pre'), t=pre.textContent;
  var done=function(){b.textContent='已复制';setTimeout(function(){b.textContent='复制';},1500);};
  var fallback=function(){var r=document.createRange();r.selectNodeContents(pre);var s=getSelection();s.removeAllRanges();s.addRange(r);try{document.execCommand('copy');}catch(_){}done();};
  if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(t).then(done,fallback);}else{fallback();}
});
function answerBox(form){var a=form.closest('article,section');return a&&a.querySelector('.answer');}
function show(form,msg,bad){
  var box=answerBox(form)||document.getElementById('answer');
  if(!box){box=document.createElement('p');box.id='answer';box.className='answer';box.setAttribute('role','status');document.querySelector('main').prepend(box);}
  box.textContent=msg;box.classList.toggle('bad',!!bad);
}
function send(form,sure){
  var data=new URLSearchParams(new FormData(form));if(sure) data.set('sure','1');
  form.querySelectorAll('button').forEach(function(b){b.disabled=true;});
  return fetch(form.action,{method:'POST',credentials:'same-origin',headers:{'Accept':'application/json','X-CSRF-Token':body.dataset.csrf||''},body:data})
   .then(function(r){return r.json().catch(function(){return {ok:false,message:'出错了（'+r.status+'）'};});})
   .then(function(j){
     form.querySelectorAll('button').forEach(function(b){b.disabled=false;});
     var art=form.closest('article');
     show(form,j.message,!j.ok);
     if(j.ok){ if(art) art.dataset.answered='1'; return refresh(true).then(function(){
       if(art){var again=document.getElementById(art.id); var box=again&&again.querySelector('.answer'); if(box){box.textContent=j.message;}}
     });}
   },function(){form.querySelectorAll('button').forEach(function(b){b.disabled=false;});show(form,'连不上服务器，什么也没有改。',true);});
}
function ask(form){
  var old=form.parentNode.querySelector('.ask'); if(old) old.remove();
  var box=document.createElement('div');box.className='ask';box.setAttribute('role','alertdialog');
  var p=document.createElement('p');p.textContent=form.dataset.confirm;box.appendChild(p);
  var yes=document.createElement('button');yes.type='button';yes.className='danger yes';yes.textContent='确定';
  var no=document.createElement('button');no.type='button';no.className='no';no.textContent='取消';
  box.appendChild(yes);box.appendChild(document.createTextNode(' '));box.appendChild(no);
  var host=form.closest('.actions')||form; host.parentNode.insertBefore(box,host.nextSibling);
  yes.addEventListener('click',function(){box.remove();send(form,true);});
  no.addEventListener('click',function(){box.remove();var b=form.querySelector('button');if(b)b.focus();});
  no.focus();
}
document.addEventListener('submit',function(e){
  var form=e.target; if(!form.classList||!form.classList.contains('decide')) return;
  e.preventDefault();
  if(form.dataset.confirm) ask(form); else send(form,false);
});
// Keyboard: j/k next/previous flag, c confirm as suggested, x dismiss, Enter on 确定.
function flagsList(){return Array.prototype.slice.call(document.querySelectorAll('#flags article.flag[data-open=true]'));}
var cur=null;
function go(d){var l=flagsList(); if(!l.length) return; var i=cur?l.findIndex(function(a){return a.id===cur;}):-1;
  i=Math.max(0,Math.min(l.length-1,i+d)); if(i<0) i=0; var a=l[i]; cur=a.id;
  document.querySelectorAll('article.flag.current').forEach(function(x){x.classList.remove('current');});
  a.classList.add('current'); a.focus(); a.scrollIntoView({block:'nearest'});}
document.addEventListener('keydown',function(e){
  if(e.ctrlKey||e.metaKey||e.altKey) return;
  var t=e.target; if(t&&(t.tagName==='INPUT'||t.tagName==='TEXTAREA'||t.isContentEditable)) return;
  var a=cur&&document.getElementById(cur);
  if(e.key==='j'){go(1);e.preventDefault();}
  else if(e.key==='k'){go(-1);e.preventDefault();}
  else if(e.key==='c'&&a){var b=a.querySelector('button[data-suggested]');if(b){b.click();e.preventDefault();}}
  else if(e.key==='x'&&a){var d=a.querySelector('button.dismiss');if(d){d.click();e.preventDefault();}}
});
// Countdown to 关门, from the server's seconds left.
var cd=document.getElementById('countdown'), t0=Date.now();
function fmt(s){s=Math.max(0,s|0);var h=(s/3600)|0,m=((s%3600)/60)|0;return (h?h+'小时':'')+(h||m?m+'分':'')+(s%60)+'秒';}
function tick(){if(!cd||!cd.isConnected){cd=document.getElementById('countdown');t0=Date.now();if(!cd)return;}
  cd.textContent=fmt(+cd.dataset.left-(Date.now()-t0)/1000);}
setInterval(tick,1000);
// Live refresh: a section is replaced only when its HTML changed; what the reader
// opened, ticked or typed, the focus and the scroll position survive.
var last={};
document.querySelectorAll('[data-src]').forEach(function(s){last[s.dataset.src]=s.innerHTML;});
function keep(s){
  var st={open:[],checked:[],values:{},focus:null,scroll:window.scrollY};
  s.querySelectorAll('details[open]').forEach(function(d){var k=d.id||(d.closest('[id]')||{}).id+' '+(d.querySelector('summary')||{}).textContent;st.open.push(k);});
  s.querySelectorAll('input[type=checkbox]:checked').forEach(function(i){st.checked.push(i.closest('form').action+' '+i.name);});
  s.querySelectorAll('input[type=text]').forEach(function(i){st.values[i.name]=i.value;});
  var f=document.activeElement; if(f&&s.contains(f)){var a=f.closest('[id]');st.focus={id:a&&a.id,tag:f.tagName,text:f.textContent};}
  // The reader's place: the first flag or section still in view, and where it is.
  [document.querySelectorAll('article.flag[id]'),document.querySelectorAll('section[id]')].some(function(els){
    for(var i=0;i<els.length;i++){var r=els[i].getBoundingClientRect(); if(r.bottom>48){st.anchor={id:els[i].id,top:r.top};return true;}}
    return false;});
  return st;
}
function restore(s,st){
  s.querySelectorAll('details').forEach(function(d){var k=d.id||(d.closest('[id]')||{}).id+' '+(d.querySelector('summary')||{}).textContent;
    if(st.open.indexOf(k)>=0) d.open=true;});
  s.querySelectorAll('input[type=checkbox]').forEach(function(i){if(st.checked.indexOf(i.closest('form').action+' '+i.name)>=0) i.checked=true;});
  s.querySelectorAll('input[type=text]').forEach(function(i){if(i.name in st.values) i.value=st.values[i.name];});
  if(st.focus&&st.focus.id){var a=document.getElementById(st.focus.id);if(a){var el=a;a.querySelectorAll(st.focus.tag).forEach(function(x){if(x.textContent===st.focus.text) el=x;});el.focus({preventScroll:true});}}
  if(cur){var c=document.getElementById(cur);if(c)c.classList.add('current');}
  paint(s);
  var an=st.anchor&&document.getElementById(st.anchor.id);
  if(an) window.scrollBy(0,an.getBoundingClientRect().top-st.anchor.top); else window.scrollTo(0,st.scroll);
}
function refresh(){
  var jobs=[];
  document.querySelectorAll('[data-src]').forEach(function(s){
    jobs.push(fetch(s.dataset.src,{cache:'no-store',credentials:'same-origin'}).then(function(r){
      if(r.status===401){location.href='/login';return;}
      if(r.ok) return r.text().then(function(h){
        if(last[s.dataset.src]===h) return;
        var st=keep(s); s.innerHTML=h; last[s.dataset.src]=h; restore(s,st);
      });
    }));
  });
  return Promise.all(jobs);
}
function poll(){
  fetch('/api/version',{cache:'no-store',credentials:'same-origin'}).then(function(r){
    if(r.status===401){location.href='/login';return;}
    if(!r.ok){say('服务器出错（'+r.status+'）',true);return;}
    return r.json().then(function(j){
      if(j.version!==ver){var v=j.version;
        return refresh().then(function(){ver=v;body.dataset.version=v;say('已更新 '+new Date().toLocaleTimeString('zh-CN',{hour12:false}));});}
      say('在线 · 已检查 '+new Date().toLocaleTimeString('zh-CN',{hour12:false}));
    });
  }).catch(function(){say('连不上服务器：页面上的数据可能过时',true);}).then(function(){setTimeout(poll,ms);});
}
setTimeout(poll,ms);
})();"#;

/// The whole page around `content` (already HTML).
pub fn page(p: &Page<'_>, content: &str) -> String {
    let mut s = String::new();
    let nav = [
        ("day", "/day", "今日"),
        ("flags", "/flags", "违规与判罚"),
        ("game", "/game", "局势与夜晚"),
    ];
    let _ = write!(
        s,
        "<!doctype html><html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{} — {}</title><style nonce=\"{}\">{STYLE}</style></head>",
        esc(p.title),
        esc(p.game),
        esc(p.nonce)
    );
    let _ = write!(
        s,
        "<body data-version=\"{}\" data-poll=\"{}\" data-role=\"{}\" data-csrf=\"{}\"><header class=\"top\"><strong>{}</strong>",
        esc(p.version),
        p.poll_secs,
        esc(p.role),
        esc(p.csrf),
        esc(p.game)
    );
    for (key, href, label) in nav {
        let on = if key == p.active { " class=\"on\"" } else { "" };
        let _ = write!(s, "<a href=\"{href}\"{on}>{label}</a>");
    }
    let _ = write!(
        s,
        "<span class=\"who\">{} · 时区 {} · <span id=\"live\" class=\"muted\">在线</span> <form method=\"post\" action=\"/logout\"><input type=\"hidden\" name=\"csrf\" value=\"{}\"><button type=\"submit\">退出</button></form></span></header><main>",
        esc(p.who),
        esc(p.tz),
        esc(p.csrf)
    );
    if let Some(f) = p.flash {
        let _ = write!(s, "<p class=\"flash\" id=\"flash\">{}</p>", esc(f));
    }
    s.push_str(content);
    let _ = write!(
        s,
        "</main><script nonce=\"{}\">{SCRIPT}</script></body></html>",
        esc(p.nonce)
    );
    s
}

/// A refusal or error as a page of its own: the message and a way back.
pub fn refusal_page(msg: &str, back: &str, nonce: &str) -> String {
    format!(
        "<!doctype html><html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>未完成</title><style nonce=\"{n}\">{STYLE}</style></head><body><main><section class=\"card\"><h2>未完成</h2><p class=\"error\" id=\"refusal\">{m}</p><p><a href=\"{b}\" id=\"back\">← 返回</a></p></section></main></body></html>",
        n = esc(nonce),
        m = esc(msg),
        b = esc(back),
    )
}

/// A destructive decision asked without the script: the question, and a form that sends
/// it again confirmed.
pub fn confirm_page(
    msg: &str,
    action: &str,
    fields: &[(&str, &str)],
    back: &str,
    nonce: &str,
) -> String {
    let hidden: String = fields
        .iter()
        .map(|(k, v)| {
            format!(
                "<input type=\"hidden\" name=\"{}\" value=\"{}\">",
                esc(k),
                esc(v)
            )
        })
        .collect();
    format!(
        "<!doctype html><html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>请确认</title><style nonce=\"{n}\">{STYLE}</style></head><body><main><section class=\"card\"><h2>请确认</h2><p class=\"ask\">{m}</p><form method=\"post\" action=\"{a}\">{hidden}<input type=\"hidden\" name=\"sure\" value=\"1\"><button type=\"submit\" class=\"danger\">确定</button> <a href=\"{b}\">取消，返回</a></form></section></main></body></html>",
        n = esc(nonce),
        m = esc(msg),
        a = esc(action),
        b = esc(back),
    )
}

/// The login form (no session yet).
pub fn login_page(game: &str, nonce: &str, message: Option<&str>) -> String {
    let msg = message
        .map(|m| format!("<p class=\"error\">{}</p>", esc(m)))
        .unwrap_or_default();
    format!(
        "<!doctype html><html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>登录 — {g}</title><style nonce=\"{n}\">{STYLE}</style></head><body><main><section class=\"card\"><h2>{g}</h2>{msg}<form method=\"post\" action=\"/login\"><p><label>令牌（导演或版主）<br><input type=\"password\" name=\"token\" autocomplete=\"current-password\" required size=\"40\"></label></p><p><label>你的名字（记录在判罚上，可不填；最多 16 字，身份由令牌决定，不用写“导演”“版主”）<br><input type=\"text\" name=\"name\" maxlength=\"16\" size=\"20\"></label></p><p><button type=\"submit\">登录</button></p></form></section></main></body></html>",
        g = esc(game),
        n = esc(nonce),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esc_neutralises_markup_in_text_and_attributes() {
        let e = esc("<script>alert('x')</script>\"&");
        assert_eq!(
            e,
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;"
        );
        let b = copy_block("t", "<img src=x onerror=alert(1)>[b]x[/b]");
        assert!(!b.contains("<img"), "{b}");
        assert!(b.contains("[b]x[/b]"), "BBCode itself stays as text: {b}");
    }
}
