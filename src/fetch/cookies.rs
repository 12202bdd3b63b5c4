//! Cookies: the Netscape `cookies.txt` a director exports from the browser, and the small
//! jar the client keeps (Discuz! needs only name=value pairs for one site).
//!
//! Values are secrets: `Debug` never shows them and no error message quotes them.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// The cookies sent to the forum, by name. Values are never printed.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct CookieJar {
    cookies: BTreeMap<String, String>,
}

impl fmt::Debug for CookieJar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Names only: values are credentials.
        f.debug_struct("CookieJar")
            .field("names", &self.cookies.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl CookieJar {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn set(&mut self, name: &str, value: &str) {
        self.cookies.insert(name.to_string(), value.to_string());
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.cookies.get(name).map(String::as_str)
    }

    pub fn remove(&mut self, name: &str) {
        self.cookies.remove(name);
    }

    pub fn is_empty(&self) -> bool {
        self.cookies.is_empty()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.cookies.keys().map(String::as_str)
    }

    /// The `Cookie:` request header, or `None` when the jar is empty.
    pub fn header(&self) -> Option<String> {
        if self.cookies.is_empty() {
            return None;
        }
        Some(
            self.cookies
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("; "),
        )
    }

    /// Apply one `Set-Cookie` response header. A cookie set to `deleted` or with a
    /// `max-age` ≤ 0 / an expiry in the past is removed (Discuz! clears `auth` that way).
    pub fn apply_set_cookie(&mut self, header: &str) {
        let mut parts = header.split(';');
        let Some((name, value)) = parts.next().and_then(|nv| nv.split_once('=')) else {
            return;
        };
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() {
            return;
        }
        let mut expired = value.is_empty() || value == "deleted";
        for attr in parts {
            let attr = attr.trim();
            if let Some((k, v)) = attr.split_once('=')
                && k.trim().eq_ignore_ascii_case("max-age")
                && v.trim().parse::<i64>().is_ok_and(|n| n <= 0)
            {
                expired = true;
            }
        }
        if expired {
            self.remove(name);
        } else {
            self.set(name, value);
        }
    }

    /// The Discuz! cookie prefix (`B7Y9_2132_`), from the `…saltkey` / `…auth` names.
    pub fn prefix(&self) -> Option<&str> {
        self.cookies
            .keys()
            .find_map(|k| k.strip_suffix("saltkey").or_else(|| k.strip_suffix("auth")))
    }

    /// The jar holds a login: `{pre}auth` together with its `{pre}saltkey`.
    pub fn has_login(&self) -> bool {
        self.cookies.keys().any(|k| {
            k.strip_suffix("auth")
                .is_some_and(|pre| self.cookies.contains_key(&format!("{pre}saltkey")))
        })
    }
}

/// A problem with a cookies.txt file. Never includes a cookie value.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{file}: {message}")]
pub struct CookieFileError {
    pub file: String,
    pub message: String,
}

/// Load a cookie file (see [`parse_cookie_file`] for the formats), keeping the cookies
/// whose domain matches `host` (all of them when none does, so a file exported for
/// `www.example.com` still works for `example.com`).
///
/// Discuz! needs `{pre}saltkey` and `{pre}auth` together (the auth cookie is encrypted
/// with the saltkey): a file with one but not the other is an error.
pub fn load_cookies_txt(path: &Path, host: &str) -> Result<CookieJar, CookieFileError> {
    load_cookie_file(path, host).map(|c| c.jar)
}

/// [`load_cookies_txt`] with the format found and the cookies' expiry times.
pub fn load_cookie_file(path: &Path, host: &str) -> Result<CookieFile, CookieFileError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| CookieFileError {
        file: file.clone(),
        message: format!("cannot read cookie file: {e}"),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| CookieFileError {
        file: file.clone(),
        message: format!("not a text file ({}); {FORMATS}", binary_kind(e.as_bytes())),
    })?;
    parse_cookie_file(&text, host).map_err(|message| CookieFileError { file, message })
}

/// The formats a cookie file may have, for error messages.
const FORMATS: &str = "bansha reads a Netscape cookies.txt (\"Get cookies.txt LOCALLY\", curl -c), \
    a `Cookie:` request header copied from the browser's developer tools, or a JSON export \
    (EditThisCookie, Cookie-Editor: a list of objects with name, value, domain)";

