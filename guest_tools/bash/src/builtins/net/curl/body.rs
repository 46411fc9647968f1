//! The request body curl builds from `-d`/`--data-*`/`--json`, `-F`, and `-T`, read once
//! for all URLs (as curl reads them while parsing its arguments).

use sha2::{Digest, Sha256};

use super::args::{Config, DataKind};
use crate::builtins::net::url::form_encode;

/// A body and the `Content-Type` it implies.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Payload {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The implied type (`None` for `-T` uploads, which send none).
    pub content_type: Option<String>,
}

/// Reads files and stdin for the body.
pub trait Source {
    /// The bytes of `name` (`-` is stdin), or the reason it cannot be read.
    fn read(&mut self, name: &str) -> Result<Vec<u8>, String>;
}

/// The data options joined into one string (`-d a -d b` is `a&b`; `--json` parts are
/// concatenated), or `None` without data options. Unreadable `@file`s count as empty, with
/// curl's warning passed to `warn`.
pub fn data(cfg: &Config, src: &mut dyn Source, warn: &mut dyn FnMut(String)) -> Option<Vec<u8>> {
    if cfg.data.is_empty() {
        return None;
    }
    let mut out: Vec<u8> = Vec::new();
    let mut prev_json = false;
    for (i, d) in cfg.data.iter().enumerate() {
        let json = d.kind == DataKind::Json;
        if i > 0 && !(json && prev_json) {
            out.push(b'&');
        }
        prev_json = json;
        let mut file = |name: &str| match src.read(name) {
            Ok(b) => b,
            Err(_) => {
                warn(format!(
                    "Warning: Couldn't read data from file \"{name}\", this makes an empty POST."
                ));
                Vec::new()
            }
        };
        match d.kind {
            DataKind::Ascii => match d.value.strip_prefix('@') {
                Some(name) => out.extend(
                    file(name)
                        .into_iter()
                        .filter(|b| *b != b'\r' && *b != b'\n'),
                ),
                None => out.extend_from_slice(d.value.as_bytes()),
            },
            DataKind::Binary | DataKind::Json => match d.value.strip_prefix('@') {
                Some(name) => out.extend(file(name)),
                None => out.extend_from_slice(d.value.as_bytes()),
            },
            DataKind::Raw => out.extend_from_slice(d.value.as_bytes()),
            DataKind::UrlEncode => out.extend(urlencoded(&d.value, &mut file).into_bytes()),
        }
    }
    Some(out)
}

/// One `--data-urlencode`/`--url-query` argument: `name=content`, `=content`, `name@file`,
/// `@file` or `content`.
pub fn urlencoded(arg: &str, file: &mut dyn FnMut(&str) -> Vec<u8>) -> String {
    let split = arg.find('=').or_else(|| arg.find('@'));
    let (name, content) = match split {
        Some(i) if arg.as_bytes()[i] == b'@' => (&arg[..i], file(&arg[i + 1..])),
        Some(i) => (&arg[..i], arg.as_bytes()[i + 1..].to_vec()),
        None => ("", arg.as_bytes().to_vec()),
    };
    let encoded = form_encode(&content);
    if name.is_empty() {
        encoded
    } else {
        format!("{name}={encoded}")
    }
}

/// The `multipart/form-data` body of the `-F` fields. Each field is `name=value`,
/// `name=@file[;type=T][;filename=F]` (a file part) or `name=<file` (the file's text as the
/// value); `--form-string` fields are literal. The boundary is derived from the content, so
/// the same form gives the same bytes.
pub fn multipart(fields: &[(String, bool)], src: &mut dyn Source) -> Result<Payload, String> {
    struct Part {
        name: String,
        filename: Option<String>,
        content_type: Option<String>,
        data: Vec<u8>,
    }
    let mut parts = Vec::new();
    for (field, literal) in fields {
        let Some((name, value)) = field.split_once('=') else {
            return Err(format!("Illegally formatted input field: '{field}'"));
        };
        if *literal {
            parts.push(Part {
                name: name.into(),
                filename: None,
                content_type: None,
                data: value.as_bytes().to_vec(),
            });
            continue;
        }
        let (value, params) = split_params(value);
        let param = |key: &str| {
            params
                .iter()
                .find_map(|p| p.strip_prefix(key)?.strip_prefix('=').map(str::to_string))
        };
        let part = if let Some(path) = value.strip_prefix('@') {
            let data = src
                .read(path)
                .map_err(|_| "Failed to open/read local data from file/application".to_string())?;
            let base = path.rsplit('/').next().unwrap_or(path).to_string();
            Part {
                name: name.into(),
                filename: Some(param("filename").unwrap_or(base)),
                content_type: Some(param("type").unwrap_or_else(|| guess_type(path).into())),
                data,
            }
        } else if let Some(path) = value.strip_prefix('<') {
            Part {
                name: name.into(),
                filename: param("filename"),
                content_type: param("type"),
                data: src.read(path).map_err(|_| {
                    "Failed to open/read local data from file/application".to_string()
                })?,
            }
        } else {
            Part {
                name: name.into(),
                filename: param("filename"),
                content_type: param("type"),
                data: value.as_bytes().to_vec(),
            }
        };
        parts.push(part);
    }
    let mut hash = Sha256::new();
    for p in &parts {
        hash.update(p.name.as_bytes());
        hash.update(&p.data);
    }
    let digest = hash.finalize();
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    let boundary = format!("------------------------{hex}");
    let mut bytes = Vec::new();
    for p in &parts {
        bytes.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        let mut disposition = format!("Content-Disposition: form-data; name=\"{}\"", p.name);
        if let Some(f) = &p.filename {
            disposition.push_str(&format!("; filename=\"{f}\""));
        }
        bytes.extend_from_slice(disposition.as_bytes());
        bytes.extend_from_slice(b"\r\n");
        if let Some(t) = &p.content_type {
            bytes.extend_from_slice(format!("Content-Type: {t}\r\n").as_bytes());
        }
        bytes.extend_from_slice(b"\r\n");
        bytes.extend_from_slice(&p.data);
        bytes.extend_from_slice(b"\r\n");
    }
    bytes.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Ok(Payload {
        bytes,
        content_type: Some(format!("multipart/form-data; boundary={boundary}")),
    })
}

