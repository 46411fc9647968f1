//! Claw-Eval's media fixtures (`clawrun setup claw-eval-media`): the files a checkout lacks
//! because upstream keeps them out of git (its videos and most PDFs), fetched from its dataset
//! on the Hugging Face Hub, [`DATASET`], into the checkout's task folders.
//!
//! - **Listing**: `GET {base}/api/datasets/claw-eval/Claw-Eval/tree/{revision}?recursive=true`,
//!   following the `Link: <URL>; rel="next"` pages. A file entry has `path`, `size`, `oid` (its
//!   git blob sha1) and, for a file stored in LFS, `lfs: {oid (sha256), size}`.
//! - **Choice**: the dataset's files inside a task folder the checkout holds (`tasks/ID/...`,
//!   or `ID/...` at the dataset's root) that the checkout does not have. A file the checkout
//!   has is never touched; files of tasks it does not hold are left out.
//! - **Download**: `GET {base}/datasets/claw-eval/Claw-Eval/resolve/{revision}/{path}`
//!   (redirects followed; reqwest drops the token when a redirect leaves the base URL's host)
//!   into `.clawrun-media/<hash>.part` at the checkout's root. An interrupted download resumes
//!   from there with `Range: bytes=N-` (in this process after a transport error, or on the next
//!   run); a complete one is verified (sha256 for LFS files, the git blob sha1 otherwise) and
//!   only then renamed into its task folder, so a task folder never holds a half file. A file
//!   that fails its hash is deleted and named.
//! - Writes go through a `cap_std` capability for the checkout: no path of the listing leads
//!   out of it. The token (`HF_TOKEN`) is sent as a bearer token and never printed.
//!
//! Progress is reported through [`MediaProgress`], which the CLI draws.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};
use reqwest::StatusCode;
use reqwest::header::{AUTHORIZATION, CONTENT_RANGE, HeaderValue, LINK, RANGE};
use serde::Deserialize;
use sha1::Digest as _;

/// The dataset on the Hugging Face Hub that holds Claw-Eval's media.
pub const DATASET: &str = "claw-eval/Claw-Eval";
/// The Hub's address, when neither `--base-url` nor [`ENDPOINT_VAR`] names another.
pub const DEFAULT_ENDPOINT: &str = "https://huggingface.co";
/// The environment variable naming another Hub or a mirror (as `huggingface_hub` reads it).
pub const ENDPOINT_VAR: &str = "HF_ENDPOINT";
/// The environment variable holding a Hub access token (as `huggingface_hub` reads it).
pub const TOKEN_VAR: &str = "HF_TOKEN";
/// The revision fetched when none is given.
pub const DEFAULT_REVISION: &str = "main";
/// The folder at the checkout's root that holds partial downloads (`<hash>.part`).
pub const STAGING_DIR: &str = ".clawrun-media";
/// Attempts per file when the connection fails (each resumes where the last stopped).
const ATTEMPTS: u32 = 3;
/// At most this many listing pages (a server repeating its `next` link forever).
const MAX_PAGES: usize = 10_000;

/// Where the dataset is fetched from.
#[derive(Clone)]
pub struct Source {
    /// The Hub's base URL, without a trailing slash (`https://huggingface.co`).
    pub endpoint: String,
    /// The dataset's revision: a branch, tag or commit.
    pub revision: String,
    /// A bearer token (from [`TOKEN_VAR`]), if any; never printed.
    token: Option<String>,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("endpoint", &self.endpoint)
            .field("revision", &self.revision)
            .field("token", &self.token.as_ref().map(|_| "(set)"))
            .finish()
    }
}

impl Source {
    /// The source from the flags and the environment: `base_url`, else [`ENDPOINT_VAR`], else
    /// [`DEFAULT_ENDPOINT`]; `revision` or [`DEFAULT_REVISION`]; the token from [`TOKEN_VAR`].
    pub fn from_env(base_url: Option<&str>, revision: Option<&str>) -> Self {
        let endpoint = base_url
            .map(str::to_string)
            .or_else(|| std::env::var(ENDPOINT_VAR).ok().filter(|v| !v.is_empty()))
            .unwrap_or_else(|| DEFAULT_ENDPOINT.to_string());
        let token = std::env::var(TOKEN_VAR)
            .ok()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty());
        Self::new(&endpoint, revision.unwrap_or(DEFAULT_REVISION), token)
    }

    /// A source at `endpoint` (a trailing `/` is dropped), `revision`, with `token`.
    pub fn new(endpoint: &str, revision: &str, token: Option<String>) -> Self {
        Self {
            endpoint: endpoint.trim_end_matches('/').to_string(),
            revision: revision.to_string(),
            token,
        }
    }

    /// The first page of the recursive listing.
    fn tree_url(&self) -> Result<reqwest::Url, MediaError> {
        let mut url = self.base()?;
        url.path_segments_mut()
            .map_err(|()| self.bad_base("it cannot hold a path"))?
            .pop_if_empty()
            .extend(["api", "datasets"])
            .extend(DATASET.split('/'))
            .extend(["tree", &self.revision]);
        url.set_query(Some("recursive=true"));
        Ok(url)
    }

    /// The download address of the dataset's file `path`.
    fn file_url(&self, path: &str) -> Result<reqwest::Url, MediaError> {
        let mut url = self.base()?;
        url.path_segments_mut()
            .map_err(|()| self.bad_base("it cannot hold a path"))?
            .pop_if_empty()
            .push("datasets")
            .extend(DATASET.split('/'))
            .extend(["resolve", &self.revision])
            .extend(path.split('/'));
        Ok(url)
    }

    fn base(&self) -> Result<reqwest::Url, MediaError> {
        let url = reqwest::Url::parse(&self.endpoint).map_err(|e| self.bad_base(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(self.bad_base("not an http(s) URL"));
        }
        Ok(url)
    }

    fn bad_base(&self, why: &str) -> MediaError {
        MediaError::Usage(format!(
            "base URL `{}`: {why} (give --base-url or {ENDPOINT_VAR} as https://host[/path])",
            self.endpoint
        ))
    }
}

