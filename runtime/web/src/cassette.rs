//! The cassette: recorded web answers, shareable between runs and machines.
//!
//! A folder holding `index.jsonl` (one entry per line: the normalised request, the response's
//! status, final URL, content type, body hash and size — or the failure — plus the latency and
//! when it was recorded) and `bodies/<2 hex>/<blake3 hex>` (each body once, named by its
//! content). Entries are only ever appended; the first entry of a request wins, so two
//! cassettes merge by appending one's index to the other's and copying its bodies. Nothing
//! secret is stored: search requests are kept in their normalised form, without the API's URL
//! or key.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use super::request::{Fetched, WebError, WebRequest, WebResponse};

/// The index file's name.
pub const INDEX: &str = "index.jsonl";
/// The bodies folder's name.
pub const BODIES: &str = "bodies";
/// The lock file a recording process holds.
pub const LOCK: &str = ".recording.lock";
/// The longest line of an index read (a cassette is untrusted input: every read is bounded).
pub const MAX_INDEX_LINE: usize = 1 << 20;

/// One recorded request and what the web did.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The normalised request.
    pub request: WebRequest,
    /// The response, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<StoredResponse>,
    /// The failure, when there was no response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How long the live request took.
    pub latency_ms: u64,
    /// When it was recorded (seconds since the Unix epoch): information only, never in a
    /// trace.
    pub recorded_unix: u64,
}

/// A recorded response; the body lives in `bodies/`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoredResponse {
    /// The status code.
    pub status: u16,
    /// The URL that answered, after redirects.
    pub url: String,
    /// The `Content-Type` header.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// blake3 of the body, hex.
    pub body: String,
    /// The body's length in bytes.
    pub size: u64,
    /// The web's body was longer and was cut at [`super::live::MAX_BODY_BYTES`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// A cassette folder, open for lookups and (when recording) appends.
pub struct Cassette {
    dir: PathBuf,
    inner: Mutex<Inner>,
}

struct Inner {
    entries: BTreeMap<String, Entry>,
    /// The index, open for appending while recording.
    index: Option<File>,
    /// Whether entries were appended since the index was last synced.
    appended: bool,
    /// Held while recording (an exclusive lock on [`LOCK`]).
    _lock: Option<File>,
}

impl Cassette {
    /// Opens the cassette at `dir` for replay: its index must exist.
    pub fn open(dir: &Path) -> Result<Self, WebError> {
        let index = dir.join(INDEX);
        if !index.is_file() {
            return Err(WebError::Cassette(format!(
                "{} is not a cassette (no {INDEX}); record one with --web record --web-cassette {}",
                dir.display(),
                dir.display()
            )));
        }
        Ok(Cassette {
            dir: dir.to_path_buf(),
            inner: Mutex::new(Inner {
                entries: read_index(&index)?,
                index: None,
                appended: false,
                _lock: None,
            }),
        })
    }

