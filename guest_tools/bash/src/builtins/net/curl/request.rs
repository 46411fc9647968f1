//! The requests curl sends: its own headers (`User-Agent`, `Accept`, authorization, ...),
//! then the `-H` ones, which replace or remove them; and what `-v` shows of an exchange.

use base64::Engine as _;

use super::args::DataKind;
use super::body::Payload;
use super::{Session, VERSION};
use crate::builtins::net::Request;
use crate::builtins::net::url::{Url, decode};

impl Session<'_> {
    /// The request for `url`: curl's headers, then `-H` ones (which replace or remove them).
    pub(super) fn request(&mut self, method: &str, url: &Url, body: Option<&Payload>) -> Request {
        let cfg = self.cfg;
        let mut custom: Vec<(String, Option<String>)> = Vec::new();
        if cfg.data.iter().any(|d| d.kind == DataKind::Json) {
            custom.push(("Content-Type".into(), Some("application/json".into())));
            custom.push(("Accept".into(), Some("application/json".into())));
        }
        for h in &cfg.headers {
            match h.strip_prefix('@') {
                Some(file) => match crate::builtins::read_input(self.sh, self.io, file) {
                    Ok(b) => {
                        for line in String::from_utf8_lossy(&b).lines() {
                            push_custom(&mut custom, line);
                        }
                    }
                    Err(_) => self.warn(&format!("Warning: Failed to open {file}!")),
                },
                None => push_custom(&mut custom, h),
            }
        }
        let is_custom = |name: &str| custom.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
        let mut headers: Vec<(String, String)> = Vec::new();
        let mut internal = |name: &str, value: String| {
            if !is_custom(name) {
                headers.push((name.to_string(), value));
            }
        };
        let user = cfg.user.clone().or_else(|| {
            url.userinfo
                .as_ref()
                .map(|u| String::from_utf8_lossy(&decode(u)).into_owned())
        });
        if let Some(user) = user {
            let user = if user.contains(':') {
                user
            } else {
                format!("{user}:")
            };
            internal(
                "Authorization",
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(user.as_bytes())
                ),
            );
        } else if let Some(token) = &cfg.bearer {
            internal("Authorization", format!("Bearer {token}"));
        }
        if let Some(range) = &cfg.range {
            internal("Range", format!("bytes={range}"));
        }
        match cfg.user_agent.as_deref() {
            Some("") => {}
            Some(ua) => internal("User-Agent", ua.to_string()),
            None => internal("User-Agent", format!("curl/{VERSION}")),
        }
        if let Some(r) = &cfg.referer {
            internal("Referer", r.clone());
        }
        if !cfg.cookies.is_empty() {
            internal("Cookie", cfg.cookies.join("; "));
        }
        internal("Accept", "*/*".into());
        for (k, v) in &custom {
            if let Some(v) = v {
                headers.push((k.clone(), v.clone()));
            }
        }
        let body_bytes = body.map(|b| b.bytes.clone()).unwrap_or_default();
        if let Some(b) = body {
            if !is_custom("Content-Length") {
                headers.push(("Content-Length".into(), b.bytes.len().to_string()));
            }
            if let Some(t) = &b.content_type
                && !is_custom("Content-Type")
            {
                headers.push(("Content-Type".into(), t.clone()));
            }
        }
        Request {
            method: method.to_string(),
            url: url.clone(),
            headers,
            body: body_bytes,
            connect_timeout: cfg.connect_timeout,
            timeout: cfg.max_time,
        }
    }

    pub(super) fn verbose_request(&self, request: &Request) {
        let host = request.url.bare_host();
        let port = request.url.port_or_default();
        let mut text = format!(
            "*   Trying {host}:{port}...\n* Connected to {host} ({host}) port {port} (#0)\n"
        );
        for line in request_head(request).split_inclusive("\r\n") {
            text.push_str("> ");
            text.push_str(line);
        }
        if !request.body.is_empty() {
            text.push_str(&format!("}} [{} bytes data]\n", request.body.len()));
        }
        self.io.err(text);
    }

    pub(super) fn verbose_response(&self, block: &str) {
        let mut text = String::new();
        for line in block.split_inclusive("\r\n") {
            text.push_str("< ");
            text.push_str(line);
        }
        self.io.err(text);
    }
}

/// Adds one `-H` line: `Name: value`, `Name:` (remove the header), `Name;` (send it empty).
fn push_custom(custom: &mut Vec<(String, Option<String>)>, line: &str) {
    let colon = line.find(':');
    let semi = line.find(';');
    match (colon, semi) {
        (Some(c), _) => {
            let name = line[..c].trim();
            let value = line[c + 1..].trim();
            custom.push((
                name.to_string(),
                (!value.is_empty()).then(|| value.to_string()),
            ));
        }
        (None, Some(s)) if line[s + 1..].trim().is_empty() => {
            custom.push((line[..s].trim().to_string(), Some(String::new())));
        }
        _ => {}
    }
}

/// The request line and headers as curl sends them (what `-v` shows).
pub(super) fn request_head(request: &Request) -> String {
    let mut text = format!(
        "{} {} HTTP/1.1\r\nHost: {}\r\n",
        request.method,
        request.url.path_and_query(),
        request.url.authority()
    );
    for (k, v) in &request.headers {
        text.push_str(&format!("{k}: {v}\r\n"));
    }
    text.push_str("\r\n");
    text
}
