//! What a page may load: `file:///workspace/...` from the VFS snapshot it was handed (never the
//! host's disk), and nothing else. Every request the page makes passes through here (the
//! DevTools Fetch domain pauses it); the answer is a body to fulfil it with or a refusal.

use clawrun_vfs::Vfs;

/// The root under which pages may read files.
pub const SERVED_ROOT: &str = "/workspace";

/// Bytes of one served file at most.
pub const MAX_SERVED_BYTES: usize = 32 << 20;

/// The answer to one paused request.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// Fulfil with this status, content type and body.
    Serve {
        /// HTTP-style status (200, or 404 for a file that is not there).
        status: u16,
        /// `Content-Type`.
        content_type: &'static str,
        /// The body.
        body: Vec<u8>,
    },
    /// Refuse (the page sees a network error), with the reason kept for the caller.
    Refuse(String),
}

/// The VFS path `url` names, when it is a `file://` URL under [`SERVED_ROOT`]: percent-escapes
/// decoded, query and fragment dropped, `.` and `..` resolved without leaving the root.
pub fn workspace_path(url: &str) -> Option<String> {
    let rest = url.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(rest)?;
    let mut parts: Vec<&str> = Vec::new();
    for seg in decoded.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    let path = format!("/{}", parts.join("/"));
    (path == SERVED_ROOT || path.starts_with(&format!("{SERVED_ROOT}/"))).then_some(path)
}

/// `%XX` decoded (UTF-8); `None` for a bad escape, bad UTF-8 or a NUL.
fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok().filter(|s| !s.contains('\0'))
}

/// How the page's request for `url` is answered from `files`.
pub fn answer(files: &Vfs, url: &str) -> Answer {
    if url.starts_with("data:") || url.starts_with("blob:") || url == "about:blank" {
        // Never reach here in practice (not network requests), but harmless if they do.
        return Answer::Refuse(format!("{url}: not a request the browser should make"));
    }
    let Some(path) = workspace_path(url) else {
        return Answer::Refuse(format!(
            "{}: refused (pages may load only file:///workspace/... files of the sandbox)",
            shorten(url)
        ));
    };
    match files.read_file(&path) {
        Ok(body) if body.len() <= MAX_SERVED_BYTES => Answer::Serve {
            status: 200,
            content_type: content_type(&path),
            body,
        },
        Ok(body) => Answer::Refuse(format!(
            "{path}: {} bytes, more than the {MAX_SERVED_BYTES} a page may load",
            body.len()
        )),
        Err(_) => Answer::Serve {
            status: 404,
            content_type: "text/plain",
            body: format!("{path}: no such file in the sandbox").into_bytes(),
        },
    }
}

/// `url` cut to 200 characters for messages.
fn shorten(url: &str) -> String {
    let mut s: String = url.chars().take(200).collect();
    if s.len() < url.len() {
        s.push_str("...");
    }
    s
}

/// The content type of a served file, by extension.
pub fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("json") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("webp") => "image/webp",
        Some("ico") => "image/x-icon",
        Some("woff") => "font/woff",
        Some("woff2") => "font/woff2",
        Some("ttf") => "font/ttf",
        Some("otf") => "font/otf",
        Some("txt" | "md" | "csv") => "text/plain; charset=utf-8",
        Some("xml") => "application/xml",
        Some("mp4") => "video/mp4",
        Some("webm") => "video/webm",
        Some("mp3") => "audio/mpeg",
        Some("wav") => "audio/wav",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_workspace_files_urls_name_a_path() {
        assert_eq!(
            workspace_path("file:///workspace/out.html").as_deref(),
            Some("/workspace/out.html")
        );
        assert_eq!(
            workspace_path("file:///workspace/a%20b.html?x#y").as_deref(),
            Some("/workspace/a b.html")
        );
        assert_eq!(
            workspace_path("file://localhost/workspace/x.css").as_deref(),
            Some("/workspace/x.css")
        );
        assert_eq!(workspace_path("file:///workspace/../etc/passwd"), None);
        assert_eq!(workspace_path("file:///workspace/%2e%2e/etc/passwd"), None);
        assert_eq!(workspace_path("file:///etc/passwd"), None);
        assert_eq!(workspace_path("file:///workspacex/a"), None);
        assert_eq!(workspace_path("http://127.0.0.1/workspace/a"), None);
        assert_eq!(workspace_path("file:///workspace/%00"), None);
    }

    #[test]
    fn files_come_from_the_snapshot_and_everything_else_is_refused() {
        let mut vfs = Vfs::new();
        vfs.create_dir_all("/workspace").unwrap();
        vfs.write_file("/workspace/a.css", b"body{}").unwrap();
        vfs.write_file("/etc-secret", b"no").unwrap();
        assert_eq!(
            answer(&vfs, "file:///workspace/a.css"),
            Answer::Serve {
                status: 200,
                content_type: "text/css; charset=utf-8",
                body: b"body{}".to_vec()
            }
        );
        assert!(matches!(
            answer(&vfs, "file:///workspace/none.js"),
            Answer::Serve { status: 404, .. }
        ));
        assert!(matches!(
            answer(&vfs, "file:///etc-secret"),
            Answer::Refuse(_)
        ));
        assert!(matches!(
            answer(&vfs, "http://127.0.0.1:8080/"),
            Answer::Refuse(_)
        ));
        assert!(matches!(
            answer(&vfs, "https://example.com/x.js"),
            Answer::Refuse(_)
        ));
    }
}
