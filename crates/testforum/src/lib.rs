//! The project's own Discuz!-shaped test forum on 127.0.0.1, driven by tests and the demo.
//!
//! [`TestForum::start`] serves the threads of a [`ForumSpec`] as a stock Discuz! X3.4/X3.5
//! site would (PC pages, rewritten URLs, findpost redirects, the mobile API, login and
//! cookies; UTF-8 or GBK), on plain std threads so it works from sync code and from inside
//! a tokio runtime alike. Tests change the forum while it runs (`add_post`, `edit_post`,
//! `delete_post`, `set_now`) and inject faults (`inject`, `expire_login`); `requests()`
//! shows what clients asked for. The clock is the forum's own (`set_now`), never the wall
//! clock.

mod bbcode;
mod http;
mod pages;
pub mod spec;

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use ring::digest::{SHA256, digest};

/// The moved files' `crate::model::Timestamp`, `crate::time` and `crate::tomlfile`.
pub use bansha_base::Timestamp;
mod model {
    pub use bansha_base::Timestamp;
}
use bansha_base::localtime as time;
use bansha_base::tomlfile;
pub use spec::{
    FloorMode, ForumInfo, ForumSpec, Lock, PostSpec, SiteCharset, SiteSpec, ThreadSpec, UserSpec,
    Version,
};

/// A fault served instead of the normal answer (see [`TestForum::inject`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// HTTP 500 with an nginx-style body.
    Http500,
    /// HTTP 503 with an nginx-style body.
    Http503,
    /// Read the request, then send nothing until this long has passed (or the forum
    /// stops), then close the connection without a response.
    Stall(Duration),
    /// Full headers (with the complete `Content-Length`), half the body, then close.
    Truncated,
    /// The CC-defence page `频繁刷新限制` (MARKUP 8.3), HTTP 200.
    CcPage,
    /// The anti-harvest script-only body (MARKUP 8.4), HTTP 200.
    AntiScrape,
    /// The `viewperm_login_nopermission` message (PC page or API `Message`).
    LoginRequired,
}

/// Which requests a fault applies to. The default matches every request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultScope {
    /// Only requests for this thread (`tid`/`ptid` or a rewritten thread URL).
    pub tid: Option<u64>,
    /// Only requests whose path+query contains this string (e.g. `api/mobile`).
    pub path_contains: Option<String>,
}

/// One request the forum answered (or faulted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRecord {
    pub method: String,
    /// Path and query as sent, e.g. `/forum.php?mod=viewthread&tid=1&page=2`.
    pub target: String,
    /// Names of the cookies the client sent.
    pub cookies: Vec<String>,
    /// The forum's clock when it was served.
    pub time: Timestamp,
    /// HTTP status sent (0 when nothing was sent: a stall).
    pub status: u16,
    /// The injected fault, if one was served.
    pub fault: Option<Fault>,
    /// The viewer uid the request was served as (0 = guest).
    pub uid: u64,
    /// Monotonic time since the forum started when the request arrived (for checking
    /// gaps between requests; never used to render anything).
    pub since_start: Duration,
}

#[derive(Debug, Clone)]
struct FaultRule {
    fault: Fault,
    remaining: u32,
    scope: FaultScope,
}

