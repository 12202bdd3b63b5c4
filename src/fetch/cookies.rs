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

/// Load a Netscape `cookies.txt` (as exported by browser extensions and curl), keeping
/// the cookies whose domain matches `host` (all of them when none does, so a file
/// exported for `www.example.com` still works for `example.com`).
///
/// Discuz! needs `{pre}saltkey` and `{pre}auth` together (the auth cookie is encrypted
/// with the saltkey): a file with one but not the other is an error.
pub fn load_cookies_txt(path: &Path, host: &str) -> Result<CookieJar, CookieFileError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| CookieFileError {
        file: file.clone(),
        message: format!("cannot read cookie file: {e}"),
    })?;
    parse_cookies_txt(&text, host).map_err(|message| CookieFileError { file, message })
}

/// See [`load_cookies_txt`]; errors name the line.
pub fn parse_cookies_txt(text: &str, host: &str) -> Result<CookieJar, String> {
    let host = host.to_ascii_lowercase();
    let mut matching = CookieJar::new();
    let mut all = CookieJar::new();
    // Notepad's "UTF-8 with BOM" (the cookie file edited on Windows) starts with U+FEFF.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        // `#HttpOnly_` marks HttpOnly cookies (Discuz! sets saltkey/auth HttpOnly on PC).
        let line = line.strip_prefix("#HttpOnly_").unwrap_or(line);
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() < 7 {
            return Err(format!(
                "line {}: not a Netscape cookies.txt line (want 7 tab-separated fields, got {})",
                i + 1,
                fields.len()
            ));
        }
        let domain = fields[0].trim_start_matches('.').to_ascii_lowercase();
        let name = fields[5];
        let value = fields[6];
        all.set(name, value);
        if host == domain || host.ends_with(&format!(".{domain}")) {
            matching.set(name, value);
        }
    }
    let jar = if matching.is_empty() { all } else { matching };
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
    Ok(jar)
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