    /// Opens the cassette at `dir` for recording, creating it when absent. What a crash left
    /// in the index is repaired first, saying so on stderr: a torn last line is cut, and lines
    /// that are not entries (a power loss zeroed bytes that were never synced) are moved to
    /// [`DAMAGED`] beside it (nothing is deleted); their requests are recorded again.
    pub fn create(dir: &Path) -> Result<Self, WebError> {
        let io = |e: std::io::Error| WebError::Cassette(format!("{}: {e}", dir.display()));
        std::fs::create_dir_all(dir.join(BODIES)).map_err(io)?;
        // One recording process per cassette: another's first recordings would differ.
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(LOCK))
            .map_err(io)?;
        if lock.try_lock().is_err() {
            return Err(WebError::Cassette(format!(
                "{} is being recorded by another clawrun process; give each process its own \
                 --web-cassette (shards too) and merge them with `clawrun cassette merge`",
                dir.display()
            )));
        }
        let path = dir.join(INDEX);
        let (entries, complete) = if path.is_file() {
            let read = read_index_lenient(&path)?;
            if !read.damaged.is_empty() {
                set_aside(&path, &read.damaged)?;
            }
            (read.entries, read.complete)
        } else {
            (BTreeMap::new(), 0)
        };
        let index = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io)?;
        // A torn last line is cut, so that the next entry starts a line of its own.
        if index.metadata().map_err(io)?.len() > complete {
            index.set_len(complete).map_err(io)?;
        }
        Ok(Cassette {
            dir: dir.to_path_buf(),
            inner: Mutex::new(Inner {
                entries,
                index: Some(index),
                appended: false,
                _lock: Some(lock),
            }),
        })
    }

    /// Syncs the index when entries were appended since it was last synced, and returns its
    /// length then (`None`: nothing to sync). A run calls it before it writes journal lines,
    /// so that no line, synced or not, names a trial whose web answers a power loss could take
    /// back (the bodies are synced before their index line is written).
    pub fn sync_appended(&self) -> Result<Option<u64>, WebError> {
        let io = |e: std::io::Error| WebError::Cassette(format!("{}: {e}", self.dir.display()));
        let file = {
            let mut inner = self.lock();
            if !std::mem::take(&mut inner.appended) {
                return Ok(None);
            }
            let Some(index) = inner.index.as_ref() else {
                return Ok(None);
            };
            index.try_clone().map_err(io)?
        };
        // What was appended before this point is covered; later appends set the flag again.
        let len = file.metadata().map_err(io)?.len();
        if let Err(e) = file.sync_data() {
            self.lock().appended = true;
            return Err(io(e));
        }
        Ok(Some(len))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Entries recorded.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether nothing is recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every recording, in request order.
    pub fn entries(&self) -> Vec<Entry> {
        self.lock().entries.values().cloned().collect()
    }

    /// The recording of `request`, if any.
    pub fn get(&self, request: &WebRequest) -> Result<Option<Fetched>, WebError> {
        let entry = self.lock().entries.get(&request.key()).cloned();
        entry.map(|e| self.materialise(&e)).transpose()
    }

    /// Records what the web did with `request` (`latency_ms`, recorded at `recorded_unix`) and
    /// returns what the cassette now holds for it: the first recording wins when another
    /// worker recorded the same request meanwhile, so every trial of a run sees one answer.
    pub fn put(
        &self,
        request: &WebRequest,
        fetched: &Fetched,
        latency_ms: u64,
        recorded_unix: u64,
    ) -> Result<Fetched, WebError> {
        let io = |e: std::io::Error| WebError::Cassette(format!("{}: {e}", self.dir.display()));
        let (response, error) = match fetched {
            Fetched::Response(r) => (Some(self.store_body(r)?), None),
            Fetched::Failed(e) => (None, Some(e.clone())),
        };
        let entry = Entry {
            request: request.clone(),
            response,
            error,
            latency_ms,
            recorded_unix,
        };
        let mut inner = self.lock();
        if let Some(first) = inner.entries.get(&request.key()).cloned() {
            drop(inner);
            return self.materialise(&first);
        }
        let mut line = serde_json::to_string(&entry).expect("entries serialize");
        line.push('\n');
        let Some(index) = inner.index.as_mut() else {
            return Err(WebError::Cassette(format!(
                "{} is open for replay only",
                self.dir.display()
            )));
        };
        index.write_all(line.as_bytes()).map_err(io)?;
        inner.appended = true;
        inner.entries.insert(request.key(), entry);
        Ok(fetched.clone())
    }

    /// The cassette's content hash: blake3 over its entries in key order (requests and what
    /// the web did, without latencies or recording times), hex. Two cassettes with the same
    /// recordings have the same hash.
    pub fn hash(&self) -> String {
        let inner = self.lock();
        let mut hasher = blake3::Hasher::new();
        for (key, e) in &inner.entries {
            let what = serde_json::json!({
                "response": e.response,
                "error": e.error,
            });
            hasher.update(key.as_bytes());
            hasher.update(b"\n");
            hasher.update(what.to_string().as_bytes());
            hasher.update(b"\n");
        }
        hasher.finalize().to_hex().to_string()
    }

    /// Appends every entry of `other` this cassette lacks (bodies copied); returns how many.
    pub fn merge_from(&self, other: &Cassette) -> Result<usize, WebError> {
        let theirs: Vec<Entry> = other.lock().entries.values().cloned().collect();
        let mut added = 0;
        for e in theirs {
            if self.lock().entries.contains_key(&e.request.key()) {
                continue;
            }
            let fetched = other.materialise(&e)?;
            self.put(&e.request, &fetched, e.latency_ms, e.recorded_unix)?;
            added += 1;
        }
        Ok(added)
    }

    /// Flushes the index to disk.
    pub fn sync(&self) -> Result<(), WebError> {
        if let Some(f) = self.lock().index.as_ref() {
            f.sync_data()
                .map_err(|e| WebError::Cassette(format!("{}: {e}", self.dir.display())))?;
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where the body named `hash` lives: `bodies/<first 2 hex digits>/<hash>`. Only ever
    /// called with a hash that [`is_body_hash`].
    fn body_path(&self, hash: &str) -> PathBuf {
        self.dir
            .join(BODIES)
            .join(hash.get(..2).unwrap_or_default())
            .join(hash)
    }

    /// Writes `r`'s body under its hash (once; through a temporary file), durably: synced,
    /// with its folder, before the index line naming it is written, so that no index line a
    /// power loss keeps names a body it lost. A body already there is checked, and written
    /// again when it is not those bytes (cut short by a crash of an older clawrun).
    fn store_body(&self, r: &WebResponse) -> Result<StoredResponse, WebError> {
        let hash = blake3::hash(&r.body).to_hex().to_string();
        let path = self.body_path(&hash);
        let stored = std::fs::symlink_metadata(&path)
            .is_ok_and(|m| m.is_file() && m.len() == r.body.len() as u64)
            && std::fs::read(&path).is_ok_and(|b| blake3::hash(&b).to_hex().as_str() == hash);
        if !stored {
            let io = |e: std::io::Error| WebError::Cassette(format!("{}: {e}", path.display()));
            let parent = path.parent().expect("bodies have a folder");
            std::fs::create_dir_all(parent).map_err(io)?;
            // Workers may store the same body at once: each through a file of its own.
            static NEXT: AtomicU64 = AtomicU64::new(0);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let tmp = parent.join(format!(".{hash}.{}.{n}", std::process::id()));
            let mut file = File::create(&tmp).map_err(io)?;
            file.write_all(&r.body)
                .and_then(|()| file.sync_data())
                .map_err(io)?;
            std::fs::rename(&tmp, &path).map_err(io)?;
            sync_dir(parent).map_err(io)?;
        }
        Ok(StoredResponse {
            status: r.status,
            url: r.url.clone(),
            content_type: r.content_type.clone(),
            body: hash,
            size: r.body.len() as u64,
            truncated: r.truncated,
        })
    }

    /// The answer an entry records, its body read and checked against its hash.
    fn materialise(&self, e: &Entry) -> Result<Fetched, WebError> {
        if let Some(error) = &e.error {
            return Ok(Fetched::Failed(error.clone()));
        }
        let Some(r) = &e.response else {
            return Err(WebError::Cassette(format!(
                "{}: the entry for {} has neither a response nor an error",
                self.dir.join(INDEX).display(),
                e.request.describe()
            )));
        };
        if !is_body_hash(&r.body) {
            // Entries are checked as the index is read; this one did not come from it.
            return Err(WebError::Cassette(format!(
                "{}: the entry for {} names no body hash",
                self.dir.join(INDEX).display(),
                e.request.describe()
            )));
        }
        let path = self.body_path(&r.body);
        let body = self.read_body(&path, r.size).map_err(|why| {
            WebError::Cassette(format!(
                "{}: the body of {} {why}; copy the whole cassette folder",
                path.display(),
                e.request.describe()
            ))
        })?;
        if blake3::hash(&body).to_hex().as_str() != r.body {
            return Err(WebError::Cassette(format!(
                "{}: the body of {} does not match its hash; the cassette was modified",
                path.display(),
                e.request.describe()
            )));
        }
        Ok(Fetched::Response(WebResponse {
            status: r.status,
            url: r.url.clone(),
            content_type: r.content_type.clone(),
            body: Arc::from(body),
            truncated: r.truncated,
        }))
    }
}

impl Cassette {
    /// The body at `path` (a regular file inside `bodies/`, of `size` bytes), read without
    /// reading more than `size` bytes; why not, as the end of a sentence.
    fn read_body(&self, path: &Path, size: u64) -> Result<Vec<u8>, String> {
        let meta = std::fs::symlink_metadata(path).map_err(|e| format!("is missing ({e})"))?;
        if !meta.is_file() {
            return Err("is not a regular file".into());
        }
        let bodies = self
            .dir
            .join(BODIES)
            .canonicalize()
            .map_err(|e| format!("has no {BODIES} folder ({e})"))?;
        let real = path
            .canonicalize()
            .map_err(|e| format!("is missing ({e})"))?;
        if !real.starts_with(&bodies) {
            return Err(format!("lies outside the cassette's {BODIES} folder"));
        }
        if meta.len() != size {
            return Err(format!(
                "is {} bytes, not the {size} its entry records",
                meta.len()
            ));
        }
        let mut body = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
        File::open(path)
            .and_then(|f| f.take(size.saturating_add(1)).read_to_end(&mut body))
            .map_err(|e| format!("cannot be read ({e})"))?;
        if body.len() as u64 != size {
            return Err(format!(
                "is {} bytes, not the {size} its entry records",
                body.len()
            ));
        }
        Ok(body)
    }
}

/// Whether `text` is a body's name: a blake3 hash, 64 lowercase hex digits.
pub fn is_body_hash(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Why `entry` (read from an untrusted index) is not one clawrun could have recorded: the
/// field and what is wrong with it.
fn check_entry(entry: &Entry) -> Result<(), String> {
    if entry.response.is_some() == entry.error.is_some() {
        return Err("an entry needs exactly one of `response` and `error`".into());
    }
    match &entry.request {
        WebRequest::Fetch { url } => match WebRequest::fetch(url) {
            Ok(normal) if normal == entry.request => {}
            _ => {
                return Err(format!(
                    "request.url: {url:?} is not a normalised http(s) URL"
                ));
            }
        },
        WebRequest::Search { num, hl, gl, .. } => {
            if !(1..=10).contains(num) {
                return Err(format!("request.num: {num} is not 1 to 10"));
            }
            if !matches!((hl.as_str(), gl.as_str()), ("en", "us") | ("zh", "cn")) {
                return Err(format!(
                    "request.hl, request.gl: {hl:?}, {gl:?} are not en, us or zh, cn"
                ));
            }
        }
    }
    let Some(r) = &entry.response else {
        return Ok(());
    };
    if !is_body_hash(&r.body) {
        return Err(format!(
            "response.body: {:?} is not a body hash (64 lowercase hex digits, the blake3 of the body)",
            r.body.chars().take(80).collect::<String>()
        ));
    }
    if r.size > super::live::MAX_BODY_BYTES as u64 {
        return Err(format!(
            "response.size: {} is over the largest body recorded ({} bytes)",
            r.size,
            super::live::MAX_BODY_BYTES
        ));
    }
    if r.truncated && r.size != super::live::MAX_BODY_BYTES as u64 {
        return Err(format!(
            "response.truncated: a cut body is {} bytes, not {}",
            super::live::MAX_BODY_BYTES,
            r.size
        ));
    }
    if !(100..=599).contains(&r.status) {
        return Err(format!(
            "response.status: {} is not an HTTP status",
            r.status
        ));
    }
    if !url::Url::parse(&r.url).is_ok_and(|u| matches!(u.scheme(), "http" | "https")) {
        return Err(format!("response.url: {:?} is not an http(s) URL", r.url));
    }
    if let Some(ct) = &r.content_type
        && (ct.len() > 1024 || !ct.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)))
    {
        return Err(
            "response.content_type: not a header value (printable ASCII, at most 1024 bytes)"
                .into(),
        );
    }
    Ok(())
}

/// Reads an index, the first entry of each request winning; a bad line is an error naming
/// the file and line. Every line is checked ([`check_entry`]) and at most
/// [`MAX_INDEX_LINE`] bytes long; the index must be a regular file.
/// Reads an index (see [`read_index_with_end`]); a torn last line is left out.
fn read_index(path: &Path) -> Result<BTreeMap<String, Entry>, WebError> {
    read_index_with_end(path, false).map(|read| read.entries)
}

/// Reads an index to record into it: a line that is not an entry is not an error but
/// returned in [`IndexRead::damaged`] (see [`Cassette::create`]).
fn read_index_lenient(path: &Path) -> Result<IndexRead, WebError> {
    read_index_with_end(path, true)
}

/// The file beside an index that keeps the lines a repair took out of it.
pub const DAMAGED: &str = "index.damaged.jsonl";

/// What reading an index found.
struct IndexRead {
    /// The entries, the first of each request.
    entries: BTreeMap<String, Entry>,
    /// The byte length of the complete lines (where a torn last line starts).
    complete: u64,
    /// Complete lines that are not entries (when read leniently): (offset, length, why).
    damaged: Vec<(u64, u64, String)>,
}

/// Moves the `damaged` lines (offset, length, why) of the index at `path` to [`DAMAGED`]
/// beside it, as found, and rewrites the index without them (through a temporary file and a
/// rename, both synced, so that a crash meanwhile leaves one of the two whole).
fn set_aside(path: &Path, damaged: &[(u64, u64, String)]) -> Result<(), WebError> {
    let io = |e: std::io::Error| WebError::Cassette(format!("{}: {e}", path.display()));
    let bytes = std::fs::read(path).map_err(io)?;
    let (mut kept, mut taken) = (Vec::with_capacity(bytes.len()), Vec::new());
    let mut at = 0usize;
    for (offset, len, why) in damaged {
        let (offset, end) = (*offset as usize, (*offset + *len) as usize);
        kept.extend_from_slice(&bytes[at..offset]);
        taken.extend_from_slice(&bytes[offset..end]);
        at = end;
        eprintln!(
            "clawrun: note: {} (bytes {offset}..{end}): {why}; moved to {DAMAGED}, its request \
             is recorded again",
            path.display()
        );
    }
    kept.extend_from_slice(&bytes[at..]);
    let side = path.with_file_name(DAMAGED);
    let mut out = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&side)
        .map_err(io)?;
    out.write_all(&taken)
        .and_then(|()| out.sync_data())
        .map_err(io)?;
    let tmp = path.with_extension("jsonl.tmp");
    let mut file = File::create(&tmp).map_err(io)?;
    file.write_all(&kept)
        .and_then(|()| file.sync_data())
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(io)?;
    sync_dir(path.parent().unwrap_or(Path::new("."))).map_err(io)
}

