//! Who is signed in: the tokens (checked for strength), the sign-in name (restricted so
//! the ledger's 判罚人 column cannot lie), the sessions (expiring, revocable by the
//! director) and the session cookie (a name per instance, `__Host-` and `Secure` behind
//! TLS).

use std::collections::HashMap;

use crate::config::Config;
use crate::model::Timestamp;

/// The environment variables that override `[serve]`'s tokens.
pub const DIRECTOR_TOKEN_ENV: &str = "BANSHA_DIRECTOR_TOKEN";
pub const MODERATOR_TOKEN_ENV: &str = "BANSHA_MODERATOR_TOKEN";
/// A token must carry at least this many bits (estimated from its characters).
pub const MIN_TOKEN_BITS: f64 = 64.0;
/// The longest sign-in name, in characters.
pub const MAX_NAME_CHARS: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Director,
    Moderator,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Director => "director",
            Role::Moderator => "moderator",
        }
    }
    pub fn zh(self) -> &'static str {
        match self {
            Role::Director => "导演",
            Role::Moderator => "版主",
        }
    }
}

/// The two tokens (either may be absent; at least one is present), trimmed.
#[derive(Clone)]
pub struct Tokens {
    pub director: Option<String>,
    pub moderator: Option<String>,
}

/// Bits of a token estimated from the frequencies of its characters (Shannon entropy
/// times length): a token of one repeated letter has 0, 32 random hex digits about 120.
pub fn token_bits(t: &str) -> f64 {
    let chars: Vec<char> = t.chars().collect();
    let mut counts: HashMap<char, usize> = HashMap::new();
    for c in &chars {
        *counts.entry(*c).or_default() += 1;
    }
    let n = chars.len() as f64;
    let per_char: f64 = counts
        .values()
        .map(|&k| {
            let p = k as f64 / n;
            -p * p.log2()
        })
        .sum();
    per_char * n
}

/// The tokens from `[serve]`, each overridden by its environment variable, trimmed (a
/// token pasted with a trailing space or newline still signs in), and strong enough.
pub fn tokens(cfg: &Config) -> Result<Tokens, String> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let trimmed = |v: Option<String>| v.map(|t| t.trim().to_string());
    let t = Tokens {
        director: trimmed(env(DIRECTOR_TOKEN_ENV).or_else(|| cfg.serve.director_token.clone())),
        moderator: trimmed(env(MODERATOR_TOKEN_ENV).or_else(|| cfg.serve.moderator_token.clone())),
    };
    for (name, v) in [
        (DIRECTOR_TOKEN_ENV, &t.director),
        (MODERATOR_TOKEN_ENV, &t.moderator),
    ] {
        let Some(v) = v else { continue };
        if v.chars().count() < 16 {
            return Err(format!(
                "{name}：令牌至少 16 个字符（例如 `openssl rand -hex 16`）"
            ));
        }
        let bits = token_bits(v);
        if bits < MIN_TOKEN_BITS {
            return Err(format!(
                "{name}（或 {} 的 [serve]）：令牌太容易猜到（约 {bits:.0} 位，至少需要 {MIN_TOKEN_BITS:.0} 位）：用 `openssl rand -hex 16` 生成一个",
                cfg.path.display()
            ));
        }
    }
    if t.director.is_none() && t.moderator.is_none() {
        return Err(format!(
            "{}: no tokens: set [serve] director_token / moderator_token, or {DIRECTOR_TOKEN_ENV} / {MODERATOR_TOKEN_ENV}",
            cfg.path.display()
        ));
    }
    if t.director.is_some() && t.director == t.moderator {
        return Err(
            "the director's and the moderators' tokens must differ (the roles see different things)"
                .into(),
        );
    }
    Ok(t)
}

/// Characters that change how text around them reads without showing: bidi embeddings,
/// overrides and isolates, zero-width joiners and spaces, the soft hyphen, BOM.
fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00AD}' | '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}' | '\u{FEFF}' | '\u{FFF9}'..='\u{FFFB}')
}

/// Words that would make a name pass for a role: the other role's words are refused
/// (a moderator named 导演A would read as the director in the ledger); the role is
/// appended to every record anyway.
fn role_words(r: Role) -> &'static [&'static str] {
    match r {
        Role::Director => &["moderator", "版主", "admin", "管理员", "系统"],
        Role::Moderator => &["director", "导演", "主持", "admin", "管理员", "系统"],
    }
}

/// The name typed at sign-in, checked: recorded on decisions as `NAME (role)`, so it may
/// not carry brackets, another role's words, invisible or direction-changing characters,
/// or be long. `Ok(None)` for an empty name (the role alone is recorded). The error is
/// Chinese: it is shown on the sign-in form.
pub fn sign_in_name(raw: &str, role: Role) -> Result<Option<String>, String> {
    let n = raw.trim();
    if n.is_empty() {
        return Ok(None);
    }
    if n.chars().any(invisible) {
        return Err("名字里有不可见或改变文字方向的字符。".into());
    }
    if n.chars().count() > MAX_NAME_CHARS {
        return Err(format!("名字最多 {MAX_NAME_CHARS} 个字。"));
    }
    if let Some(c) = n
        .chars()
        .find(|c| "()（）[]［］【】<>《》{}|/\\:：@#".contains(*c))
    {
        return Err(format!("名字里不能有「{c}」。"));
    }
    let lower = n.to_lowercase();
    if let Some(w) = role_words(role).iter().find(|w| lower.contains(*w)) {
        return Err(format!(
            "名字里不能有「{w}」：身份由令牌决定，你是{}，判罚记录会自动注明。",
            role.zh()
        ));
    }
    Ok(Some(n.to_string()))
}

