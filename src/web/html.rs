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
}

const STYLE: &str = "
body{font-family:system-ui,'PingFang SC','Noto Sans CJK SC','Microsoft YaHei',sans-serif;margin:0;background:#f4f4f2;color:#222}
header.top{display:flex;flex-wrap:wrap;gap:.6em 1.2em;align-items:center;padding:.6em 1em;background:#2d3e50;color:#fff}
header.top a{color:#fff;text-decoration:none;padding:.2em .5em;border-radius:4px}
header.top a.on{background:#4a6178}
header.top .who{margin-left:auto;font-size:.9em;opacity:.9}
header.top form{display:inline;margin:0}
main{padding:1em;display:grid;gap:1em}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(22em,1fr));gap:1em}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:.6em 1em;overflow:auto}
h2{font-size:1.1em;margin:.3em 0 .6em}
h3{font-size:1em;margin:.8em 0 .4em}
pre{white-space:pre-wrap;word-break:break-word;background:#fafafa;border:1px solid #eee;padding:.5em;margin:.3em 0;font-size:.9em}
.bb{margin:.5em 0}.bbhead{display:flex;justify-content:space-between;align-items:center;font-size:.9em;color:#555}
button{cursor:pointer;padding:.25em .7em;border:1px solid #888;border-radius:4px;background:#f0f0f0}
button.confirm{background:#e9f4ea;border-color:#5a8f5e}button.dismiss{background:#f4ecec;border-color:#a66}
table{border-collapse:collapse;font-size:.9em}td,th{border-bottom:1px solid #eee;padding:.2em .6em;text-align:left}
.bad{color:#b00020}.ok{color:#2e7d32}.muted{color:#777;font-size:.9em}
.error{color:#b00020;background:#fdecea;padding:.5em;border-radius:4px}
.flash{background:#e8f0fe;padding:.5em 1em;border-radius:4px}
article.flag{border-top:1px solid #ddd;padding:.6em 0}
article.flag .post{white-space:pre-wrap;word-break:break-word;background:#fbfbf5;border-left:3px solid #c9b458;padding:.4em .6em;margin:.4em 0}
mark{background:#ffe066}
.actions{display:flex;flex-wrap:wrap;gap:.4em;align-items:center}.actions form{margin:0}
.days a{margin-right:.6em}
";

const SCRIPT: &str = r#"(function(){
var body=document.body, ms=(+body.dataset.poll||3)*1000, ver=body.dataset.version;
document.addEventListener('click',function(e){
  var b=e.target.closest&&e.target.closest('button.copy'); if(!b) return;
  var pre=b.closest('.bb').querySelector('pre'), t=pre.textContent;
  var done=function(){b.textContent='已复制';setTimeout(function(){b.textContent='复制';},1500);};
  var fallback=function(){var r=document.createRange();r.selectNodeContents(pre);var s=getSelection();s.removeAllRanges();s.addRange(r);try{document.execCommand('copy');}catch(_){}done();};
  if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(t).then(done,fallback);}else{fallback();}
});
function refresh(){
  var parts=document.querySelectorAll('[data-src]'), jobs=[];
  parts.forEach(function(s){
    jobs.push(fetch(s.dataset.src,{cache:'no-store',credentials:'same-origin'}).then(function(r){
      if(r.ok) return r.text().then(function(h){s.innerHTML=h;});
    }));
  });
  return Promise.all(jobs);
}
function poll(){
  fetch('/api/version',{cache:'no-store',credentials:'same-origin'}).then(function(r){
    if(r.status===401){location.href='/login';return;}
    if(!r.ok) return;
    return r.json().then(function(j){
      if(j.version!==ver){
        var v=j.version;
        return refresh().then(function(){ver=v;body.dataset.version=v;
          var l=document.getElementById('live');if(l) l.textContent='已更新 '+new Date().toLocaleTimeString();});
      }
    });
  }).catch(function(){}).then(function(){setTimeout(poll,ms);});
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
        "<body data-version=\"{}\" data-poll=\"{}\" data-role=\"{}\"><header class=\"top\"><strong>{}</strong>",
        esc(p.version),
        p.poll_secs,
        esc(p.role),
        esc(p.game)
    );
    for (key, href, label) in nav {
        let on = if key == p.active { " class=\"on\"" } else { "" };
        let _ = write!(s, "<a href=\"{href}\"{on}>{label}</a>");
    }
    let _ = write!(
        s,
        "<span class=\"who\">{} · <span id=\"live\" class=\"muted\">实时</span> <form method=\"post\" action=\"/logout\"><input type=\"hidden\" name=\"csrf\" value=\"{}\"><button type=\"submit\">退出</button></form></span></header><main>",
        esc(p.who),
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

/// The login form (no session yet).
pub fn login_page(game: &str, nonce: &str, message: Option<&str>) -> String {
    let msg = message
        .map(|m| format!("<p class=\"error\">{}</p>", esc(m)))
        .unwrap_or_default();
    format!(
        "<!doctype html><html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>登录 — {g}</title><style nonce=\"{n}\">{STYLE}</style></head><body><main><section class=\"card\"><h2>{g}</h2>{msg}<form method=\"post\" action=\"/login\"><p><label>令牌（导演或版主）<br><input type=\"password\" name=\"token\" autocomplete=\"current-password\" required size=\"40\"></label></p><p><label>你的名字（记录在判罚上，可不填）<br><input type=\"text\" name=\"name\" maxlength=\"40\" size=\"20\"></label></p><p><button type=\"submit\">登录</button></p></form></section></main></body></html>",
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