/// `value;type=x;filename=y` → (`value`, [`type=x`, `filename=y`]).
fn split_params(v: &str) -> (&str, Vec<&str>) {
    let mut it = v.split(';');
    let head = it.next().unwrap_or("");
    (head, it.map(str::trim).collect())
}

/// curl's guess of a file part's type from its extension.
fn guess_type(path: &str) -> &'static str {
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "gif" => "image/gif",
        "jpg" | "jpeg" => "image/jpeg",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "txt" => "text/plain",
        "htm" | "html" => "text/html",
        "pdf" => "application/pdf",
        "xml" => "application/xml",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::super::args::Data;
    use super::*;

    struct Files;
    impl Source for Files {
        fn read(&mut self, name: &str) -> Result<Vec<u8>, String> {
            match name {
                "body.txt" => Ok(b"line1\r\nline2\n".to_vec()),
                "-" => Ok(b"from stdin".to_vec()),
                _ => Err("No such file or directory".into()),
            }
        }
    }

    fn cfg(data: &[(DataKind, &str)]) -> Config {
        Config {
            data: data
                .iter()
                .map(|(kind, v)| Data {
                    kind: *kind,
                    value: v.to_string(),
                })
                .collect(),
            ..Config::default()
        }
    }

    fn joined(data: &[(DataKind, &str)]) -> (String, Vec<String>) {
        let mut warnings = Vec::new();
        let out = super::data(&cfg(data), &mut Files, &mut |w| warnings.push(w)).unwrap();
        (String::from_utf8(out).unwrap(), warnings)
    }

    #[test]
    fn data_parts_join_with_ampersands_and_read_files() {
        use DataKind::*;
        assert_eq!(joined(&[(Ascii, "a=1"), (Ascii, "b=2")]).0, "a=1&b=2");
        assert_eq!(joined(&[(Ascii, "@body.txt")]).0, "line1line2");
        assert_eq!(joined(&[(Binary, "@body.txt")]).0, "line1\r\nline2\n");
        assert_eq!(joined(&[(Raw, "@body.txt")]).0, "@body.txt");
        assert_eq!(joined(&[(Binary, "@-")]).0, "from stdin");
        assert_eq!(joined(&[(Json, "{\"a\":"), (Json, "1}")]).0, "{\"a\":1}");
        let (body, warnings) = joined(&[(Ascii, "@missing")]);
        assert_eq!(body, "");
        assert_eq!(
            warnings,
            ["Warning: Couldn't read data from file \"missing\", this makes an empty POST."]
        );
    }

    #[test]
    fn urlencode_forms() {
        use DataKind::UrlEncode;
        assert_eq!(
            joined(&[
                (UrlEncode, "a=b c&d"),
                (UrlEncode, "=c%d"),
                (UrlEncode, "e")
            ])
            .0,
            "a=b+c%26d&c%25d&e"
        );
        assert_eq!(
            joined(&[(UrlEncode, "q@body.txt")]).0,
            "q=line1%0D%0Aline2%0A"
        );
    }

    #[test]
    fn multipart_fields_and_files() {
        let p = multipart(
            &[
                ("a=1".into(), false),
                ("f=@body.txt;type=text/x-demo".into(), false),
                ("s=@literal".into(), true),
            ],
            &mut Files,
        )
        .unwrap();
        let ct = p.content_type.unwrap();
        let boundary = ct.strip_prefix("multipart/form-data; boundary=").unwrap();
        assert_eq!(boundary.len(), 40);
        let text = String::from_utf8(p.bytes).unwrap();
        assert_eq!(
            text,
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n\
                 --{boundary}\r\nContent-Disposition: form-data; name=\"f\"; filename=\"body.txt\"\r\nContent-Type: text/x-demo\r\n\r\nline1\r\nline2\n\r\n\
                 --{boundary}\r\nContent-Disposition: form-data; name=\"s\"\r\n\r\n@literal\r\n\
                 --{boundary}--\r\n"
            )
        );
        assert!(multipart(&[("f=@missing".into(), false)], &mut Files).is_err());
        assert!(multipart(&[("novalue".into(), false)], &mut Files).is_err());
    }
}