#[derive(Debug, Clone)]
pub(crate) struct PostRec {
    pub pid: u64,
    pub uid: u64,
    pub author: String,
    pub time: Timestamp,
    /// The stored message (BBCode, quote and edit notice included).
    pub message: String,
    pub deleted: bool,
    pub sticky: bool,
    pub recommend: bool,
    pub lock: Option<Lock>,
    pub jammer: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct ThreadRec {
    pub tid: u64,
    pub fid: u64,
    pub subject: String,
    pub posts: Vec<PostRec>,
    pub views: u64,
}

#[derive(Debug, Clone)]
struct Session {
    saltkey: String,
    uid: u64,
}

pub(crate) struct State {
    pub site: SiteSpec,
    pub forums: Vec<ForumInfo>,
    pub users: Vec<UserSpec>,
    pub threads: BTreeMap<u64, ThreadRec>,
    pub now: Timestamp,
    pub base_url: String,
    next_pid: u64,
    next_uid: u64,
    faults: Vec<FaultRule>,
    log: Vec<RequestRecord>,
    /// auth cookie value → session.
    sessions: HashMap<String, Session>,
    counter: u64,
}

impl State {
    pub fn cookiepre(&self) -> String {
        format!("{}2132_", self.site.cookie_prefix)
    }
    pub fn user_name(&self, uid: u64) -> String {
        self.users
            .iter()
            .find(|u| u.uid == uid)
            .map(|u| u.name.clone())
            .unwrap_or_default()
    }
    fn uid_of(&mut self, name: &str) -> u64 {
        if let Some(u) = self.users.iter().find(|u| u.name == name) {
            return u.uid;
        }
        let uid = self.next_uid;
        self.next_uid += 1;
        self.users.push(UserSpec {
            uid,
            name: name.into(),
            password: None,
        });
        uid
    }
    /// A fresh pseudo-random token (deterministic per forum: no wall clock, no OS entropy).
    fn token(&mut self, len: usize) -> String {
        self.counter += 1;
        let h = digest(
            &SHA256,
            format!("{}|{}|{}", self.base_url, self.counter, self.now).as_bytes(),
        );
        const ALPHA: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        h.as_ref()
            .iter()
            .cycle()
            .take(len)
            .map(|b| ALPHA[*b as usize % ALPHA.len()] as char)
            .collect()
    }
    fn new_session(&mut self, uid: u64, saltkey: Option<String>) -> (String, String) {
        let saltkey = saltkey.unwrap_or_else(|| self.token(8));
        let auth = format!("{}%2F{}", self.token(40), self.token(20));
        self.sessions.insert(
            auth.clone(),
            Session {
                saltkey: saltkey.clone(),
                uid,
            },
        );
        (saltkey, auth)
    }
    pub(crate) fn post_mut(&mut self, pid: u64) -> Option<&mut PostRec> {
        self.threads
            .values_mut()
            .flat_map(|t| t.posts.iter_mut())
            .find(|p| p.pid == pid)
    }
    pub(crate) fn find_post(&self, pid: u64) -> Option<(&ThreadRec, &PostRec)> {
        self.threads
            .values()
            .find_map(|t| t.posts.iter().find(|p| p.pid == pid).map(|p| (t, p)))
    }
    /// The `[quote]` Discuz pre-fills when replying to `pid`.
    fn quote_bbcode(&self, pid: u64) -> String {
        let Some((t, p)) = self.find_post(pid) else {
            return String::new();
        };
        format!(
            "[quote][size=2][url=forum.php?mod=redirect&goto=findpost&pid={}&ptid={}][color=#999999]{} 发表于 {}[/color][/url][/size]\n{}[/quote]\n",
            p.pid,
            t.tid,
            p.author,
            pages::fmt_short(p.time),
            bbcode::quote_excerpt(&p.message)
        )
    }
}

/// The viewer a request is served as.
#[derive(Debug, Clone)]
pub(crate) struct Viewer {
    pub uid: u64,
    pub name: String,
    pub saltkey: String,
    pub auth: Option<String>,
}

impl Viewer {
    pub fn formhash(&self) -> String {
        let h = digest(
            &SHA256,
            format!("{}|{}|{}", self.saltkey, self.uid, self.name).as_bytes(),
        );
        h.as_ref()
            .iter()
            .take(4)
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

struct Shared {
    state: Mutex<State>,
    started: std::time::Instant,
    stopped: AtomicBool,
    wake: Condvar,
    wake_lock: Mutex<()>,
}

/// A running test forum. Dropping it stops it.
pub struct TestForum {
    shared: Arc<Shared>,
    addr: SocketAddr,
    acceptor: Option<JoinHandle<()>>,
}

impl TestForum {
    /// Start on `127.0.0.1:0` (a free port).
    pub fn start(spec: ForumSpec) -> std::io::Result<TestForum> {
        Self::start_on(spec, 0)
    }

    /// Start on `127.0.0.1:port` (0 = any free port).
    pub fn start_on(spec: ForumSpec, port: u16) -> std::io::Result<TestForum> {
        spec.validate().map_err(|(k, m)| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("test forum spec: {k}: {m}"),
            )
        })?;
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let state = build_state(spec, format!("http://{addr}/"));
        let shared = Arc::new(Shared {
            state: Mutex::new(state),
            started: std::time::Instant::now(),
            stopped: AtomicBool::new(false),
            wake: Condvar::new(),
            wake_lock: Mutex::new(()),
        });
        let sh = shared.clone();
        let acceptor = std::thread::Builder::new()
            .name("testforum-accept".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if sh.stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = conn else { continue };
                    let sh = sh.clone();
                    let _ = std::thread::Builder::new()
                        .name("testforum-conn".into())
                        .spawn(move || serve_conn(&sh, stream));
                }
            })?;
        Ok(TestForum {
            shared,
            addr,
            acceptor: Some(acceptor),
        })
    }

    /// `http://127.0.0.1:PORT/`
    pub fn base_url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The effective cookie prefix (`cookiepre`, e.g. `B7Y9_2132_`).
    pub fn cookie_prefix(&self) -> String {
        self.lock().cookiepre()
    }

    /// Stop serving: the port is closed and stalled connections are released.
    pub fn stop(&mut self) {
        if self.shared.stopped.swap(true, Ordering::SeqCst) {
            return;
        }
        {
            let _g = self
                .shared
                .wake_lock
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            self.shared.wake.notify_all();
        }
        // Wake the blocking accept.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(h) = self.acceptor.take() {
            let _ = h.join();
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Append a reply by `author` (a user name; unknown names become new users) to thread
    /// `tid` at `time`. Returns the new pid. Panics if the thread does not exist.
    pub fn add_post(&self, tid: u64, author: &str, message: &str, time: Timestamp) -> u64 {
        self.add_post_full(tid, author, message, time, None, PostFlags::default())
    }

    /// Append a reply that quotes `quote_pid` with the real quote header and findpost link.
    pub fn add_reply(
        &self,
        tid: u64,
        author: &str,
        message: &str,
        time: Timestamp,
        quote_pid: u64,
    ) -> u64 {
        self.add_post_full(
            tid,
            author,
            message,
            time,
            Some(quote_pid),
            PostFlags::default(),
        )
    }

    /// Append a reply with an optional quote and flags.
    pub fn add_post_full(
        &self,
        tid: u64,
        author: &str,
        message: &str,
        time: Timestamp,
        quote_pid: Option<u64>,
        flags: PostFlags,
    ) -> u64 {
        let mut st = self.lock();
        assert!(
            st.threads.contains_key(&tid),
            "test forum: add_post to unknown thread {tid}"
        );
        let uid = st.uid_of(author);
        let quote = quote_pid.map(|q| st.quote_bbcode(q)).unwrap_or_default();
        let pid = st.next_pid;
        st.next_pid += 1;
        let rec = PostRec {
            pid,
            uid,
            author: author.into(),
            time,
            message: format!("{quote}{message}"),
            deleted: false,
            sticky: flags.sticky,
            recommend: flags.recommend,
            lock: flags.locked,
            jammer: flags.jammer,
        };
        st.threads.get_mut(&tid).unwrap().posts.push(rec);
        pid
    }

    /// Create a thread in forum `fid` with its first post. Returns `(tid, pid)`.
    pub fn add_thread(
        &self,
        fid: u64,
        subject: &str,
        author: &str,
        message: &str,
        time: Timestamp,
    ) -> (u64, u64) {
        let mut st = self.lock();
        let tid = st.threads.keys().next_back().copied().unwrap_or(1000) + 1;
        let uid = st.uid_of(author);
        let pid = st.next_pid;
        st.next_pid += 1;
        st.threads.insert(
            tid,
            ThreadRec {
                tid,
                fid,
                subject: subject.into(),
                posts: vec![PostRec {
                    pid,
                    uid,
                    author: author.into(),
                    time,
                    message: message.into(),
                    deleted: false,
                    sticky: false,
                    recommend: false,
                    lock: None,
                    jammer: false,
                }],
                views: 0,
            },
        );
        (tid, pid)
    }

    /// Replace a post's message as its author editing at `edit_time`. As in Discuz, the
    /// `本帖最后由 … 于 … 编辑` notice is prepended only when the edit comes more than 60 s
    /// after posting; it replaces any earlier notice. Returns false for an unknown pid.
    pub fn edit_post(&self, pid: u64, new_message: &str, edit_time: Timestamp) -> bool {
        let mut st = self.lock();
        let Some(p) = st.post_mut(pid) else {
            return false;
        };
        p.message = with_edit_notice(new_message, &p.author, p.time, edit_time);
        true
    }

    /// Delete a post (a reply; the first post cannot be deleted alone). Rendered per the
    /// site's floor mode: a placeholder (position) or renumbering (sequential).
    pub fn delete_post(&self, pid: u64) -> bool {
        let mut st = self.lock();
        let first = st.threads.values().any(|t| t.posts[0].pid == pid);
        match st.post_mut(pid) {
            Some(p) if !first => {
                p.deleted = true;
                true
            }
            _ => false,
        }
    }

    /// Lock or unlock a post's body (banned author, moderator-blocked…).
    pub fn set_locked(&self, pid: u64, lock: Option<Lock>) -> bool {
        let mut st = self.lock();
        match st.post_mut(pid) {
            Some(p) => {
                p.lock = lock;
                true
            }
            None => false,
        }
    }

    /// Set the forum's clock (relative times are rendered against it).
    pub fn set_now(&self, ts: Timestamp) {
        self.lock().now = ts;
    }

    pub fn now(&self) -> Timestamp {
        self.lock().now
    }

    /// Switch the floor numbering mode (the daily maintenance job can flip it).
    pub fn set_floor_mode(&self, mode: FloorMode) {
        self.lock().site.floor_mode = mode;
    }

    /// Switch the mobile API off (`mobile_is_closed`) or on while the forum runs.
    pub fn set_api_closed(&self, closed: bool) {
        self.lock().site.api_closed = closed;
    }

    /// Cap the API's `ppp` parameter (None: no cap, as the stock plugin).
    pub fn set_api_ppp_max(&self, max: Option<u32>) {
        self.lock().site.api_ppp_max = max;
    }

    /// Serve `fault` to the next `times` requests.
    pub fn inject(&self, fault: Fault, times: u32) {
        self.inject_scoped(fault, times, FaultScope::default());
    }

    /// Serve `fault` to the next `times` requests matching `scope`.
    pub fn inject_scoped(&self, fault: Fault, times: u32, scope: FaultScope) {
        self.lock().faults.push(FaultRule {
            fault,
            remaining: times,
            scope,
        });
    }

    /// Invalidate every login: pages render as guest (`discuz_uid = '0'`) until the
    /// client logs in again.
    pub fn expire_login(&self) {
        self.lock().sessions.clear();
    }

    /// Log `uid` in without HTTP; returns the `(saltkey, auth)` cookie values.
    pub fn login_session(&self, uid: u64) -> (String, String) {
        self.lock().new_session(uid, None)
    }

    /// Log `uid` in and write a Netscape `cookies.txt` for this forum at `path`.
    pub fn write_cookies_txt(&self, path: &Path, uid: u64) -> std::io::Result<()> {
        let (saltkey, auth) = self.login_session(uid);
        let pre = self.cookie_prefix();
        write_cookies_txt(path, "127.0.0.1", &pre, &saltkey, &auth)
    }

    /// Every request served so far, oldest first.
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.lock().log.clone()
    }

    pub fn request_count(&self) -> usize {
        self.lock().log.len()
    }

    /// Forget the request log.
    pub fn clear_requests(&self) {
        self.lock().log.clear();
    }

    /// The pids of a thread's posts in thread order (deleted ones included), for tests.
    pub fn pids(&self, tid: u64) -> Vec<u64> {
        self.lock()
            .threads
            .get(&tid)
            .map(|t| t.posts.iter().map(|p| p.pid).collect())
            .unwrap_or_default()
    }
}

