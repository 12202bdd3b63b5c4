//! The fixture description a test forum is started from (`ForumSpec`), loadable from TOML.

use std::collections::HashSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::model::Timestamp;
use crate::time;
use crate::tomlfile::{FileError, load_toml, parse_toml};

/// Everything the test forum serves at start-up. Unknown keys are rejected.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForumSpec {
    #[serde(default)]
    pub site: SiteSpec,
    #[serde(default, rename = "forum")]
    pub forums: Vec<ForumInfo>,
    #[serde(default, rename = "user")]
    pub users: Vec<UserSpec>,
    #[serde(default, rename = "thread")]
    pub threads: Vec<ThreadSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum SiteCharset {
    #[default]
    #[serde(rename = "utf-8")]
    Utf8,
    #[serde(rename = "gbk")]
    Gbk,
}

impl SiteCharset {
    /// As in the header script (`charset = 'gbk'`) and HTTP header.
    pub fn lower(self) -> &'static str {
        match self {
            SiteCharset::Utf8 => "utf-8",
            SiteCharset::Gbk => "gbk",
        }
    }
    /// As in the API `Charset` field.
    pub fn upper(self) -> &'static str {
        match self {
            SiteCharset::Utf8 => "UTF-8",
            SiteCharset::Gbk => "GBK",
        }
    }
    pub fn encoding(self) -> &'static encoding_rs::Encoding {
        match self {
            SiteCharset::Utf8 => encoding_rs::UTF_8,
            SiteCharset::Gbk => encoding_rs::GBK,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Version {
    #[default]
    #[serde(rename = "X3.4")]
    X34,
    #[serde(rename = "X3.5")]
    X35,
}

impl Version {
    pub fn as_str(self) -> &'static str {
        match self {
            Version::X34 => "X3.4",
            Version::X35 => "X3.5",
        }
    }
}

/// How floors are numbered once a reply has been deleted (MARKUP 4.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FloorMode {
    /// Index among visible posts; a deletion shifts every later floor (stock X3.4 after a hole).
    #[default]
    Sequential,
    /// Stored positions; a deleted floor renders as the `无效楼层，该帖已经被删除` placeholder.
    Position,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SiteSpec {
    /// 站点名, shown in titles and the breadcrumb.
    pub name: String,
    pub charset: SiteCharset,
    pub version: Version,
    /// PC posts per page.
    pub ppp: u32,
    /// Default posts per page of the mobile API (X3.4: 5, X3.5: 10 when unset).
    pub api_ppp: Option<u32>,
    /// A guard that caps the API's `ppp` parameter (the stock plugin has no upper limit);
    /// the answer's `ppp` shows the capped value.
    pub api_ppp_max: Option<u32>,
    /// The mobile API is switched off: every module answers `{"error":"mobile_is_closed"}`.
    pub api_closed: bool,
    /// Custom floor names, index 0 = first post (`["楼主","沙发","板凳","地板"]`).
    pub floor_names: Vec<String>,
    /// Floor suffix (`#` or e.g. `楼`).
    pub floor_suffix: String,
    /// URL rewriting (伪静态) on: links use `thread-T-P-1.html`.
    pub rewrite: bool,
    /// 人性化时间格式 (relative times).
    pub human_time: bool,
    /// Configured cookie prefix; the effective one (`cookiepre`) is this plus `2132_`.
    pub cookie_prefix: String,
    /// Guests get `viewperm_login_nopermission` instead of thread pages.
    pub login_required: bool,
    pub floor_mode: FloorMode,
    /// Insert 干扰码 into every post.
    pub jammer: bool,
    /// The server's clock (`YYYY-MM-DD HH:MM[:SS]`, Asia/Shanghai); default: the latest post.
    pub now: Option<String>,
    /// The first pid handed out; pids grow monotonically in thread order.
    pub first_pid: u64,
    /// 隐藏灌水帖: replies shorter than 10 characters render with `display:none;`.
    pub hide_water: bool,
}