/// How a file's content is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hash {
    /// The sha256 of the content (a file stored in LFS), lowercase hex.
    Sha256(String),
    /// The git blob sha1 (`sha1("blob {size}\0" + content)`), lowercase hex.
    GitSha1(String),
}

impl Hash {
    /// `sha256` or `git blob sha1`.
    pub fn kind(&self) -> &'static str {
        match self {
            Hash::Sha256(_) => "sha256",
            Hash::GitSha1(_) => "git blob sha1",
        }
    }

    /// The expected digest, lowercase hex.
    pub fn hex(&self) -> &str {
        match self {
            Hash::Sha256(h) | Hash::GitSha1(h) => h,
        }
    }
}

/// A file of the dataset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteFile {
    /// Its path in the dataset.
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its digest.
    pub hash: Hash,
}

/// A dataset file the checkout lacks, and where it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wanted {
    /// The dataset's file.
    pub file: RemoteFile,
    /// Its place in the checkout, relative to its root (`tasks/ID/fixtures/video.mp4`).
    pub dest: String,
    /// Bytes already downloaded by an earlier, interrupted run.
    pub resumed: u64,
}

/// What [`fetch`] will do (or, with `dry_run`, would do).
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Files in the dataset.
    pub listed: usize,
    /// Files to download, in path order.
    pub wanted: Vec<Wanted>,
    /// The dataset's files the checkout already has (left alone).
    pub present: usize,
    /// The dataset's files outside the checkout's task folders (other tasks, the dataset's
    /// own README, ...), left out.
    pub elsewhere: usize,
}

impl Plan {
    /// Bytes still to download.
    pub fn bytes(&self) -> u64 {
        self.wanted.iter().map(|w| w.file.size - w.resumed).sum()
    }
}

/// What a fetch did.
#[derive(Debug, Default)]
pub struct Fetched {
    /// The plan it followed.
    pub plan: Plan,
    /// The files written into the checkout (paths relative to it).
    pub written: Vec<String>,
    /// Bytes downloaded.
    pub bytes: u64,
    /// Time spent downloading.
    pub elapsed: Duration,
    /// The files that failed, each error naming its file.
    pub failed: Vec<MediaError>,
    /// Files the checkout's tasks reference that are still missing after the fetch (in
    /// neither the checkout nor the dataset): `TASK_ID: path (field)`.
    pub still_missing: Vec<String>,
}

/// Hears how a fetch goes (the CLI draws a progress bar); every method does nothing unless
/// overridden.
pub trait MediaProgress {
    /// The listing's page `page` (from 1) arrived.
    fn listed_page(&self, _page: usize, _files: usize) {}
    /// The plan is made (its files, [`Plan::bytes`] to download).
    fn planned(&self, _plan: &Plan) {}
    /// A download starts (or resumes, `from` > 0).
    fn started(&self, _wanted: &Wanted, _from: u64) {}
    /// `n` more bytes arrived.
    fn advanced(&self, _n: u64) {}
    /// `n` bytes already counted must be counted again (a server that ignored a resume).
    fn rewound(&self, _n: u64) {}
    /// The connection failed; attempt `next` (from 2) resumes after a pause.
    fn retrying(&self, _wanted: &Wanted, _next: u32, _error: &MediaError) {}
    /// A file is in place, verified.
    fn written(&self, _wanted: &Wanted) {}
    /// A file failed (the fetch goes on with the others unless the disk is full).
    fn failed(&self, _wanted: &Wanted, _error: &MediaError) {}
}

