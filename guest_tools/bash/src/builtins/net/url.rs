//! URLs as `curl` and `wget` read them: `http` or `https` (no scheme means `http://`), user
//! info, a host (name, IPv4, or bracketed IPv6), a port, a path with `.`/`..` segments
//! resolved, and a query; the fragment is dropped. Bytes a request line cannot carry
//! (non-ASCII, controls) are percent-encoded as curl does (lower-case hex).

use std::fmt;

/// A parsed `http`/`https` URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Url {
    /// `http` or `https` (lower case).
    pub scheme: String,
    /// `user[:password]` before the host, if any (as written).
    pub userinfo: Option<String>,
    /// The host, lower case; an IPv6 literal keeps its brackets.
    pub host: String,
    /// The port written in the URL, if any.
    pub port: Option<u16>,
    /// The path, starting with `/`.
    pub path: String,
    /// The query after `?`, if any (without the `?`).
    pub query: Option<String>,
}

/// Why a URL was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlError {
    /// Not a URL at all (curl's exit 3, "URL using bad/illegal format or missing URL").
    Malformed,
    /// A scheme other than http/https (curl's exit 1), as written.
    Unsupported(String),
}

/// How strictly to read a URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// curl: spaces and control characters make the URL malformed.
    Curl,
    /// wget: spaces are percent-encoded.
    Wget,
}

impl Url {
    /// Parses `input` as curl or wget would.
    pub fn parse(input: &str, strictness: Strictness) -> Result<Url, UrlError> {
        if input.is_empty() {
            return Err(UrlError::Malformed);
        }
        if strictness == Strictness::Curl && input.bytes().any(|b| b <= b' ' || b == 0x7f) {
            return Err(UrlError::Malformed);
        }
        let input = input.trim_matches(|c: char| c.is_ascii_whitespace());
        let input = input.split_once('#').map_or(input, |(before, _)| before);
        let (written, rest) = match input.find("://") {
            Some(i) if is_scheme(&input[..i]) => (&input[..i], &input[i + 3..]),
            _ => ("http", input),
        };
        let scheme = written.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(UrlError::Unsupported(written.to_string()));
        }
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        let (userinfo, hostport) = match authority.rfind('@') {
            Some(i) => (Some(authority[..i].to_string()), &authority[i + 1..]),
            None => (None, authority),
        };
        let (host, port) = split_host_port(hostport)?;
        let (path, query) = match tail.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (tail, None),
        };
        Ok(Url {
            scheme,
            userinfo,
            host,
            port,
            path: encode(&remove_dot_segments(if path.is_empty() {
                "/"
            } else {
                path
            })),
            query: query.map(encode),
        })
    }

    /// The port the request goes to: the written one or the scheme's default.
    pub fn port_or_default(&self) -> u16 {
        self.port
            .unwrap_or(if self.scheme == "https" { 443 } else { 80 })
    }

    /// `host[:port]` as the `Host` header carries it (the port only when not the default).
    pub fn authority(&self) -> String {
        match self.port {
            Some(p) if p != self.port_or_default_of_scheme() => format!("{}:{p}", self.host),
            _ => self.host.clone(),
        }
    }

    fn port_or_default_of_scheme(&self) -> u16 {
        if self.scheme == "https" { 443 } else { 80 }
    }

    /// The host without IPv6 brackets (as curl names it in messages).
    pub fn bare_host(&self) -> &str {
        self.host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(&self.host)
    }

    /// Whether the host is `localhost` or an IP literal (nothing to resolve: a failure is a
    /// refused connection, not an unknown name).
    pub fn host_is_address(&self) -> bool {
        let h = self.bare_host();
        h == "localhost" || h.parse::<std::net::IpAddr>().is_ok()
    }

    /// The path and query of the request line.
    pub fn path_and_query(&self) -> String {
        match &self.query {
            Some(q) => format!("{}?{q}", self.path),
            None => self.path.clone(),
        }
    }

    /// Appends `data` to the query with `&` (curl's `-G`).
    pub fn append_query(&mut self, data: &str) {
        if data.is_empty() {
            return;
        }
        self.query = Some(match self.query.take() {
            Some(q) if !q.is_empty() => format!("{q}&{}", encode(data)),
            _ => encode(data),
        });
    }

    /// The last segment of the path (empty for `/` or a path ending in `/`).
    pub fn last_segment(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or("")
    }

    /// Resolves a `Location` header against this URL (RFC 3986 reference resolution).
    pub fn join(&self, location: &str) -> Result<Url, UrlError> {
        let location = location.trim();
        if let Some(i) = location.find("://")
            && is_scheme(&location[..i])
        {
            return Url::parse(location, Strictness::Wget);
        }
        if let Some(rest) = location.strip_prefix("//") {
            return Url::parse(&format!("{}://{rest}", self.scheme), Strictness::Wget);
        }
        let mut base = self.clone();
        base.userinfo = None;
        let (path, query) = match location.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (location, None),
        };
        let path = path.split_once('#').map_or(path, |(p, _)| p);
        let query = query.map(|q| q.split_once('#').map_or(q, |(q, _)| q));
        if path.is_empty() {
            if let Some(q) = query {
                base.query = Some(encode(q));
            }
            return Ok(base);
        }
        let merged = if path.starts_with('/') {
            path.to_string()
        } else {
            let dir = &self.path[..self.path.rfind('/').map_or(0, |i| i + 1)];
            format!("{dir}{path}")
        };
        base.path = encode(&remove_dot_segments(&merged));
        base.query = query.map(encode);
        Ok(base)
    }
}

