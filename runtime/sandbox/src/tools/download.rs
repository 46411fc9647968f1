//! `Download`, Claw-Eval's last sandbox tool, on the host: a file of the trial's filesystem as
//! base64 text, answered as its sandbox server answers (`/download` in `sandbox/server.py`):
//! `{"path", "content_b64", "mime_type", "size_bytes"}`, or `{"error"}` for a missing file or
//! one over `max_bytes`. Nothing is decoded, so it needs no guest.

use base64::Engine as _;
use clawrun_vfs::{NodeKind, Vfs};
use serde_json::Value;

/// `max_bytes` when the call gives none (50 MB, as Claw-Eval's).
pub const DEFAULT_MAX_BYTES: u64 = 50_000_000;

/// The answer to one call.
pub struct Answer {
    /// The text the model sees (JSON as Python's `json.dumps` writes it).
    pub text: String,
    /// Whether it is a tool error (bad arguments, a folder): the server's 4xx and 5xx.
    pub is_error: bool,
}

/// Answers `Download(args)` over `vfs`, relative paths taken from `cwd`.
pub fn answer(args: &Value, cwd: &str, vfs: &Vfs) -> Answer {
    let (path, max_bytes) = match parse(args) {
        Ok(parsed) => parsed,
        Err(message) => {
            return Answer {
                text: format!("Download: {message}"),
                is_error: true,
            };
        }
    };
    let shown = python_path(&path);
    let absolute = if path.starts_with('/') {
        path.clone()
    } else {
        format!("{}/{path}", cwd.trim_end_matches('/'))
    };
    let error = |message: String| Answer {
        text: format!("{{\"error\": {}}}", json_str(&message)),
        is_error: false,
    };
    let Some(meta) = vfs
        .resolve(&absolute)
        .ok()
        .and_then(|ino| vfs.metadata(ino).ok())
    else {
        return error(format!("File not found: {shown}"));
    };
    if meta.kind == NodeKind::Directory {
        return Answer {
            text: format!("Download: {shown} is a directory; give the path of a file"),
            is_error: true,
        };
    }
    if meta.size > max_bytes {
        return error(format!(
            "File too large: {} bytes (max {max_bytes})",
            meta.size
        ));
    }
    let bytes = match vfs.read_file(&absolute) {
        Ok(b) => b,
        Err(e) => {
            return Answer {
                text: format!("Download: reading {shown}: {e}"),
                is_error: true,
            };
        }
    };
    let b64 = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Answer {
        text: format!(
            "{{\"path\": {}, \"content_b64\": \"{b64}\", \"mime_type\": {}, \"size_bytes\": {}}}",
            json_str(&shown),
            json_str(mime_type(&shown)),
            bytes.len()
        ),
        is_error: false,
    }
}

/// `path` and `max_bytes`, checked as the server's request model checks them (the messages
/// worded as the guest tools' are).
fn parse(args: &Value) -> Result<(String, u64), String> {
    let kind = match args {
        Value::Object(_) | Value::Null => None,
        Value::Array(_) => Some("an array"),
        Value::String(_) => Some("a string"),
        Value::Number(_) => Some("a number"),
        Value::Bool(_) => Some("a boolean"),
    };
    if let Some(kind) = kind {
        return Err(format!("arguments must be a JSON object, got {kind}"));
    }
    let path = match args.get("path") {
        Some(Value::String(p)) => p.clone(),
        Some(other) => {
            return Err(format!(
                "invalid value for field \"path\": expected a string, got {other}"
            ));
        }
        None => return Err("missing required field \"path\"".into()),
    };
    let max_bytes = match args.get("max_bytes") {
        None | Some(Value::Null) => DEFAULT_MAX_BYTES,
        Some(v) => {
            let n = v
                .as_i64()
                .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                .ok_or(format!(
                    "invalid value for field \"max_bytes\": expected an integer, got {v}"
                ))?;
            // A negative cap refuses every file with content, as the server's comparison does.
            u64::try_from(n).unwrap_or(0)
        }
    };
    Ok((path, max_bytes))
}