/// Why fetching failed, naming the file, URL or folder and what to do.
#[derive(Debug, thiserror::Error)]
pub enum MediaError {
    /// Bad input: the folder is not a checkout, the base URL is not one.
    #[error("{0}")]
    Usage(String),
    /// The base URL cannot be reached.
    #[error(
        "cannot reach {url}: {detail} (check the network, or point --base-url or {ENDPOINT_VAR} \
         at a mirror of the Hub)"
    )]
    Unreachable {
        /// The URL asked.
        url: String,
        /// The transport's error.
        detail: String,
    },
    /// The server answered with an error status.
    #[error("{url} answered {status}{}: {advice}", server_message(message))]
    Http {
        /// The URL asked.
        url: String,
        /// The status.
        status: StatusCode,
        /// The server's own message (`X-Error-Message` or the body's `error`), if any.
        message: Option<String>,
        /// What to do.
        advice: String,
    },
    /// The listing is not the Hub's JSON.
    #[error("{url}: not a Hugging Face tree listing: {detail}")]
    BadListing {
        /// The URL asked.
        url: String,
        /// What is wrong.
        detail: String,
    },
    /// A download's content does not have the listed hash; the file was deleted.
    #[error(
        "{dest}: the download's {kind} is {actual} but the dataset lists {expected}: deleted; \
         run the command again (if it fails again, the server at the base URL serves other \
         bytes than the dataset lists)"
    )]
    HashMismatch {
        /// Its place in the checkout.
        dest: String,
        /// `sha256` or `git blob sha1`.
        kind: &'static str,
        /// The listed digest.
        expected: String,
        /// The download's digest.
        actual: String,
    },
    /// The transfer stopped before the file was complete; the part is kept.
    #[error(
        "{dest}: the download stopped after {got} of {size} bytes ({detail}); the part is kept \
         in {part}: run the command again to resume"
    )]
    Interrupted {
        /// Its place in the checkout.
        dest: String,
        /// Bytes downloaded so far.
        got: u64,
        /// The listed size.
        size: u64,
        /// The partial file, relative to the checkout.
        part: String,
        /// The transport's error.
        detail: String,
    },
    /// The server sent more bytes than the listing says the file has; the part was deleted.
    #[error(
        "{dest}: the server sent more than the {size} bytes the dataset lists: deleted; run the \
         command again"
    )]
    TooLong {
        /// Its place in the checkout.
        dest: String,
        /// The listed size.
        size: u64,
    },
    /// The disk is full; the part is kept for a resume.
    #[error(
        "disk full writing {part} in {checkout} ({got} of {size} bytes of {dest}; {left} more \
         bytes to fetch in all): free some space and run the command again to resume"
    )]
    DiskFull {
        /// The checkout.
        checkout: String,
        /// The partial file, relative to the checkout.
        part: String,
        /// Its place in the checkout.
        dest: String,
        /// Bytes written so far.
        got: u64,
        /// The listed size.
        size: u64,
        /// Bytes still to download, this file and the rest.
        left: u64,
    },
    /// Another file-system error.
    #[error("{what} {path} in {checkout}: {source}")]
    Io {
        /// What was being done (`writing`, `renaming`, ...).
        what: &'static str,
        /// The file, relative to the checkout.
        path: String,
        /// The checkout.
        checkout: String,
        /// The error.
        source: std::io::Error,
    },
}

impl MediaError {
    /// Whether a new attempt may succeed (the connection failed, not the server or the data).
    fn is_transient(&self) -> bool {
        matches!(
            self,
            MediaError::Unreachable { .. } | MediaError::Interrupted { .. }
        ) || matches!(self, MediaError::Http { status, .. } if status.is_server_error())
    }
}

fn server_message(message: &Option<String>) -> String {
    message
        .as_deref()
        .map(|m| format!(" ({m})"))
        .unwrap_or_default()
}