#[derive(Clone)]
pub struct Session {
    pub role: Role,
    pub name: Option<String>,
    pub csrf: String,
    /// A short public id (for the director's list and its 结束 button); never the cookie.
    pub handle: String,
    pub since: Timestamp,
    pub expires: Timestamp,
    pub last_seen: Timestamp,
    /// A message to show once on the next page (a decision made without the script).
    pub flash: Option<String>,
}

impl Session {
    pub fn flash_take(&mut self) -> Option<String> {
        self.flash.take()
    }
    /// Recorded as `--by` on a decision: the name given at login, and the role.
    pub fn by(&self) -> String {
        match &self.name {
            Some(n) => format!("{n} ({})", self.role.as_str()),
            None => self.role.as_str().to_string(),
        }
    }
    pub fn who(&self) -> String {
        match &self.name {
            Some(n) => format!("{n}（{}）", self.role.zh()),
            None => self.role.zh().to_string(),
        }
    }
}

/// The sessions, by cookie value. Expired ones are gone when next looked at.
#[derive(Default)]
pub struct Sessions {
    by_id: HashMap<String, Session>,
}

impl Sessions {
    pub fn insert(&mut self, id: String, s: Session) {
        self.by_id.insert(id, s);
    }

    /// The live session of cookie `id` at `now` (its last-seen time updated).
    pub fn get(&mut self, id: &str, now: Timestamp) -> Option<Session> {
        self.prune(now);
        let s = self.by_id.get_mut(id)?;
        s.last_seen = now;
        Some(s.clone())
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut Session> {
        self.by_id.get_mut(id)
    }

    pub fn remove(&mut self, id: &str) {
        self.by_id.remove(id);
    }

    /// End the session with this public handle; whether there was one.
    pub fn end(&mut self, handle: &str) -> bool {
        let before = self.by_id.len();
        self.by_id.retain(|_, s| s.handle != handle);
        self.by_id.len() != before
    }

    /// The live sessions, oldest first.
    pub fn list(&mut self, now: Timestamp) -> Vec<Session> {
        self.prune(now);
        let mut v: Vec<Session> = self.by_id.values().cloned().collect();
        v.sort_by(|a, b| (a.since, &a.handle).cmp(&(b.since, &b.handle)));
        v
    }

    fn prune(&mut self, now: Timestamp) {
        self.by_id.retain(|_, s| now < s.expires);
    }
}

/// The session cookie's name: one per instance (cookies ignore ports, so two servers on
/// one host, or a forum on 127.0.0.1, must not share it), `__Host-` prefixed behind TLS.
pub fn cookie_name(instance: &str, tls: bool) -> String {
    use ring::digest::{SHA256, digest};
    let h = digest(&SHA256, instance.as_bytes());
    let tag: String = h.as_ref()[..4].iter().map(|b| format!("{b:02x}")).collect();
    if tls {
        format!("__Host-bansha_{tag}")
    } else {
        format!("bansha_{tag}")
    }
}

/// The `Set-Cookie` value for session `id` (empty with `max_age` 0 to end it).
pub fn set_cookie(name: &str, id: &str, max_age: i64, tls: bool) -> String {
    format!(
        "{name}={id}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}{}",
        if tls { "; Secure" } else { "" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_of_one_repeated_letter_is_too_weak_and_random_hex_is_not() {
        assert!(token_bits("aaaaaaaaaaaaaaaa") < 1.0);
        assert!(token_bits("abababababababab") < MIN_TOKEN_BITS);
        assert!(token_bits("3f9a1c77e2b04d558c21d0e6a94f4b13") > MIN_TOKEN_BITS);
    }

    #[test]
    fn sign_in_names_cannot_pose_as_another_role_or_hide_direction_changes() {
        let m = Role::Moderator;
        assert_eq!(sign_in_name("  版主甲 ", m), Ok(Some("版主甲".into())));
        assert_eq!(sign_in_name("", m), Ok(None));
        assert_eq!(
            sign_in_name("导演A", Role::Director),
            Ok(Some("导演A".into()))
        );
        for bad in [
            "[075]导演A (director)",
            "导演A",
            "阿\u{202E}A",
            "x\u{200B}y",
            "Director",
            "一二三四五六七八九十一二三四五六七",
            "甲（乙）",
        ] {
            assert!(sign_in_name(bad, m).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn sessions_expire_and_the_director_can_end_one() {
        let mut s = Sessions::default();
        let sess = |h: &str, exp| Session {
            role: Role::Moderator,
            name: None,
            csrf: "c".into(),
            handle: h.into(),
            since: 0,
            expires: exp,
            last_seen: 0,
            flash: None,
        };
        s.insert("id1".into(), sess("h1", 100));
        s.insert("id2".into(), sess("h2", 1000));
        assert!(s.get("id1", 99).is_some());
        assert!(s.get("id1", 100).is_none(), "expired at its expiry");
        assert!(s.end("h2"));
        assert!(s.get("id2", 1).is_none(), "ended");
        assert!(!s.end("h2"));
    }

    #[test]
    fn the_cookie_name_differs_per_instance_and_is_host_prefixed_behind_tls() {
        let a = cookie_name("/g/a.sqlite 127.0.0.1:8075", false);
        let b = cookie_name("/g/a.sqlite 127.0.0.1:8076", false);
        assert_ne!(a, b);
        assert!(a.starts_with("bansha_"));
        assert!(cookie_name("x", true).starts_with("__Host-bansha_"));
        assert!(set_cookie("n", "v", 60, true).ends_with("; Secure"));
    }
}
