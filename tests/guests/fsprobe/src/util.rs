//! Output helpers. Every check prints exactly one line:
//!
//! ```text
//! <check>: ok [<detail>]
//! <check>: err <ErrorKind Debug name>
//! ```
//!
//! Errors are reported only by `io::ErrorKind` Debug name (never raw OS codes
//! or messages: wasi-libc and Linux differ there).

use std::fmt::Display;
use std::fs;
use std::io::{self, Read};
use std::path::Path;

/// Print one check line.
pub fn rep<T: Display>(name: &str, r: io::Result<T>) {
    match r {
        Ok(v) => {
            let s = v.to_string();
            if s.is_empty() {
                println!("{name}: ok");
            } else {
                println!("{name}: ok {s}");
            }
        }
        Err(e) => println!("{name}: err {}", kind_name(&e)),
    }
}

/// The `io::ErrorKind` Debug name of an error.
///
/// One normalisation: Rust std on WASI (1.95) does not map WASI `ENOTEMPTY`
/// (errno 55, fixed by the WASI spec) to `DirectoryNotEmpty` as it does on
/// Linux; it reports `Uncategorized`. We report `DirectoryNotEmpty` so the
/// outputs compare. Nothing else is remapped (e.g. WASI `ENOTCAPABLE`, 76,
/// stays `Uncategorized`).
pub fn kind_name(e: &io::Error) -> String {
    let name = format!("{:?}", e.kind());
    #[cfg(target_os = "wasi")]
    {
        const WASI_ENOTEMPTY: i32 = 55;
        if name == "Uncategorized" && e.raw_os_error() == Some(WASI_ENOTEMPTY) {
            return "DirectoryNotEmpty".to_string();
        }
    }
    name
}

/// Print a scenario header.
pub fn header(name: &str) {
    println!("== {name}");
}

/// Quoted, escaped rendering of bytes (lossy UTF-8, Rust Debug escaping).
pub fn q(bytes: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(bytes))
}

/// Read a whole file and render it quoted.
pub fn readq(p: &Path) -> io::Result<String> {
    fs::read(p).map(|b| q(&b))
}

/// Read everything left in a reader and render it quoted.
pub fn read_restq(r: &mut impl Read) -> io::Result<String> {
    let mut v = Vec::new();
    r.read_to_end(&mut v)?;
    Ok(q(&v))
}

/// `Ok(())` renders as an empty detail.
pub fn unit<T>(r: io::Result<T>) -> io::Result<&'static str> {
    r.map(|_| "")
}

/// 64-bit FNV-1a.
pub fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Kind of a file type, as a short word.
pub fn kind(ft: fs::FileType) -> &'static str {
    if ft.is_symlink() {
        "symlink"
    } else if ft.is_dir() {
        "dir"
    } else if ft.is_file() {
        "file"
    } else {
        "other"
    }
}

/// Names in a directory, in the order `read_dir` returned them.
pub fn list_raw(p: &Path) -> io::Result<Vec<String>> {
    let mut out = Vec::new();
    for e in fs::read_dir(p)? {
        let e = e?;
        out.push(e.file_name().to_string_lossy().into_owned());
    }
    Ok(out)
}

/// Names sorted (byte order), rendered as `[a, b, c]`.
pub fn list_sorted(p: &Path) -> io::Result<String> {
    let mut v = list_raw(p)?;
    v.sort();
    Ok(format!("[{}]", v.join(", ")))
}

/// `name:kind` for each entry, sorted by name, kinds from `DirEntry::file_type`.
pub fn list_kinds(p: &Path) -> io::Result<String> {
    let mut v = Vec::new();
    for e in fs::read_dir(p)? {
        let e = e?;
        v.push((
            e.file_name().to_string_lossy().into_owned(),
            kind(e.file_type()?),
        ));
    }
    v.sort();
    let parts: Vec<String> = v.iter().map(|(n, k)| format!("{n}:{k}")).collect();
    Ok(format!("[{}]", parts.join(", ")))
}