/// Lists the dataset, chooses the files the checkout at `checkout` lacks and (unless
/// `dry_run`) downloads them; see the module documentation. Errors that stop the whole fetch
/// (the checkout, the listing, a full disk) are returned; a file that fails is in
/// [`Fetched::failed`] while the others go on.
pub fn fetch(
    checkout: &Path,
    source: &Source,
    dry_run: bool,
    progress: &dyn MediaProgress,
) -> Result<Fetched, MediaError> {
    let target = Target::open(checkout)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| MediaError::Usage(format!("starting the downloader: {e}")))?;
    let mut fetched = runtime.block_on(async {
        clawrun_agents::llm::install_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .read_timeout(Duration::from_secs(120))
            .user_agent(concat!("clawrun/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| MediaError::Usage(format!("starting the HTTP client: {e}")))?;
        let client = Client {
            http: client,
            source,
        };
        let listing = client.list(progress).await?;
        let plan = target.plan(listing)?;
        progress.planned(&plan);
        let mut fetched = Fetched {
            plan,
            ..Fetched::default()
        };
        if dry_run {
            return Ok(fetched);
        }
        let started = Instant::now();
        let wanted = fetched.plan.wanted.clone();
        for (i, w) in wanted.iter().enumerate() {
            match client.download(&target, w, progress).await {
                Ok(bytes) => {
                    fetched.bytes += bytes;
                    fetched.written.push(w.dest.clone());
                    progress.written(w);
                }
                Err(MediaError::DiskFull { got, .. }) => {
                    // Nothing else fits either: stop, naming what is left.
                    let left = (w.file.size - got)
                        + wanted[i + 1..]
                            .iter()
                            .map(|w| w.file.size - w.resumed)
                            .sum::<u64>();
                    return Err(MediaError::DiskFull {
                        checkout: target.display(),
                        part: target.part(w),
                        dest: w.dest.clone(),
                        got,
                        size: w.file.size,
                        left,
                    });
                }
                Err(e) => {
                    progress.failed(w, &e);
                    fetched.failed.push(e);
                }
            }
        }
        fetched.elapsed = started.elapsed();
        Ok::<_, MediaError>(fetched)
    })?;
    // The staging folder goes once empty (a part kept for a resume keeps it).
    let _ = target.dir.remove_dir(STAGING_DIR);
    fetched.still_missing = target.still_missing();
    Ok(fetched)
}

/// The checkout being filled.
struct Target {
    dir: Dir,
    /// The checkout's folder, locked (`flock`) while this fetch lasts: two fetches into one
    /// checkout would write the same parts.
    _lock: std::fs::File,
    path: PathBuf,
    /// Its task folders, relative to its root (`tasks/M022_video_movie_recognition`).
    tasks: Vec<String>,
    suite: clawrun_task::Suite,
}

impl Target {
    fn open(path: &Path) -> Result<Self, MediaError> {
        let not = |why: String| {
            MediaError::Usage(format!(
                "--checkout {}: {why} (give the folder of a Claw-Eval clone, the one holding \
                 tasks/)",
                path.display()
            ))
        };
        let dir =
            Dir::open_ambient_dir(path, ambient_authority()).map_err(|e| not(e.to_string()))?;
        if !dir.is_dir("tasks") {
            return Err(not("it has no tasks/ folder".into()));
        }
        let suite = clawrun_task::Suite::open(path).map_err(|e| not(e.to_string()))?;
        let tasks: Vec<String> = suite
            .discover()
            .map_err(|e| not(e.to_string()))?
            .into_iter()
            .filter(|d| d.starts_with("tasks/"))
            .collect();
        if tasks.is_empty() {
            return Err(not("no task folder (tasks/ID/task.yaml) in it".into()));
        }
        // Opened for reading (the capability's own descriptor cannot be locked).
        let lock = std::fs::File::open(path).map_err(|e| not(e.to_string()))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(not(
                    "another `clawrun setup claw-eval-media` is filling it now (it holds the \
                     folder's lock): let it finish, or stop it, then run this again"
                        .into(),
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(not(format!("locking it: {e}")));
            }
        }
        Ok(Self {
            dir,
            _lock: lock,
            path: path.to_path_buf(),
            tasks,
            suite,
        })
    }

    fn display(&self) -> String {
        self.path.display().to_string()
    }

    /// Where the checkout puts the dataset's `path`: `tasks/ID/...` as it is, `ID/...` under
    /// `tasks/` when the checkout has a task folder `ID`; `None` outside its task folders.
    fn destination(&self, path: &str) -> Option<String> {
        if !safe_path(path) {
            return None;
        }
        let candidates = [path.to_string(), format!("tasks/{path}")];
        candidates.into_iter().find(|c| {
            self.tasks.iter().any(|t| {
                c.len() > t.len() + 1 && c.starts_with(t.as_str()) && c.as_bytes()[t.len()] == b'/'
            })
        })
    }

    fn plan(&self, listing: Vec<RemoteFile>) -> Result<Plan, MediaError> {
        let mut plan = Plan {
            listed: listing.len(),
            ..Plan::default()
        };
        let mut seen = BTreeSet::new();
        for file in listing {
            let Some(dest) = self.destination(&file.path) else {
                plan.elsewhere += 1;
                continue;
            };
            if !seen.insert(dest.clone()) {
                // `tasks/ID/x` and `ID/x` both in the dataset: the first listed wins.
                plan.elsewhere += 1;
                continue;
            }
            match self.dir.symlink_metadata(&dest) {
                Ok(_) => {
                    plan.present += 1;
                    continue;
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                // A parent that is a file, a symlink leading out of the checkout, ...
                Err(e) => {
                    return Err(MediaError::Io {
                        what: "looking at",
                        path: dest,
                        checkout: self.display(),
                        source: e,
                    });
                }
            }
            let mut wanted = Wanted {
                file,
                dest,
                resumed: 0,
            };
            wanted.resumed = self
                .dir
                .metadata(self.part(&wanted))
                .map(|m| m.len())
                .unwrap_or(0)
                .min(wanted.file.size);
            plan.wanted.push(wanted);
        }
        plan.wanted.sort_by(|a, b| a.dest.cmp(&b.dest));
        Ok(plan)
    }

    /// The partial download of `w`, relative to the checkout: named by the content's hash, so
    /// a part is never resumed into another version of the file.
    fn part(&self, w: &Wanted) -> String {
        let tag = match w.file.hash {
            Hash::Sha256(_) => "sha256",
            Hash::GitSha1(_) => "sha1",
        };
        format!("{STAGING_DIR}/{tag}-{}.part", w.file.hash.hex())
    }

    fn io(&self, what: &'static str, path: &str, source: std::io::Error) -> MediaError {
        MediaError::Io {
            what,
            path: path.to_string(),
            checkout: self.display(),
            source,
        }
    }

    /// The files the checkout's tasks reference that it does not hold (but those Claw-Eval
    /// never finds either).
    fn still_missing(&self) -> Vec<String> {
        let selection = self.suite.load_selection(&self.tasks);
        let mut out = Vec::new();
        for task in &selection.tasks {
            for (path, fields) in crate::status::missing_fixture_files(task) {
                out.push(format!(
                    "{}: {path} ({})",
                    task.task.task_id,
                    fields.join(", ")
                ));
            }
        }
        out
    }
}

/// Whether a path from the listing is a plain relative path (no `..`, no empty parts, no
/// backslashes or control characters).
fn safe_path(path: &str) -> bool {
    !path.is_empty()
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains(['\\', '\0']))
        && !path.chars().any(char::is_control)
}

/// An entry of the tree listing.
#[derive(Deserialize)]
struct Entry {
    #[serde(rename = "type")]
    kind: String,
    path: String,
    #[serde(default)]
    size: u64,
    #[serde(default)]
    oid: Option<String>,
    #[serde(default)]
    lfs: Option<Lfs>,
}

#[derive(Deserialize)]
struct Lfs {
    oid: String,
    size: u64,
}

struct Client<'a> {
    http: reqwest::Client,
    source: &'a Source,
}