impl fmt::Display for Url {
    /// The URL as curl shows it (`%{url_effective}`): scheme, host, port when written, path
    /// and query.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://", self.scheme)?;
        if let Some(u) = &self.userinfo {
            write!(f, "{u}@")?;
        }
        write!(f, "{}", self.host)?;
        if let Some(p) = self.port {
            write!(f, ":{p}")?;
        }
        write!(f, "{}", self.path_and_query())
    }
}

/// Whether `s` is a URL scheme: a letter, then letters, digits, `+`, `-` or `.`.
fn is_scheme(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// Splits `host[:port]` (IPv6 in brackets); an empty or bad host or port is malformed.
fn split_host_port(s: &str) -> Result<(String, Option<u16>), UrlError> {
    let (host, port) = if s.starts_with('[') {
        let close = s.find(']').ok_or(UrlError::Malformed)?;
        let host = &s[..=close];
        let inner = &host[1..host.len() - 1];
        if inner.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(UrlError::Malformed);
        }
        match &s[close + 1..] {
            "" => (host, None),
            rest => (
                host,
                Some(rest.strip_prefix(':').ok_or(UrlError::Malformed)?),
            ),
        }
    } else {
        match s.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (s, None),
        }
    };
    if host.is_empty()
        || host
            .bytes()
            .any(|b| b <= b' ' || b"<>\"{}|\\^`%/?#@".contains(&b))
    {
        return Err(UrlError::Malformed);
    }
    let port = match port {
        None | Some("") => None,
        Some(p) if p.bytes().all(|b| b.is_ascii_digit()) => {
            Some(p.parse::<u16>().map_err(|_| UrlError::Malformed)?)
        }
        Some(_) => return Err(UrlError::Malformed),
    };
    Ok((host.to_ascii_lowercase(), port))
}

