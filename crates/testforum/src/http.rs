//! A minimal HTTP/1.1 request reader and response writer (one request per connection).

use std::io::{BufRead, BufReader, Read};
use std::net::TcpStream;

#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub method: String,
    /// Path and query as sent (`/forum.php?mod=viewthread&tid=1`).
    pub target: String,
    pub path: String,
    pub query: Vec<(String, Vec<u8>)>,
    pub cookies: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// A query parameter decoded as UTF-8 (lossy).
    pub fn q(&self, key: &str) -> Option<String> {
        self.query
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
    }
    pub fn q_u64(&self, key: &str) -> Option<u64> {
        self.q(key).and_then(|v| v.trim().parse().ok())
    }
    pub fn cookie(&self, name: &str) -> Option<&str> {
        self.cookies
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
    /// The body as `application/x-www-form-urlencoded` pairs (values as raw bytes).
    pub fn form(&self) -> Vec<(String, Vec<u8>)> {
        parse_pairs(&self.body)
    }
}

/// Read one request. `None` when the peer sent nothing usable.
pub(crate) fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut r = BufReader::new(stream);
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut len = 0usize;
    let mut cookies = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h).ok()? == 0 {
            break;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let Some((name, value)) = h.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => len = value.parse().unwrap_or(0),
            "cookie" => {
                for c in value.split(';') {
                    if let Some((k, v)) = c.trim().split_once('=') {
                        cookies.push((k.trim().to_string(), v.trim().to_string()));
                    }
                }
            }
            _ => {}
        }
    }
    let mut body = vec![0u8; len.min(1 << 20)];
    r.read_exact(&mut body).ok()?;
    let t = target.split('#').next().unwrap_or("");
    let (path, query) = match t.split_once('?') {
        Some((p, q)) => (p.to_string(), parse_pairs(q.as_bytes())),
        None => (t.to_string(), Vec::new()),
    };
    Some(Request {
        method,
        target,
        path,
        query,
        cookies,
        body,
    })
}

/// Split `a=1&b=2` (also `&amp;`) and percent-decode (`+` = space). Values stay bytes so
/// that a GBK-encoded form can be decoded in the site charset.
pub(crate) fn parse_pairs(s: &[u8]) -> Vec<(String, Vec<u8>)> {
    let s = String::from_utf8_lossy(s).replace("&amp;", "&");
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (
                String::from_utf8_lossy(&pct_decode(k)).into_owned(),
                pct_decode(v),
            )
        })
        .collect()
}

pub(crate) fn pct_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                match u8::from_str_radix(std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("zz"), 16)
                {
                    Ok(v) => {
                        out.push(v);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// Percent-encode bytes (RFC 3986 unreserved kept), as PHP `rawurlencode`.
pub(crate) fn pct_encode(b: &[u8]) -> String {
    let mut s = String::new();
    for &c in b {
        if c.is_ascii_alphanumeric() || b"-_.~".contains(&c) {
            s.push(c as char);
        } else {
            s.push_str(&format!("%{c:02X}"));
        }
    }
    s
}

/// A response to write.
#[derive(Debug, Clone)]
pub(crate) struct Response {
    pub status: u16,
    pub content_type: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn new(status: u16, content_type: &str, body: Vec<u8>) -> Self {
        Response {
            status,
            content_type: content_type.into(),
            headers: Vec::new(),
            body,
        }
    }
    pub fn redirect(status: u16, location: &str) -> Self {
        let mut r = Response::new(status, "text/html", Vec::new());
        r.headers.push(("Location".into(), location.into()));
        r
    }
    pub fn head(&self) -> Vec<u8> {
        let reason = match self.status {
            200 => "OK",
            301 => "Moved Permanently",
            302 => "Found",
            404 => "Not Found",
            500 => "Internal Server Error",
            503 => "Service Unavailable",
            _ => "Status",
        };
        let mut h = format!(
            "HTTP/1.1 {} {}\r\nServer: nginx\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.status,
            reason,
            self.content_type,
            self.body.len()
        );
        for (k, v) in &self.headers {
            h.push_str(&format!("{k}: {v}\r\n"));
        }
        h.push_str("\r\n");
        h.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_pairs_accept_amp_entities_and_percent() {
        let q = parse_pairs(b"mod=viewthread&amp;tid=5&extra=page%3D1&x=a+b&bad=%zz&end=%4");
        let get = |k: &str| {
            q.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
        };
        assert_eq!(get("tid").as_deref(), Some("5"));
        assert_eq!(get("extra").as_deref(), Some("page=1"));
        assert_eq!(get("x").as_deref(), Some("a b"));
        assert_eq!(get("bad").as_deref(), Some("%zz"));
        assert_eq!(get("end").as_deref(), Some("%4"));
        assert_eq!(pct_decode("%E7%94%B2"), "甲".as_bytes());
        assert_eq!(pct_encode("甲 a".as_bytes()), "%E7%94%B2%20a");
    }
}