/// A cookie file as read: the jar, the format it was in, and each cookie's expiry (unix
/// seconds; session cookies and headers have none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookieFile {
    pub jar: CookieJar,
    pub format: &'static str,
    pub expires: BTreeMap<String, i64>,
}

impl CookieFile {
    /// Warnings for the login cookies (`…saltkey`, `…auth`) that expired by `now`: the
    /// forum will treat the requests as logged out.
    pub fn expiry_warnings(&self, now: i64) -> Vec<String> {
        self.expires
            .iter()
            .filter(|(name, at)| {
                (name.ends_with("auth") || name.ends_with("saltkey")) && **at > 0 && **at <= now
            })
            .map(|(name, at)| {
                let when = chrono::DateTime::from_timestamp(*at, 0)
                    .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
                    .unwrap_or_else(|| at.to_string());
                format!(
                    "cookie `{name}` expired at {when}: the forum will treat bansha as logged out; export fresh cookies (saltkey and auth) from the browser"
                )
            })
            .collect()
    }
}

/// See [`load_cookies_txt`]; errors name the line.
pub fn parse_cookies_txt(text: &str, host: &str) -> Result<CookieJar, String> {
    parse_cookie_file(text, host).map(|c| c.jar)
}

/// Read a cookie file in any of the formats directors have: a Netscape `cookies.txt`, a
/// `Cookie:` header (`Cookie: a=1; b=2`, or the pairs alone), or a browser extension's JSON
/// export (a list of `{name, value, domain, expirationDate}` objects: EditThisCookie,
/// Cookie-Editor; `expires` and Cookie Quick Manager's `Name raw`/`Content raw`/`Host raw`
/// too). Anything else is refused naming what it looks like.
pub fn parse_cookie_file(text: &str, host: &str) -> Result<CookieFile, String> {
    let host = host.to_ascii_lowercase();
    let body = text.trim_start_matches('\u{feff}').trim();
    let (format, cookies) = if body.starts_with('[') || body.starts_with('{') {
        ("a JSON cookie export", json_cookies(body)?)
    } else if is_header(body) {
        ("a `Cookie:` header", header_cookies(body)?)
    } else {
        // Notepad's "UTF-8 with BOM" (the file edited on Windows) starts with U+FEFF.
        (
            "a Netscape cookies.txt",
            netscape_cookies(text.trim_start_matches('\u{feff}'))?,
        )
    };
    let mut matching = CookieFile::empty(format);
    let mut all = CookieFile::empty(format);
    for c in cookies {
        let domain = c.domain.trim_start_matches('.').to_ascii_lowercase();
        let hit = domain.is_empty() || host == domain || host.ends_with(&format!(".{domain}"));
        for f in [&mut all].into_iter().chain(hit.then_some(&mut matching)) {
            f.jar.set(&c.name, &c.value);
            if let Some(e) = c.expires {
                f.expires.insert(c.name.clone(), e);
            }
        }
    }
    let file = if matching.jar.is_empty() {
        all
    } else {
        matching
    };
    check_login(&file.jar).map_err(|e| format!("{e} (read as {format})"))?;
    Ok(file)
}

impl CookieFile {
    fn empty(format: &'static str) -> Self {
        CookieFile {
            jar: CookieJar::new(),
            format,
            expires: BTreeMap::new(),
        }
    }
}

/// One cookie as a file gives it.
struct RawCookie {
    name: String,
    value: String,
    /// Empty: any host (a header has no domains).
    domain: String,
    expires: Option<i64>,
}

/// Discuz! needs `{pre}auth` with its `{pre}saltkey`.
fn check_login(jar: &CookieJar) -> Result<(), String> {
    if jar.is_empty() {
        return Err("no cookies in the file".into());
    }
    let prefixes: Vec<&str> = jar.names().filter_map(|k| k.strip_suffix("auth")).collect();
    if prefixes.is_empty() {
        return Err("no `…_auth` cookie: export the cookies while logged in to the forum".into());
    }
    for pre in prefixes {
        if jar.get(&format!("{pre}saltkey")).is_none() {
            return Err(format!(
                "`{pre}auth` without `{pre}saltkey`: the two belong together (export both)"
            ));
        }
    }
    Ok(())
}