/// Removes `.` and `..` segments (RFC 3986 §5.2.4).
fn remove_dot_segments(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    let last = segments.len() - 1;
    for (i, seg) in segments.iter().enumerate() {
        match *seg {
            "." => {
                if i == last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if i == last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    let joined = out.join("/");
    if joined.starts_with('/') {
        joined
    } else {
        format!("/{joined}")
    }
}

/// Percent-encodes the bytes a request target cannot carry (controls, space, non-ASCII and
/// `"<>\^`{|}`), keeping everything else, including existing `%XX`, as it is.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b <= b' ' || b >= 0x7f || b"\"<>\\^`{|}".contains(&b) {
            out.push_str(&format!("%{b:02x}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

/// Decodes `%XX` escapes (invalid escapes stay as they are).
pub fn decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// `application/x-www-form-urlencoded` encoding as curl's `--data-urlencode` does it:
/// letters, digits and `-._~` stay, space becomes `+`, everything else `%XX` (upper case).
pub fn form_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len());
    for &b in data {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curl(s: &str) -> Result<Url, UrlError> {
        Url::parse(s, Strictness::Curl)
    }

    #[test]
    fn parses_scheme_host_port_path_query() {
        let u = curl("https://Gmail.Local:8443/a/b?x=1&y=2#frag").unwrap();
        assert_eq!(u.scheme, "https");
        assert_eq!(u.host, "gmail.local");
        assert_eq!(u.port, Some(8443));
        assert_eq!(u.path, "/a/b");
        assert_eq!(u.query.as_deref(), Some("x=1&y=2"));
        assert_eq!(u.authority(), "gmail.local:8443");
        assert_eq!(u.path_and_query(), "/a/b?x=1&y=2");
        assert_eq!(u.to_string(), "https://gmail.local:8443/a/b?x=1&y=2");
    }

    #[test]
    fn no_scheme_means_http_and_empty_path_is_slash() {
        let u = curl("localhost:9100").unwrap();
        assert_eq!((u.scheme.as_str(), u.host.as_str()), ("http", "localhost"));
        assert_eq!((u.port, u.path.as_str()), (Some(9100), "/"));
        assert!(u.host_is_address());
        let u = curl("HTTP://example.com?q=1").unwrap();
        assert_eq!(u.to_string(), "http://example.com/?q=1");
        assert!(!u.host_is_address());
    }

    #[test]
    fn default_ports_are_left_out_of_the_host_header() {
        assert_eq!(curl("http://a.local:80/").unwrap().authority(), "a.local");
        assert_eq!(curl("https://a.local:443/").unwrap().authority(), "a.local");
        assert_eq!(
            curl("https://a.local:80/").unwrap().authority(),
            "a.local:80"
        );
        assert_eq!(curl("https://a.local/").unwrap().port_or_default(), 443);
    }

    #[test]
    fn ipv6_userinfo_and_dot_segments() {
        let u = curl("http://user:pw@[::1]:8080/a/../b/./c").unwrap();
        assert_eq!(u.host, "[::1]");
        assert_eq!(u.bare_host(), "::1");
        assert_eq!(u.userinfo.as_deref(), Some("user:pw"));
        assert_eq!(u.path, "/b/c");
        assert_eq!(curl("http://h/a/..").unwrap().path, "/");
        assert_eq!(curl("http://h/../../x").unwrap().path, "/x");
    }

    #[test]
    fn bad_urls_are_malformed_and_other_schemes_unsupported() {
        for bad in [
            "",
            "http://",
            "/tmp/x",
            "http://a b/",
            "http://h/a b",
            "http://h:99999/",
            "http://h:8x/",
            "http://[zz]/",
        ] {
            assert_eq!(curl(bad), Err(UrlError::Malformed), "{bad:?}");
        }
        assert_eq!(curl("ftp://h/x"), Err(UrlError::Unsupported("ftp".into())));
    }

    #[test]
    fn non_ascii_is_percent_encoded_and_wget_encodes_spaces() {
        assert_eq!(curl("http://h/é").unwrap().path, "/%c3%a9");
        let u = Url::parse("http://h/a b?q=c d", Strictness::Wget).unwrap();
        assert_eq!(u.path_and_query(), "/a%20b?q=c%20d");
    }

    #[test]
    fn locations_resolve_against_the_request() {
        let base = curl("http://h:81/dir/page?x=1").unwrap();
        let j = |l: &str| base.join(l).unwrap().to_string();
        assert_eq!(j("/abs"), "http://h:81/abs");
        assert_eq!(j("rel?y=2"), "http://h:81/dir/rel?y=2");
        assert_eq!(j("../up"), "http://h:81/up");
        assert_eq!(j("?z=3"), "http://h:81/dir/page?z=3");
        assert_eq!(j("//other/p"), "http://other/p");
        assert_eq!(j("https://x.local/y"), "https://x.local/y");
    }

    #[test]
    fn query_appending_and_names() {
        let mut u = curl("http://h/f/report.pdf").unwrap();
        assert_eq!(u.last_segment(), "report.pdf");
        u.append_query("a=1");
        u.append_query("b=2");
        assert_eq!(u.path_and_query(), "/f/report.pdf?a=1&b=2");
        assert_eq!(curl("http://h/dir/").unwrap().last_segment(), "");
    }

    #[test]
    fn encodings() {
        assert_eq!(form_encode(b"b c&d/e~"), "b+c%26d%2Fe~");
        assert_eq!(decode("a%20b%zz%4"), b"a b%zz%4");
    }
}