impl Drop for TestForum {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Optional flags of a post added through the control API.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PostFlags {
    pub sticky: bool,
    pub recommend: bool,
    pub locked: Option<Lock>,
    pub jammer: bool,
}

/// Write a Netscape `cookies.txt` holding `{pre}saltkey` and `{pre}auth` for `domain`.
pub fn write_cookies_txt(
    path: &Path,
    domain: &str,
    cookiepre: &str,
    saltkey: &str,
    auth: &str,
) -> std::io::Result<()> {
    // Expiry far in the future (2100-01-01); the forum never reads the wall clock.
    let exp = 4102444800i64;
    let text = format!(
        "# Netscape HTTP Cookie File\n# Written by the bansha test forum.\n\n\
         {domain}\tFALSE\t/\tFALSE\t{exp}\t{cookiepre}saltkey\t{saltkey}\n\
         #HttpOnly_{domain}\tFALSE\t/\tFALSE\t{exp}\t{cookiepre}auth\t{auth}\n"
    );
    std::fs::write(path, text)
}

fn with_edit_notice(message: &str, editor: &str, posted: Timestamp, edited: Timestamp) -> String {
    // A previous notice is replaced.
    let body = strip_edit_notice(message);
    if edited - posted > 60 {
        format!(
            "[i=s] 本帖最后由 {editor} 于 {} 编辑 [/i]\n\n{body}",
            pages::fmt_short(edited)
        )
    } else {
        body.to_string()
    }
}

fn strip_edit_notice(message: &str) -> &str {
    if message.starts_with("[i=s]")
        && let Some(end) = message.find("[/i]")
    {
        return message[end + 4..].trim_start_matches('\n');
    }
    message
}

fn build_state(spec: ForumSpec, base_url: String) -> State {
    let mut next_pid = spec.site.first_pid;
    let mut threads = BTreeMap::new();
    let mut latest = 0;
    let uid_of = |name: &str| {
        spec.users
            .iter()
            .find(|u| u.name == name)
            .map(|u| u.uid)
            .unwrap_or(0)
    };
    for t in &spec.threads {
        let mut posts: Vec<PostRec> = Vec::new();
        for p in &t.posts {
            let time = spec::parse_time(&p.time).unwrap_or(0);
            latest = latest.max(time);
            let quote = p
                .reply_to
                .and_then(|f| posts.get(f as usize - 1))
                .map(|q| {
                    format!(
                        "[quote][size=2][url=forum.php?mod=redirect&goto=findpost&pid={}&ptid={}][color=#999999]{} 发表于 {}[/color][/url][/size]\n{}[/quote]\n",
                        q.pid,
                        t.tid,
                        q.author,
                        pages::fmt_short(q.time),
                        bbcode::quote_excerpt(&q.message)
                    )
                })
                .unwrap_or_default();
            let mut message = format!("{quote}{}", p.message);
            if let Some(e) = p.edited.as_deref().and_then(spec::parse_time) {
                message = with_edit_notice(&message, &p.author, time, e);
            }
            posts.push(PostRec {
                pid: next_pid,
                uid: uid_of(&p.author),
                author: p.author.clone(),
                time,
                message,
                deleted: p.deleted,
                sticky: p.sticky,
                recommend: p.recommend,
                lock: p.locked,
                jammer: p.jammer || spec.site.jammer,
            });
            next_pid += 1;
        }
        threads.insert(
            t.tid,
            ThreadRec {
                tid: t.tid,
                fid: t.fid,
                subject: t.subject.clone(),
                posts,
                views: 100,
            },
        );
    }
    let now = spec
        .site
        .now
        .as_deref()
        .and_then(spec::parse_time)
        .unwrap_or(latest);
    let next_uid = spec.users.iter().map(|u| u.uid).max().unwrap_or(0) + 1;
    State {
        site: spec.site,
        forums: spec.forums,
        users: spec.users,
        threads,
        now,
        base_url,
        next_pid,
        next_uid,
        faults: Vec::new(),
        log: Vec::new(),
        sessions: HashMap::new(),
        counter: 0,
    }
}

/// The tid a request is about, for fault scoping.
fn request_tid(req: &http::Request) -> Option<u64> {
    if let Some(t) = req.q_u64("tid").or_else(|| req.q_u64("ptid")) {
        return Some(t);
    }
    pages::rewritten_thread(&req.path).map(|(t, _)| t)
}

fn serve_conn(sh: &Shared, stream: TcpStream) {
    let arrived = sh.started.elapsed();
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = stream.set_nodelay(true);
    let Some(req) = http::read_request(&stream) else {
        return;
    };
    let mut stream = stream;
    let (fault, resp) = {
        let mut st = sh.state.lock().unwrap_or_else(|e| e.into_inner());
        // Pick the first matching fault rule.
        let tid = request_tid(&req);
        let mut fault = None;
        for rule in st.faults.iter_mut() {
            if rule.remaining == 0 {
                continue;
            }
            if rule.scope.tid.is_some() && rule.scope.tid != tid {
                continue;
            }
            if let Some(p) = &rule.scope.path_contains
                && !req.target.contains(p.as_str())
            {
                continue;
            }
            rule.remaining -= 1;
            fault = Some(rule.fault.clone());
            break;
        }
        st.faults.retain(|r| r.remaining > 0);
        let viewer = pages::viewer(&st, &req);
        let resp = match &fault {
            None | Some(Fault::Truncated) => Some(pages::route(&mut st, &req)),
            Some(Fault::Stall(_)) => None,
            Some(f) => Some(pages::fault_response(&st, &req, &viewer, f)),
        };
        let now = st.now;
        st.log.push(RequestRecord {
            method: req.method.clone(),
            target: req.target.clone(),
            cookies: req.cookies.iter().map(|(k, _)| k.clone()).collect(),
            time: now,
            status: resp.as_ref().map(|r| r.status).unwrap_or(0),
            fault: fault.clone(),
            uid: viewer.uid,
            since_start: arrived,
        });
        (fault, resp)
    };
    match (fault, resp) {
        (Some(Fault::Stall(d)), _) => {
            let deadline = std::time::Instant::now() + d;
            let mut g = sh.wake_lock.lock().unwrap_or_else(|e| e.into_inner());
            while !sh.stopped.load(Ordering::SeqCst) {
                let now = std::time::Instant::now();
                if now >= deadline {
                    break;
                }
                g = match sh.wake.wait_timeout(g, deadline - now) {
                    Ok((g, _)) => g,
                    Err(e) => e.into_inner().0,
                };
            }
        }
        (Some(Fault::Truncated), Some(r)) => {
            let _ = stream.write_all(&r.head());
            let _ = stream.write_all(&r.body[..r.body.len() / 2]);
            let _ = stream.flush();
        }
        (_, Some(r)) => {
            let _ = stream.write_all(&r.head());
            let _ = stream.write_all(&r.body);
            let _ = stream.flush();
        }
        (_, None) => {}
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}