impl Client<'_> {
    fn get(&self, url: reqwest::Url) -> reqwest::RequestBuilder {
        let mut request = self.http.get(url);
        if let Some(token) = &self.source.token
            && let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {token}"))
        {
            value.set_sensitive(true);
            request = request.header(AUTHORIZATION, value);
        }
        request
    }

    /// Every file of the dataset, page after page.
    async fn list(&self, progress: &dyn MediaProgress) -> Result<Vec<RemoteFile>, MediaError> {
        let mut files = Vec::new();
        let mut next = Some(self.source.tree_url()?);
        let mut seen = BTreeSet::new();
        let mut page = 0;
        while let Some(url) = next.take() {
            page += 1;
            if page > MAX_PAGES || !seen.insert(url.to_string()) {
                return Err(MediaError::BadListing {
                    url: url.to_string(),
                    detail: "its pages lead back to one already read".into(),
                });
            }
            let response = self
                .get(url.clone())
                .send()
                .await
                .map_err(|e| unreachable(&url, &e))?;
            let response = self.check(response, &url).await?;
            next = next_link(response.headers(), &url);
            let body = response.bytes().await.map_err(|e| unreachable(&url, &e))?;
            let entries: Vec<Entry> =
                serde_json::from_slice(&body).map_err(|e| MediaError::BadListing {
                    url: url.to_string(),
                    detail: e.to_string(),
                })?;
            let before = files.len();
            for e in entries.into_iter().filter(|e| e.kind == "file") {
                let hash = match (&e.lfs, &e.oid) {
                    (Some(lfs), _) if is_hex(&lfs.oid, 64) => Hash::Sha256(lfs.oid.to_lowercase()),
                    (None, Some(oid)) if is_hex(oid, 40) => Hash::GitSha1(oid.to_lowercase()),
                    _ => {
                        return Err(MediaError::BadListing {
                            url: url.to_string(),
                            detail: format!(
                                "file `{}` has neither an lfs sha256 nor a git oid",
                                e.path
                            ),
                        });
                    }
                };
                let size = e.lfs.as_ref().map_or(e.size, |l| l.size);
                files.push(RemoteFile {
                    path: e.path,
                    size,
                    hash,
                });
            }
            progress.listed_page(page, files.len() - before);
        }
        Ok(files)
    }

    /// `response` if its status is a success, else the error for it.
    async fn check(
        &self,
        response: reqwest::Response,
        url: &reqwest::Url,
    ) -> Result<reqwest::Response, MediaError> {
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let header = response
            .headers()
            .get("x-error-message")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = response.bytes().await.unwrap_or_default();
        let message = header.or_else(|| {
            serde_json::from_slice::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_string))
        });
        let token = if self.source.token.is_some() {
            format!("the token in {TOKEN_VAR} is not accepted")
        } else {
            format!("no token was sent: set {TOKEN_VAR}")
        };
        let advice = match status {
            StatusCode::UNAUTHORIZED => format!(
                "the dataset needs a Hugging Face access token and {token} (a read token from \
                 https://huggingface.co/settings/tokens)"
            ),
            StatusCode::FORBIDDEN => format!(
                "access to {DATASET} is refused ({token}; a gated dataset also needs its terms \
                 accepted on its page)"
            ),
            StatusCode::NOT_FOUND => format!(
                "no dataset {DATASET} with revision `{}` there (check --revision and --base-url)",
                self.source.revision
            ),
            _ => "try again later, or point --base-url at another mirror".into(),
        };
        Err(MediaError::Http {
            url: url.to_string(),
            status,
            message,
            advice,
        })
    }

    /// Downloads `w` into the checkout (resuming its part), with retries; the bytes received.
    async fn download(
        &self,
        target: &Target,
        w: &Wanted,
        progress: &dyn MediaProgress,
    ) -> Result<u64, MediaError> {
        let mut received = 0;
        let mut attempt = 1;
        loop {
            match self.attempt(target, w, progress, &mut received).await {
                Ok(()) => return Ok(received),
                Err(e) if e.is_transient() && attempt < ATTEMPTS => {
                    attempt += 1;
                    progress.retrying(w, attempt, &e);
                    tokio::time::sleep(Duration::from_secs(u64::from(attempt - 1))).await;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// One try at `w`: resume its part from where it stops, verify, move it into place.
    async fn attempt(
        &self,
        target: &Target,
        w: &Wanted,
        progress: &dyn MediaProgress,
        received: &mut u64,
    ) -> Result<(), MediaError> {
        let size = w.file.size;
        let part = target.part(w);
        target
            .dir
            .create_dir_all(STAGING_DIR)
            .map_err(|e| target.io("creating", STAGING_DIR, e))?;
        let mut have = match target.dir.metadata(&part) {
            Ok(m) if m.len() <= size => m.len(),
            Ok(_) => {
                remove(target, &part)?;
                0
            }
            Err(_) => 0,
        };
        let mut hasher = Hasher::new(&w.file.hash, size);
        if have > 0 {
            hash_part(target, &part, have, &mut hasher)?;
        }
        progress.started(w, have);
        let url = self.source.file_url(&w.file.path)?;
        if have < size {
            let mut request = self.get(url.clone());
            if have > 0 {
                request = request.header(RANGE, format!("bytes={have}-"));
            }
            let sent = request.send().await;
            let interrupted = |got: u64, detail: String| MediaError::Interrupted {
                dest: w.dest.clone(),
                got,
                size,
                part: part.clone(),
                detail,
            };
            let response = match sent {
                Ok(r) => r,
                Err(e) if e.is_connect() => return Err(unreachable(&url, &e)),
                Err(e) => return Err(interrupted(have, error_chain(&e))),
            };
            if have > 0 && response.status() == StatusCode::RANGE_NOT_SATISFIABLE {
                remove(target, &part)?;
                return Err(interrupted(0, "the server refused to resume (416)".into()));
            }
            let resumed = have > 0 && response.status() == StatusCode::PARTIAL_CONTENT;
            if resumed && content_range_start(response.headers()) != Some(have) {
                // A range other than the one asked: start again from the first byte.
                remove(target, &part)?;
                return Err(interrupted(0, "the server answered another range".into()));
            }
            let mut response = self.check(response, &url).await?;
            let mut options = OpenOptions::new();
            options.create(true).write(true);
            if resumed {
                options.append(true);
            } else {
                // The whole file is coming (a first try, or a server that ignores ranges).
                options.truncate(true);
                if have > 0 {
                    progress.rewound(have);
                    hasher = Hasher::new(&w.file.hash, size);
                    have = 0;
                }
            }
            let mut out = target
                .dir
                .open_with(&part, &options)
                .map_err(|e| target.io("opening", &part, e))?;
            loop {
                let chunk = match response.chunk().await {
                    Ok(Some(chunk)) => chunk,
                    Ok(None) => break,
                    Err(e) => {
                        let _ = out.sync_all();
                        return Err(interrupted(have, error_chain(&e)));
                    }
                };
                if have + chunk.len() as u64 > size {
                    drop(out);
                    remove(target, &part)?;
                    return Err(MediaError::TooLong {
                        dest: w.dest.clone(),
                        size,
                    });
                }
                if let Err(e) = out.write_all(&chunk) {
                    return Err(write_error(target, w, &part, have, e));
                }
                hasher.update(&chunk);
                have += chunk.len() as u64;
                *received += chunk.len() as u64;
                progress.advanced(chunk.len() as u64);
            }
            if let Err(e) = out.sync_all() {
                return Err(write_error(target, w, &part, have, e));
            }
            if have < size {
                return Err(interrupted(
                    have,
                    "the server closed the connection early".into(),
                ));
            }
        }
        let actual = hasher.finish();
        if actual != w.file.hash.hex() {
            remove(target, &part)?;
            return Err(MediaError::HashMismatch {
                dest: w.dest.clone(),
                kind: w.file.hash.kind(),
                expected: w.file.hash.hex().to_string(),
                actual,
            });
        }
        if let Some((parent, _)) = w.dest.rsplit_once('/') {
            target
                .dir
                .create_dir_all(parent)
                .map_err(|e| target.io("creating", parent, e))?;
        }
        target
            .dir
            .rename(&part, &target.dir, &w.dest)
            .map_err(|e| target.io("moving the download to", &w.dest, e))
    }
}

/// The error for a failed write of `part`: a full disk, or another I/O error.
fn write_error(target: &Target, w: &Wanted, part: &str, got: u64, e: std::io::Error) -> MediaError {
    if is_disk_full(&e) {
        MediaError::DiskFull {
            checkout: target.display(),
            part: part.to_string(),
            dest: w.dest.clone(),
            got,
            size: w.file.size,
            left: w.file.size - got,
        }
    } else {
        target.io("writing", part, e)
    }
}

/// Whether `e` says the disk (or the user's quota) is full.
pub fn is_disk_full(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}

fn remove(target: &Target, part: &str) -> Result<(), MediaError> {
    match target.dir.remove_file(part) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(target.io("deleting", part, e)),
    }
}

/// Feeds the first `len` bytes of `part` to `hasher` (a resumed download's start).
fn hash_part(target: &Target, part: &str, len: u64, hasher: &mut Hasher) -> Result<(), MediaError> {
    let mut f = target
        .dir
        .open(part)
        .map_err(|e| target.io("reading", part, e))?
        .take(len);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f
            .read(&mut buf)
            .map_err(|e| target.io("reading", part, e))?;
        if n == 0 {
            return Ok(());
        }
        hasher.update(&buf[..n]);
    }
}

/// The digest a file is checked with, computed as it arrives.
enum Hasher {
    Sha256(sha2::Sha256),
    GitSha1(sha1::Sha1),
}

impl Hasher {
    fn new(hash: &Hash, size: u64) -> Self {
        match hash {
            Hash::Sha256(_) => Hasher::Sha256(sha2::Sha256::new()),
            Hash::GitSha1(_) => {
                let mut h = sha1::Sha1::new();
                h.update(format!("blob {size}\0").as_bytes());
                Hasher::GitSha1(h)
            }
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::GitSha1(h) => h.update(bytes),
        }
    }

    fn finish(self) -> String {
        let bytes = match self {
            Hasher::Sha256(h) => h.finalize().to_vec(),
            Hasher::GitSha1(h) => h.finalize().to_vec(),
        };
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The `rel="next"` target of a `Link` header (`<URL>; rel="next", <URL>; rel="last"`),
/// resolved against `base`.
fn next_link(headers: &reqwest::header::HeaderMap, base: &reqwest::Url) -> Option<reqwest::Url> {
    for value in headers.get_all(LINK) {
        let mut rest = value.to_str().ok()?;
        while let Some(open) = rest.find('<') {
            let close = open + rest[open..].find('>')?;
            let target = &rest[open + 1..close];
            let params_end = rest[close..].find('<').map_or(rest.len(), |i| close + i);
            let params = &rest[close + 1..params_end];
            let is_next = params.split(';').any(|p| {
                let p = p.trim().trim_end_matches(',').trim();
                p.strip_prefix("rel=").is_some_and(|r| {
                    r.trim_matches('"')
                        .split_whitespace()
                        .any(|r| r.eq_ignore_ascii_case("next"))
                })
            });
            if is_next {
                return base.join(target).ok();
            }
            rest = &rest[params_end..];
        }
    }
    None
}

/// The first byte of a `Content-Range: bytes FIRST-LAST/SIZE` header.
fn content_range_start(headers: &reqwest::header::HeaderMap) -> Option<u64> {
    let value = headers.get(CONTENT_RANGE)?.to_str().ok()?;
    let range = value.trim().strip_prefix("bytes ")?;
    range.split('-').next()?.trim().parse().ok()
}

fn unreachable(url: &reqwest::Url, e: &reqwest::Error) -> MediaError {
    MediaError::Unreachable {
        url: url.to_string(),
        detail: error_chain(e),
    }
}

/// A reqwest error with its causes (`connection failed: ...: Connection refused (os error
/// 111)`), without the URL its message repeats.
fn error_chain(e: &reqwest::Error) -> String {
    let what = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "connection failed"
    } else if e.is_body() || e.is_decode() {
        "the response broke off"
    } else {
        "the request failed"
    };
    let mut parts = vec![what.to_string()];
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let text = s.to_string();
        if parts.last() != Some(&text) {
            parts.push(text);
        }
        source = s.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderMap;

    #[test]
    fn addresses_quote_the_revision_and_each_path_segment() {
        let s = Source::new("http://127.0.0.1:9/mirror/", "refs/pr/1", None);
        assert_eq!(
            s.tree_url().unwrap().as_str(),
            "http://127.0.0.1:9/mirror/api/datasets/claw-eval/Claw-Eval/tree/refs%2Fpr%2F1?recursive=true"
        );
        assert_eq!(
            s.file_url("tasks/T098/fixtures/docs/A B#1.pdf")
                .unwrap()
                .as_str(),
            "http://127.0.0.1:9/mirror/datasets/claw-eval/Claw-Eval/resolve/refs%2Fpr%2F1/tasks/T098/fixtures/docs/A%20B%231.pdf"
        );
        assert!(matches!(
            Source::new("ftp://x", "main", None).tree_url(),
            Err(MediaError::Usage(m)) if m.contains("`ftp://x`: not an http(s) URL")
        ));
    }

    #[test]
    fn the_token_is_never_in_debug_output() {
        let s = Source::new(DEFAULT_ENDPOINT, "main", Some("hf_secret".into()));
        let shown = format!("{s:?}");
        assert!(
            !shown.contains("hf_secret") && shown.contains("(set)"),
            "{shown}"
        );
    }

    #[test]
    fn the_next_page_comes_from_the_link_header() {
        let base = reqwest::Url::parse("https://hub.example/api/datasets/a/b/tree/main").unwrap();
        let mut h = HeaderMap::new();
        assert_eq!(next_link(&h, &base), None);
        h.insert(
            LINK,
            HeaderValue::from_static(
                "<https://hub.example/api/x?cursor=a,b>; rel=\"prev\", <https://hub.example/api/x?recursive=true&cursor=Zm9v>; rel=\"next\"",
            ),
        );
        assert_eq!(
            next_link(&h, &base).unwrap().as_str(),
            "https://hub.example/api/x?recursive=true&cursor=Zm9v"
        );
        h.insert(
            LINK,
            HeaderValue::from_static("</api/y?cursor=2>; rel=next"),
        );
        assert_eq!(
            next_link(&h, &base).unwrap().as_str(),
            "https://hub.example/api/y?cursor=2"
        );
        h.insert(
            LINK,
            HeaderValue::from_static("<https://hub.example/last>; rel=\"last\""),
        );
        assert_eq!(next_link(&h, &base), None);
    }

    #[test]
    fn content_range_gives_the_first_byte() {
        let mut h = HeaderMap::new();
        h.insert(CONTENT_RANGE, HeaderValue::from_static("bytes 100-199/200"));
        assert_eq!(content_range_start(&h), Some(100));
        h.insert(CONTENT_RANGE, HeaderValue::from_static("bytes */200"));
        assert_eq!(content_range_start(&h), None);
    }

    #[test]
    fn listing_paths_never_lead_out() {
        for bad in [
            "",
            "/etc/passwd",
            "tasks/../x",
            "tasks//x",
            "a\\b",
            "./a",
            "a\nb",
        ] {
            assert!(!safe_path(bad), "{bad:?}");
        }
        assert!(safe_path("tasks/M022/fixtures/video.mp4"));
        assert!(safe_path(
            "tasks/T098/fixtures/docs/OpenClaw Agent Use Cases.pdf"
        ));
    }

    #[test]
    fn git_blob_sha1_and_sha256_match_git_and_sha256sum() {
        // `printf 'hello\n' | git hash-object --stdin`, `printf 'hello\n' | sha256sum`.
        let mut h = Hasher::new(&Hash::GitSha1(String::new()), 6);
        h.update(b"hel");
        h.update(b"lo\n");
        assert_eq!(h.finish(), "ce013625030ba8dba906f756967f9e9ca394464a");
        let mut h = Hasher::new(&Hash::Sha256(String::new()), 6);
        h.update(b"hello\n");
        assert_eq!(
            h.finish(),
            "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
        );
    }

    #[test]
    fn a_full_disk_is_told_apart_from_other_write_errors() {
        let full = std::io::Error::from_raw_os_error(28); // ENOSPC
        assert!(is_disk_full(&full), "{full:?}");
        assert!(!is_disk_full(&std::io::Error::from(
            std::io::ErrorKind::PermissionDenied
        )));
        let e = MediaError::DiskFull {
            checkout: "/c".into(),
            part: ".clawrun-media/sha256-ab.part".into(),
            dest: "tasks/M1/fixtures/video.mp4".into(),
            got: 10,
            size: 30,
            left: 120,
        };
        assert_eq!(
            e.to_string(),
            "disk full writing .clawrun-media/sha256-ab.part in /c (10 of 30 bytes of \
             tasks/M1/fixtures/video.mp4; 120 more bytes to fetch in all): free some space and \
             run the command again to resume"
        );
    }

    #[test]
    fn the_dataset_s_files_land_in_the_checkout_s_task_folders() {
        let tmp = tempfile::tempdir().unwrap();
        for id in ["M1", "T2"] {
            std::fs::create_dir_all(tmp.path().join("tasks").join(id)).unwrap();
            std::fs::write(
                tmp.path().join("tasks").join(id).join("task.yaml"),
                format!("task_id: {id}\nprompt: {{text: hi}}\n"),
            )
            .unwrap();
        }
        std::fs::create_dir_all(tmp.path().join("tasks/T2/fixtures")).unwrap();
        std::fs::write(tmp.path().join("tasks/T2/fixtures/have.json"), "[]").unwrap();
        let c = Target::open(tmp.path()).unwrap();
        assert_eq!(
            c.destination("tasks/M1/fixtures/video.mp4").as_deref(),
            Some("tasks/M1/fixtures/video.mp4")
        );
        assert_eq!(
            c.destination("M1/fixtures/video.mp4").as_deref(),
            Some("tasks/M1/fixtures/video.mp4")
        );
        assert_eq!(c.destination("tasks/M10/video.mp4"), None);
        assert_eq!(c.destination("tasks/M1"), None);
        assert_eq!(c.destination("README.md"), None);
        assert_eq!(c.destination("tasks/M1/../../x"), None);
        let file = |path: &str| RemoteFile {
            path: path.into(),
            size: 3,
            hash: Hash::Sha256("a".repeat(64)),
        };
        let plan = c
            .plan(vec![
                file("tasks/M1/fixtures/video.mp4"),
                file("M1/fixtures/video.mp4"),
                file("tasks/T2/fixtures/have.json"),
                file("tasks/X9/fixtures/other.mp4"),
                file(".gitattributes"),
            ])
            .unwrap();
        assert_eq!(plan.listed, 5);
        assert_eq!(plan.present, 1);
        assert_eq!(plan.elsewhere, 3);
        assert_eq!(plan.wanted.len(), 1);
        assert_eq!(plan.wanted[0].dest, "tasks/M1/fixtures/video.mp4");
        assert_eq!(plan.bytes(), 3);
        assert!(matches!(
            Target::open(&tmp.path().join("tasks")),
            Err(MediaError::Usage(m)) if m.contains("has no tasks/ folder")
        ));
    }
}