impl Default for SiteSpec {
    fn default() -> Self {
        SiteSpec {
            name: "版杀测试论坛".into(),
            charset: SiteCharset::Utf8,
            version: Version::X34,
            ppp: 10,
            api_ppp: None,
            api_ppp_max: None,
            api_closed: false,
            floor_names: Vec::new(),
            floor_suffix: "#".into(),
            rewrite: false,
            human_time: true,
            cookie_prefix: "B7Y9_".into(),
            login_required: false,
            floor_mode: FloorMode::Sequential,
            jammer: false,
            now: None,
            first_pid: 100001,
            hide_water: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForumInfo {
    pub fid: u64,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserSpec {
    pub uid: u64,
    pub name: String,
    /// Needed to log in through the login endpoints; without it login fails.
    #[serde(default)]
    pub password: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThreadSpec {
    pub tid: u64,
    pub fid: u64,
    pub subject: String,
    #[serde(default, rename = "post")]
    pub posts: Vec<PostSpec>,
}

impl ThreadSpec {
    /// Thread `tid` on board 2 (see [`ForumSpec::board_of`]): `posts` posts by `names` in
    /// turn, a minute apart from 2026-03-01 00:00 (up to nine days' worth), post `i` saying
    /// `message(i)`.
    pub fn minute_by_minute(
        tid: u64,
        subject: &str,
        names: &[&str],
        posts: usize,
        message: impl Fn(usize) -> String,
    ) -> ThreadSpec {
        ThreadSpec {
            tid,
            fid: 2,
            subject: subject.into(),
            posts: (0..posts)
                .map(|i| {
                    let at = format!(
                        "2026-03-0{} {:02}:{:02}",
                        1 + i / 1440,
                        (i / 60) % 24,
                        i % 60
                    );
                    PostSpec::new(names[i % names.len()], &at, &message(i))
                })
                .collect(),
        }
    }
}

/// Why a post's body is replaced by `div.locked` (MARKUP 3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Lock {
    /// Author banned: `作者被禁止或删除 内容自动屏蔽`.
    Banned,
    /// Hidden by a moderator: `该帖被管理员或版主屏蔽`.
    Blocked,
    /// `此帖仅作者可见`.
    AuthorOnly,
    /// Password post.
    Password,
    /// Awaiting moderation: `待审核`.
    Pending,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostSpec {
    /// A user name from `[[user]]`.
    pub author: String,
    /// `YYYY-MM-DD HH:MM[:SS]`, Asia/Shanghai.
    pub time: String,
    /// BBCode subset: `[quote] [color=] [size=] [b] [hide] [url=]`, newlines.
    #[serde(default)]
    pub message: String,
    /// Quote this floor (1-based position in this thread) with the real quote header.
    #[serde(default)]
    pub reply_to: Option<u32>,
    /// Pinned reply (置顶回复, 顶).
    #[serde(default)]
    pub sticky: bool,
    /// Hot reply (推荐).
    #[serde(default)]
    pub recommend: bool,
    #[serde(default)]
    pub locked: Option<Lock>,
    /// 干扰码 in this post (the site-wide switch also applies).
    #[serde(default)]
    pub jammer: bool,
    /// Edited by its author at this time (`本帖最后由 … 编辑` when more than 60 s later).
    #[serde(default)]
    pub edited: Option<String>,
    /// Already deleted when the forum starts.
    #[serde(default)]
    pub deleted: bool,
}

impl PostSpec {
    pub fn new(author: &str, time: &str, message: &str) -> Self {
        PostSpec {
            author: author.into(),
            time: time.into(),
            message: message.into(),
            reply_to: None,
            sticky: false,
            recommend: false,
            locked: None,
            jammer: false,
            edited: None,
            deleted: false,
        }
    }
}

pub(crate) fn shanghai() -> chrono_tz::Tz {
    chrono_tz::Asia::Shanghai
}

pub(crate) fn parse_time(s: &str) -> Option<Timestamp> {
    time::parse_local(s, shanghai())
}

impl ForumSpec {
    /// A site for long-thread runs (benches, request counts): machine times
    /// (`human_time = false`), the forum's clock at `now`, the users `names` with uids from
    /// `first_uid`, and one board (fid 2, 版杀). Threads are the caller's.
    pub fn board_of(now: &str, names: &[&str], first_uid: u64) -> ForumSpec {
        let mut s = ForumSpec::default();
        s.site.human_time = false;
        s.site.now = Some(now.into());
        s.users = names
            .iter()
            .zip(first_uid..)
            .map(|(n, uid)| UserSpec {
                uid,
                name: n.to_string(),
                password: None,
            })
            .collect();
        s.forums = vec![ForumInfo {
            fid: 2,
            name: "版杀".into(),
        }];
        s
    }

    /// Parse a spec from TOML text (`file` names it in errors).
    pub fn parse(file: &Path, text: &str) -> Result<ForumSpec, FileError> {
        let spec: ForumSpec = parse_toml(file, text)?;
        spec.validate()
            .map_err(|(key, msg)| FileError::new(file, key, msg))?;
        Ok(spec)
    }

    /// Load and validate a spec file.
    pub fn load(file: &Path) -> Result<ForumSpec, FileError> {
        let spec: ForumSpec = load_toml(file)?;
        spec.validate()
            .map_err(|(key, msg)| FileError::new(file, key, msg))?;
        Ok(spec)
    }

    /// Check cross-references: returns `(key, message)` for the first problem.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let s = &self.site;
        if s.ppp == 0 {
            return Err(("site.ppp".into(), "must be at least 1".into()));
        }
        if s.api_ppp == Some(0) {
            return Err(("site.api_ppp".into(), "must be at least 1".into()));
        }
        if s.api_ppp_max == Some(0) {
            return Err(("site.api_ppp_max".into(), "must be at least 1".into()));
        }
        if let Some(now) = &s.now
            && parse_time(now).is_none()
        {
            return Err((
                "site.now".into(),
                format!("`{now}` is not a time (want YYYY-MM-DD HH:MM[:SS])"),
            ));
        }
        let mut uids = HashSet::new();
        let mut names = HashSet::new();
        for (i, u) in self.users.iter().enumerate() {
            if u.uid == 0 {
                return Err((format!("user[{i}].uid"), "uid 0 means guest".into()));
            }
            if !uids.insert(u.uid) {
                return Err((format!("user[{i}].uid"), format!("duplicate uid {}", u.uid)));
            }
            if !names.insert(u.name.as_str()) {
                return Err((
                    format!("user[{i}].name"),
                    format!("duplicate user name `{}`", u.name),
                ));
            }
        }
        let mut tids = HashSet::new();
        for (ti, t) in self.threads.iter().enumerate() {
            if !tids.insert(t.tid) {
                return Err((
                    format!("thread[{ti}].tid"),
                    format!("duplicate tid {}", t.tid),
                ));
            }
            if t.posts.is_empty() {
                return Err((
                    format!("thread[{ti}].post"),
                    "a thread needs at least its first post".into(),
                ));
            }
            for (pi, p) in t.posts.iter().enumerate() {
                let key = |k: &str| format!("thread[{ti}].post[{pi}].{k}");
                if !names.contains(p.author.as_str()) {
                    return Err((
                        key("author"),
                        format!("unknown user `{}` (add it to [[user]])", p.author),
                    ));
                }
                if parse_time(&p.time).is_none() {
                    return Err((
                        key("time"),
                        format!("`{}` is not a time (want YYYY-MM-DD HH:MM[:SS])", p.time),
                    ));
                }
                if let Some(e) = &p.edited
                    && parse_time(e).is_none()
                {
                    return Err((
                        key("edited"),
                        format!("`{e}` is not a time (want YYYY-MM-DD HH:MM[:SS])"),
                    ));
                }
                if let Some(r) = p.reply_to
                    && (r == 0 || r as usize > pi)
                {
                    return Err((
                        key("reply_to"),
                        format!("floor {r} is not an earlier post of this thread"),
                    ));
                }
                if pi == 0 && p.deleted {
                    return Err((key("deleted"), "the first post cannot be deleted".into()));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_unknown_keys_and_names_the_key() {
        let e = ForumSpec::parse(Path::new("f.toml"), "[site]\nppq = 3\n").unwrap_err();
        assert!(e.to_string().contains("f.toml:2"), "{e}");
        assert!(e.to_string().contains("ppq"), "{e}");
    }

    #[test]
    fn rejects_unknown_author_with_its_key() {
        let text = r#"
[[user]]
uid = 1
name = "甲"
[[thread]]
tid = 5
fid = 2
subject = "s"
[[thread.post]]
author = "乙"
time = "2026-03-04 09:00"
"#;
        let e = ForumSpec::parse(Path::new("f.toml"), text).unwrap_err();
        assert_eq!(e.key, "thread[0].post[0].author");
        assert!(e.message.contains("乙"));
    }

    #[test]
    fn sample_and_demo_fixtures_load() {
        for f in ["config/sample-forum.toml", "config/demo-forum.toml"] {
            // The workspace root, two folders up from this crate.
            let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(f);
            let spec = ForumSpec::load(&p).unwrap_or_else(|e| panic!("{e}"));
            assert!(!spec.threads.is_empty(), "{f}");
        }
    }
}