/// `Cookie: a=1; b=2` (one line, the header name optional) rather than a cookies.txt.
fn is_header(body: &str) -> bool {
    let first = body.lines().next().unwrap_or("");
    first.to_ascii_lowercase().starts_with("cookie:")
        || (body.lines().count() == 1 && !first.contains('\t') && first.contains('='))
}

fn header_cookies(body: &str) -> Result<Vec<RawCookie>, String> {
    let line = body.lines().next().unwrap_or("");
    let pairs = match line.split_once(':') {
        Some((k, v)) if k.trim().eq_ignore_ascii_case("cookie") => v,
        _ => line,
    };
    let mut out = Vec::new();
    for (i, pair) in pairs.split(';').enumerate() {
        let pair = pair.trim();
        if pair.is_empty() {
            continue;
        }
        let Some((name, value)) = pair.split_once('=') else {
            return Err(format!(
                "a `Cookie:` header whose part {} is not name=value",
                i + 1
            ));
        };
        out.push(RawCookie {
            name: name.trim().to_string(),
            value: value.trim().to_string(),
            domain: String::new(),
            expires: None,
        });
    }
    Ok(out)
}

fn netscape_cookies(text: &str) -> Result<Vec<RawCookie>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        // `#HttpOnly_` marks HttpOnly cookies (Discuz! sets saltkey/auth HttpOnly on PC).
        let line = line.strip_prefix("#HttpOnly_").unwrap_or(line);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() < 7 {
            let looks = if line.trim_start().starts_with('<') {
                "an HTML page"
            } else {
                "neither a cookies.txt, a `Cookie:` header nor JSON"
            };
            return Err(format!(
                "line {}: not a Netscape cookies.txt line (want 7 tab-separated fields, got {}); the file looks like {looks}; {FORMATS}",
                i + 1,
                fields.len()
            ));
        }
        out.push(RawCookie {
            name: fields[5].to_string(),
            value: fields[6].to_string(),
            domain: fields[0].to_string(),
            expires: fields[4].trim().parse().ok().filter(|e| *e > 0),
        });
    }
    Ok(out)
}

fn json_cookies(body: &str) -> Result<Vec<RawCookie>, String> {
    use serde_json::Value;
    let v: Value = serde_json::from_str(body)
        .map_err(|e| format!("JSON that does not parse ({e}); {FORMATS}"))?;
    let list = match &v {
        Value::Array(a) => a,
        Value::Object(o) => match o.get("cookies") {
            Some(Value::Array(a)) => a,
            _ => {
                let what = if o.contains_key("log") {
                    "a HAR file (the network log), not a cookie export".to_string()
                } else {
                    let keys: Vec<&str> = o.keys().map(String::as_str).take(5).collect();
                    format!("a JSON object with keys {}", keys.join(", "))
                };
                return Err(format!("{what}; {FORMATS}"));
            }
        },
        _ => return Err(format!("JSON that is not a list of cookies; {FORMATS}")),
    };
    let field = |o: &serde_json::Map<String, Value>, keys: &[&str]| {
        keys.iter().find_map(|k| o.get(*k)).cloned()
    };
    let mut out = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let Some(o) = item.as_object() else {
            return Err(format!(
                "JSON entry {} is not a cookie object; {FORMATS}",
                i + 1
            ));
        };
        let name = field(o, &["name", "Name raw", "Name"]);
        let value = field(o, &["value", "Content raw", "Value"]);
        let (Some(Value::String(name)), Some(Value::String(value))) = (name, value) else {
            let keys: Vec<&str> = o.keys().map(String::as_str).take(6).collect();
            return Err(format!(
                "JSON entry {} has no string name and value (its keys: {}); {FORMATS}",
                i + 1,
                keys.join(", ")
            ));
        };
        let domain = match field(o, &["domain", "Host raw", "host"]) {
            Some(Value::String(d)) => d
                .trim_start_matches("https://")
                .trim_start_matches("http://")
                .trim_end_matches('/')
                .to_string(),
            _ => String::new(),
        };
        let expires = match field(o, &["expirationDate", "expires", "Expires raw", "expiry"]) {
            Some(Value::Number(n)) => n.as_f64().map(|f| f as i64),
            Some(Value::String(s)) => s.trim().parse::<f64>().ok().map(|f| f as i64),
            _ => None,
        }
        .filter(|e| *e > 0);
        out.push(RawCookie {
            name,
            value,
            domain,
            expires,
        });
    }
    Ok(out)
}