/// `str(Path(path))`: repeated slashes and `.` parts gone, a trailing slash dropped.
fn python_path(path: &str) -> String {
    let absolute = path.starts_with('/');
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    match (absolute, parts.is_empty()) {
        (true, _) => format!("/{}", parts.join("/")),
        (false, true) => ".".into(),
        (false, false) => parts.join("/"),
    }
}

/// A JSON string as `json.dumps(..., ensure_ascii=False)` writes it.
fn json_str(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// Python's `mimetypes.guess_type(path)[0]` for the usual extensions (its built-in table),
/// `application/octet-stream` otherwise.
pub fn mime_type(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = match name.rfind('.') {
        Some(i) if i > 0 => name[i + 1..].to_ascii_lowercase(),
        _ => return "application/octet-stream",
    };
    match ext.as_str() {
        "mp4" | "m4v" => "video/mp4",
        "mov" => "video/quicktime",
        "mkv" => "video/x-matroska",
        "webm" => "video/webm",
        "avi" => "video/x-msvideo",
        "flv" => "video/x-flv",
        "wmv" => "video/x-ms-wmv",
        "mpeg" | "mpg" => "video/mpeg",
        "gif" => "image/gif",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "svg" => "image/svg+xml",
        "tif" | "tiff" => "image/tiff",
        "ico" => "image/vnd.microsoft.icon",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "js" | "mjs" => "text/javascript",
        "json" => "application/json",
        "txt" => "text/plain",
        "md" => "text/markdown",
        "csv" => "text/csv",
        "py" => "text/x-python",
        "sh" => "text/x-sh",
        "xml" => "application/xml",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        "tar" => "application/x-tar",
        "wasm" => "application/wasm",
        "mp3" => "audio/mpeg",
        "wav" => "audio/x-wav",
        "ogg" => "audio/ogg",
        "xlsx" => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "docx" => "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "pptx" => "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vfs() -> Vfs {
        let mut vfs = Vfs::new();
        vfs.create_dir_all("/workspace/out").unwrap();
        vfs.write_file("/workspace/out/clip.mp4", b"\x00\x01video")
            .unwrap();
        vfs
    }

    #[test]
    fn a_file_comes_back_as_the_server_writes_it() {
        let a = answer(&json!({"path": "out//./clip.mp4"}), "/workspace", &vfs());
        assert!(!a.is_error);
        assert_eq!(
            a.text,
            r#"{"path": "out/clip.mp4", "content_b64": "AAF2aWRlbw==", "mime_type": "video/mp4", "size_bytes": 7}"#
        );
    }

    #[test]
    fn missing_and_too_large_files_are_answers_not_errors() {
        let a = answer(&json!({"path": "/workspace/nope.gif"}), "/", &vfs());
        assert_eq!(
            (a.text.as_str(), a.is_error),
            (r#"{"error": "File not found: /workspace/nope.gif"}"#, false)
        );
        let a = answer(
            &json!({"path": "/workspace/out/clip.mp4", "max_bytes": 6}),
            "/",
            &vfs(),
        );
        assert_eq!(a.text, r#"{"error": "File too large: 7 bytes (max 6)"}"#);
    }

    #[test]
    fn bad_arguments_and_folders_are_tool_errors() {
        for (args, said) in [
            (json!({}), "Download: missing required field \"path\""),
            (
                json!([1]),
                "Download: arguments must be a JSON object, got an array",
            ),
            (
                json!({"path": 3}),
                "Download: invalid value for field \"path\": expected a string, got 3",
            ),
        ] {
            let a = answer(&args, "/workspace", &vfs());
            assert_eq!((a.text.as_str(), a.is_error), (said, true));
        }
        assert!(answer(&json!({"path": "a", "max_bytes": "x"}), "/", &vfs()).is_error);
        let a = answer(&json!({"path": "/workspace/out/"}), "/", &vfs());
        assert!(
            a.is_error && a.text.contains("/workspace/out is a directory"),
            "{}",
            a.text
        );
    }

    #[test]
    fn paths_print_as_python_prints_them() {
        assert_eq!(python_path("/a//b/./c/"), "/a/b/c");
        assert_eq!(python_path("./x"), "x");
        assert_eq!(python_path("a/../b"), "a/../b");
        assert_eq!(mime_type("/w/A.JPG"), "image/jpeg");
        assert_eq!(mime_type("/w/.mp4"), "application/octet-stream");
    }
}