/// Syncs folder `dir`, so that the names just created in it survive a power loss.
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Reads an index, the first entry of each request winning; a bad line is an error naming
/// the file and line (`lenient`: returned among the damaged lines instead). A torn last line
/// (no newline: a recording process killed mid-write) is left out, its request recorded again,
/// with a note on stderr; returns the entries and the byte length of the complete lines, where
/// appending goes on.
fn read_index_with_end(path: &Path, lenient: bool) -> Result<IndexRead, WebError> {
    let io = |e: std::io::Error| WebError::Cassette(format!("{}: {e}", path.display()));
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(WebError::Cassette(format!(
            "{}: not a regular file",
            path.display()
        )));
    }
    let mut reader = BufReader::new(File::open(path).map_err(io)?);
    let mut entries = BTreeMap::new();
    let mut damaged = Vec::new();
    let mut buf = Vec::new();
    let mut complete = 0u64;
    for n in 0usize.. {
        buf.clear();
        let read = (&mut reader)
            .take(MAX_INDEX_LINE as u64 + 1)
            .read_until(b'\n', &mut buf)
            .map_err(io)?;
        if read == 0 {
            break;
        }
        if buf.last() != Some(&b'\n') && buf.len() <= MAX_INDEX_LINE {
            eprintln!(
                "clawrun: note: {}:{}: a torn last line (a recording cut short) is left out; \
                 its request is recorded again",
                path.display(),
                n + 1
            );
            break;
        }
        let offset = complete;
        complete += read as u64;
        if buf.len() > MAX_INDEX_LINE {
            return Err(WebError::Cassette(format!(
                "{}:{}: the line is longer than {MAX_INDEX_LINE} bytes: not a cassette entry; remove it and record again",
                path.display(),
                n + 1
            )));
        }
        // (what is wrong, what to do about it by hand)
        let entry: Result<Entry, (String, &str)> = match std::str::from_utf8(&buf) {
            Err(_) => Err((
                "not UTF-8: not a cassette entry".into(),
                "remove the line and record again",
            )),
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => match serde_json::from_str::<Entry>(line) {
                Err(e) => Err((
                    format!("not a cassette entry ({e})"),
                    "the file is appended to only, so this line was edited or cut: remove it \
                     and record again",
                )),
                Ok(entry) => match check_entry(&entry) {
                    Err(why) => Err((
                        why,
                        "the file is appended to only, so this line was edited: remove it and \
                         record again",
                    )),
                    Ok(()) => Ok(entry),
                },
            },
        };
        match entry {
            Ok(entry) => {
                entries.entry(entry.request.key()).or_insert(entry);
            }
            Err((why, _)) if lenient => {
                damaged.push((offset, read as u64, format!("line {}: {why}", n + 1)));
            }
            Err((why, hint)) => {
                return Err(WebError::Cassette(format!(
                    "{}:{}: {why}; {hint}",
                    path.display(),
                    n + 1
                )));
            }
        }
    }
    Ok(IndexRead {
        entries,
        complete,
        damaged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> Fetched {
        Fetched::Response(WebResponse {
            status: 200,
            url: "https://example.com/".into(),
            content_type: Some("text/html".into()),
            body: Arc::from(body.as_bytes()),
            truncated: false,
        })
    }

    #[test]
    fn recordings_replay_and_the_first_one_wins() {
        let dir = tempfile::tempdir().unwrap();
        let req = WebRequest::fetch("https://example.com/").unwrap();
        let rec = Cassette::create(dir.path()).unwrap();
        assert_eq!(rec.get(&req).unwrap(), None);
        assert_eq!(rec.put(&req, &page("one"), 5, 0).unwrap(), page("one"));
        assert_eq!(rec.put(&req, &page("two"), 5, 0).unwrap(), page("one"));
        let failed = WebRequest::fetch("https://down.example/").unwrap();
        rec.put(&failed, &Fetched::Failed("connection refused".into()), 1, 0)
            .unwrap();
        let hash = rec.hash();
        drop(rec);

        let replay = Cassette::open(dir.path()).unwrap();
        assert_eq!(replay.get(&req).unwrap(), Some(page("one")));
        assert_eq!(
            replay.get(&failed).unwrap(),
            Some(Fetched::Failed("connection refused".into()))
        );
        assert_eq!(replay.hash(), hash);
        assert!(
            replay
                .put(&WebRequest::search("x", 1), &page("x"), 0, 0)
                .is_err()
        );
    }

    #[test]
    fn workers_storing_the_same_body_at_once_all_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let rec = Cassette::create(dir.path()).unwrap();
        std::thread::scope(|s| {
            for t in 0..8 {
                let rec = &rec;
                s.spawn(move || {
                    for i in 0..100 {
                        let req =
                            WebRequest::fetch(&format!("https://example.com/{t}/{i}")).unwrap();
                        rec.put(&req, &page(&format!("body {i}")), 0, 0).unwrap();
                    }
                });
            }
        });
        assert_eq!(rec.len(), 800);
    }

    #[test]
    fn one_process_records_into_a_cassette_at_a_time() {
        let dir = tempfile::tempdir().unwrap();
        let first = Cassette::create(dir.path()).unwrap();
        let err = Cassette::create(dir.path()).err().unwrap().to_string();
        assert!(
            err.contains("is being recorded by another clawrun process"),
            "{err}"
        );
        assert!(Cassette::open(dir.path()).is_ok(), "replay needs no lock");
        drop(first);
        assert!(Cassette::create(dir.path()).is_ok());
    }

    #[test]
    fn a_tampered_body_or_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let req = WebRequest::fetch("https://example.com/").unwrap();
        let rec = Cassette::create(dir.path()).unwrap();
        rec.put(&req, &page("one"), 5, 0).unwrap();
        let hash = blake3::hash(b"one").to_hex().to_string();
        std::fs::write(rec.body_path(&hash), "bad").unwrap();
        let err = rec.get(&req).unwrap_err().to_string();
        assert!(err.contains("does not match its hash"), "{err}");

        let mut index = std::fs::read_to_string(dir.path().join(INDEX)).unwrap();
        index.push_str("{\"request\": 1}\n");
        std::fs::write(dir.path().join(INDEX), index).unwrap();
        let err = Cassette::open(dir.path()).err().unwrap().to_string();
        assert!(err.contains("index.jsonl:2"), "{err}");
    }

    #[test]
    fn cassettes_merge_and_hash_by_content() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let one = WebRequest::fetch("https://example.com/1").unwrap();
        let two = WebRequest::fetch("https://example.com/2").unwrap();
        let ca = Cassette::create(a.path()).unwrap();
        ca.put(&one, &page("1"), 1, 0).unwrap();
        let cb = Cassette::create(b.path()).unwrap();
        cb.put(&two, &page("2"), 2, 0).unwrap();
        cb.put(&one, &page("other"), 2, 0).unwrap();
        assert_eq!(ca.merge_from(&cb).unwrap(), 1);
        assert_eq!(ca.get(&two).unwrap(), Some(page("2")));
        assert_eq!(ca.get(&one).unwrap(), Some(page("1")));
        let again = tempfile::tempdir().unwrap();
        let cc = Cassette::create(again.path()).unwrap();
        cc.put(&two, &page("2"), 9, 0).unwrap();
        cc.put(&one, &page("1"), 9, 0).unwrap();
        assert_eq!(cc.hash(), ca.hash());
    }

    #[test]
    fn recording_sets_aside_lines_a_power_loss_damaged_and_records_their_requests_again() {
        let dir = tempfile::tempdir().unwrap();
        let reqs: Vec<WebRequest> = ["a", "b", "c"]
            .iter()
            .map(|p| WebRequest::fetch(&format!("https://example.com/{p}")).unwrap())
            .collect();
        let c = Cassette::create(dir.path()).unwrap();
        for (r, body) in reqs.iter().zip(["a", "b", "c"]) {
            c.put(r, &page(body), 1, 0).unwrap();
        }
        drop(c);
        // The second line's bytes never reached the disk (zeros, its length kept).
        let index = dir.path().join(INDEX);
        let text = std::fs::read(&index).unwrap();
        let first = text.iter().position(|&b| b == b'\n').unwrap() + 1;
        let second = first + text[first..].iter().position(|&b| b == b'\n').unwrap();
        let mut zeroed = text.clone();
        zeroed[first..second].fill(0);
        std::fs::write(&index, &zeroed).unwrap();
        // Replay names it; recording moves it aside (kept as found) and goes on.
        let err = Cassette::open(dir.path()).err().unwrap().to_string();
        assert!(err.contains("index.jsonl:2"), "{err}");
        let c = Cassette::create(dir.path()).unwrap();
        assert_eq!(
            c.get(&reqs[1]).unwrap(),
            None,
            "its request is recorded again"
        );
        assert_eq!(c.put(&reqs[1], &page("b2"), 1, 0).unwrap(), page("b2"));
        assert_eq!(c.get(&reqs[2]).unwrap(), Some(page("c")));
        drop(c);
        assert_eq!(
            std::fs::read(dir.path().join(DAMAGED)).unwrap(),
            zeroed[first..=second]
        );
        let c = Cassette::open(dir.path()).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c.get(&reqs[1]).unwrap(), Some(page("b2")));
    }

    #[test]
    fn a_body_cut_short_is_written_again_when_its_bytes_are_recorded_again() {
        let dir = tempfile::tempdir().unwrap();
        let one = WebRequest::fetch("https://example.com/1").unwrap();
        let two = WebRequest::fetch("https://example.com/2").unwrap();
        let c = Cassette::create(dir.path()).unwrap();
        c.put(&one, &page("same body"), 1, 0).unwrap();
        let body = c.body_path(&blake3::hash(b"same body").to_hex());
        std::fs::write(&body, b"same").unwrap();
        // Another request answered with the same bytes stores the body again, whole.
        c.put(&two, &page("same body"), 1, 0).unwrap();
        assert_eq!(std::fs::read(&body).unwrap(), b"same body");
        assert_eq!(c.get(&one).unwrap(), Some(page("same body")));
    }

    #[test]
    fn the_index_is_synced_when_entries_were_appended_since_the_last_sync() {
        let dir = tempfile::tempdir().unwrap();
        let c = Cassette::create(dir.path()).unwrap();
        assert_eq!(c.sync_appended().unwrap(), None, "nothing appended yet");
        let req = WebRequest::fetch("https://example.com/").unwrap();
        c.put(&req, &page("x"), 1, 0).unwrap();
        let len = std::fs::metadata(dir.path().join(INDEX)).unwrap().len();
        assert_eq!(c.sync_appended().unwrap(), Some(len));
        assert_eq!(c.sync_appended().unwrap(), None, "synced already");
        // A request already recorded appends nothing.
        c.put(&req, &page("y"), 1, 0).unwrap();
        assert_eq!(c.sync_appended().unwrap(), None);
        drop(c);
        assert_eq!(
            Cassette::open(dir.path()).unwrap().sync_appended().unwrap(),
            None
        );
    }

    #[test]
    fn a_torn_last_line_is_left_out_and_cut_before_recording_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let first = WebRequest::fetch("https://example.com/a").unwrap();
        let second = WebRequest::fetch("https://example.com/b").unwrap();
        let c = Cassette::create(dir.path()).unwrap();
        c.put(&first, &page("a"), 1, 0).unwrap();
        drop(c);
        // A recording killed while appending its second line.
        let index = dir.path().join(INDEX);
        let whole = std::fs::read_to_string(&index).unwrap();
        std::fs::write(&index, format!("{whole}{}", &whole[..whole.len() / 2])).unwrap();
        assert_eq!(Cassette::open(dir.path()).unwrap().lock().entries.len(), 1);
        let c = Cassette::create(dir.path()).unwrap();
        c.put(&second, &page("b"), 1, 0).unwrap();
        drop(c);
        let c = Cassette::open(dir.path()).unwrap();
        assert_eq!(c.lock().entries.len(), 2);
        assert_eq!(std::fs::read_to_string(&index).unwrap().lines().count(), 2);
    }
}