/// What a binary file is, when the director gave one.
fn binary_kind(bytes: &[u8]) -> &'static str {
    if bytes.starts_with(b"SQLite format 3") {
        "the browser's own cookie database (SQLite): export the cookies with an extension instead"
    } else {
        "binary data"
    }
}

/// A warning when a file holding secrets is readable by group or others (mode & 0o044); on
/// Windows, when it lies outside the user's profile folder ([`super::private_file`]).
pub fn permission_warning(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).ok()?.permissions().mode();
        if mode & 0o044 != 0 {
            return Some(format!(
                "{} is readable by other users (mode {:o}); run `chmod 600 {}`",
                path.display(),
                mode & 0o777,
                path.display()
            ));
        }
    }
    #[cfg(windows)]
    if let Some(w) = super::private_file::warning(path) {
        return Some(w);
    }
    #[cfg(not(any(unix, windows)))]
    let _ = path;
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# Netscape HTTP Cookie File\n\
        #HttpOnly_.bbs.example.com\tTRUE\t/\tFALSE\t1999999999\tB7Y9_2132_saltkey\tSALTVAL1\n\
        #HttpOnly_.bbs.example.com\tTRUE\t/\tFALSE\t1999999999\tB7Y9_2132_auth\tAUTHSECRET\n\
        .bbs.example.com\tTRUE\t/\tFALSE\t0\tB7Y9_2132_lastvisit\t123\n\
        .other.org\tTRUE\t/\tFALSE\t0\tsid\tnope\n";

    #[test]
    fn reads_httponly_lines_and_filters_by_host() {
        let jar = parse_cookies_txt(FILE, "bbs.example.com").unwrap();
        assert_eq!(jar.get("B7Y9_2132_auth"), Some("AUTHSECRET"));
        assert_eq!(jar.get("B7Y9_2132_saltkey"), Some("SALTVAL1"));
        assert_eq!(jar.get("sid"), None);
        assert_eq!(jar.prefix(), Some("B7Y9_2132_"));
        assert!(jar.has_login());
    }

    #[test]
    fn auth_without_saltkey_is_an_error_naming_the_cookie_not_its_value() {
        let text: String = FILE
            .lines()
            .filter(|l| !l.contains("saltkey"))
            .map(|l| format!("{l}\n"))
            .collect();
        let e = parse_cookies_txt(&text, "bbs.example.com").unwrap_err();
        assert!(e.contains("B7Y9_2132_auth") && e.contains("saltkey"), "{e}");
        assert!(!e.contains("AUTHSECRET"));
    }

    #[test]
    fn a_cookie_file_saved_by_notepad_with_bom_and_crlf_reads() {
        let text = format!("\u{feff}{}", FILE.replace('\n', "\r\n"));
        let jar = parse_cookies_txt(&text, "bbs.example.com").unwrap();
        assert_eq!(jar.get("B7Y9_2132_auth"), Some("AUTHSECRET"));
        assert!(jar.has_login());
    }

    #[test]
    fn malformed_line_names_the_line() {
        let e = parse_cookies_txt("# x\nfoo bar\n", "h").unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
    }

    #[test]
    fn a_cookie_header_is_read() {
        for text in [
            "Cookie: B7Y9_2132_saltkey=SALTVAL1; B7Y9_2132_auth=AUTHSECRET; lastvisit=1\n",
            "B7Y9_2132_saltkey=SALTVAL1; B7Y9_2132_auth=AUTHSECRET",
        ] {
            let f = parse_cookie_file(text, "bbs.example.com").unwrap();
            assert_eq!(f.format, "a `Cookie:` header");
            assert_eq!(f.jar.get("B7Y9_2132_auth"), Some("AUTHSECRET"));
            assert!(f.jar.has_login());
        }
    }

    const JSON: &str = r#"[
        {"domain": ".bbs.example.com", "expirationDate": 1999999999.5, "hostOnly": false,
         "httpOnly": true, "name": "B7Y9_2132_saltkey", "path": "/", "value": "SALTVAL1"},
        {"domain": ".bbs.example.com", "expirationDate": 1700000000, "name": "B7Y9_2132_auth",
         "path": "/", "value": "AUTHSECRET"},
        {"domain": ".other.org", "name": "sid", "value": "nope"}
    ]"#;

    #[test]
    fn a_browser_json_export_is_read_with_its_expiry_times() {
        let f = parse_cookie_file(JSON, "bbs.example.com").unwrap();
        assert_eq!(f.format, "a JSON cookie export");
        assert_eq!(f.jar.get("B7Y9_2132_saltkey"), Some("SALTVAL1"));
        assert_eq!(f.jar.get("sid"), None);
        assert_eq!(f.expires["B7Y9_2132_auth"], 1_700_000_000);
        // Cookie Quick Manager's keys, and `{"cookies": […]}`.
        let cqm = r#"{"cookies": [
            {"Host raw": "https://bbs.example.com/", "Name raw": "p_saltkey", "Content raw": "s"},
            {"Host raw": "https://bbs.example.com/", "Name raw": "p_auth", "Content raw": "a"}]}"#;
        let f = parse_cookie_file(cqm, "bbs.example.com").unwrap();
        assert!(f.jar.has_login());
    }

    #[test]
    fn an_expired_login_cookie_warns_naming_it_not_its_value() {
        let f = parse_cookie_file(JSON, "bbs.example.com").unwrap();
        let w = f.expiry_warnings(1_800_000_000);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].contains("`B7Y9_2132_auth` expired at 2023-11-14"),
            "{w:?}"
        );
        assert!(!w[0].contains("AUTHSECRET"));
        assert!(f.expiry_warnings(1_600_000_000).is_empty());
        // cookies.txt: the fifth field; 0 is a session cookie.
        let txt = parse_cookie_file(FILE, "bbs.example.com").unwrap();
        assert_eq!(txt.format, "a Netscape cookies.txt");
        assert_eq!(txt.expiry_warnings(2_000_000_000).len(), 2);
        assert!(txt.expiry_warnings(1_900_000_000).is_empty());
    }

    #[test]
    fn an_unknown_format_is_refused_naming_what_it_looks_like() {
        let e = parse_cookie_file(r#"{"log": {"entries": []}}"#, "h").unwrap_err();
        assert!(e.contains("a HAR file"), "{e}");
        let e = parse_cookie_file(r#"{"version": 1, "data": []}"#, "h").unwrap_err();
        assert!(e.contains("a JSON object with keys data, version"), "{e}");
        let e = parse_cookie_file(r#"[{"key": "x", "val": "y"}]"#, "h").unwrap_err();
        assert!(
            e.contains("JSON entry 1 has no string name and value (its keys: key, val)"),
            "{e}"
        );
        let e = parse_cookie_file("<html>\n<body>login</body>\n", "h").unwrap_err();
        assert!(e.contains("looks like an HTML page"), "{e}");
        assert!(e.contains("Cookie-Editor"), "{e}");
    }

    #[test]
    fn debug_never_shows_values() {
        let jar = parse_cookies_txt(FILE, "bbs.example.com").unwrap();
        let d = format!("{jar:?}");
        assert!(
            d.contains("B7Y9_2132_auth") && !d.contains("AUTHSECRET"),
            "{d}"
        );
    }

    #[test]
    fn set_cookie_updates_and_deletes() {
        let mut jar = CookieJar::new();
        jar.apply_set_cookie(
            "pre_saltkey=abc; expires=Tue, 01-Jan-2030 00:00:00 GMT; path=/; httponly",
        );
        jar.apply_set_cookie("pre_auth=xyz; path=/");
        assert!(jar.has_login());
        assert_eq!(jar.header().unwrap(), "pre_auth=xyz; pre_saltkey=abc");
        jar.apply_set_cookie("pre_auth=deleted; expires=Thu, 01-Jan-1970 00:00:01 GMT; Max-Age=0");
        assert!(!jar.has_login());
        assert_eq!(jar.get("pre_auth"), None);
    }

    #[cfg(unix)]
    #[test]
    fn warns_on_group_readable_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("bansha-perm-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("c.txt");
        std::fs::write(&p, "x").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(permission_warning(&p).unwrap().contains("chmod 600"));
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(permission_warning(&p), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
