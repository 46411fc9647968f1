//! `clawrun view [DIR]`: a local page over a folder of runs, as Inspect's `inspect view` gives
//! its users: every run with its agent, start, trials, mean score and status (running,
//! complete, incomplete), refreshed while one runs; each run's report, and any two compared.
//! Served on loopback only; reports are written by the same code as `clawrun report --html`
//! into a folder of the viewer's own and rewritten when a run's journal changes.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use bytes::Bytes;
use clawrun_report::Summary;
use clawrun_report::render::html::esc;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

use super::UsageError;
use super::report::{ReportFormats, load_sourced, write_report_files};
use crate::cli::output::outln;

/// `clawrun view`.
#[derive(clap::Args, Debug)]
pub struct ViewArgs {
    /// The folder of runs (each subfolder a run folder), or one run folder.
    #[arg(default_value = "runs")]
    dir: PathBuf,
    /// The port (0: any free one).
    #[arg(long, default_value_t = 7766)]
    port: u16,
    /// The address to listen on: a loopback address (the page has no authentication).
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
}

/// Runs `clawrun view`: serves until interrupted.
pub fn view_command(args: ViewArgs) -> Result<i32> {
    if !args.host.is_loopback() {
        return Err(UsageError(format!(
            "--host {}: clawrun view serves loopback addresses only (127.0.0.1, ::1); reach it \
             from elsewhere through an SSH tunnel",
            args.host
        ))
        .into());
    }
    if !args.dir.is_dir() {
        return Err(UsageError(format!(
            "{}: no such folder (give the folder holding your run folders, e.g. runs/)",
            args.dir.display()
        ))
        .into());
    }
    let cache = tempfile_dir()?;
    let viewer = Arc::new(Viewer {
        dir: args.dir.clone(),
        cache: cache.clone(),
        built: Mutex::new(BTreeMap::new()),
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(args.host, args.port))
            .await
            .with_context(|| {
                format!(
                    "listening on {}:{} (pass another --port, or 0 for any free one)",
                    args.host, args.port
                )
            })?;
        let addr = listener.local_addr()?;
        outln!("clawrun view: http://{addr}/ (Ctrl-C to stop)")?;
        super::output::flush()?;
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let viewer = viewer.clone();
                    tokio::spawn(async move {
                        let service = service_fn(move |req| {
                            let viewer = viewer.clone();
                            async move { Ok::<_, Infallible>(viewer.answer(addr, req).await) }
                        });
                        let _ = http1::Builder::new()
                            .auto_date_header(false)
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    });
                }
                _ = tokio::signal::ctrl_c() => break anyhow::Ok(()),
            }
        }
    });
    let _ = std::fs::remove_dir_all(&cache);
    result.map(|()| 0)
}

/// A folder of this process's own for the reports it writes.
fn tempfile_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("clawrun-view-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

/// The viewer's state: where runs are, and the reports written so far with what they were
/// written from.
struct Viewer {
    /// The folder of runs.
    dir: PathBuf,
    /// Where reports are written.
    cache: PathBuf,
    /// Per report folder under `cache`: the fingerprint of the journals it was written from.
    built: Mutex<BTreeMap<String, String>>,
}

/// A run of the folder, as the index lists it.
struct RunRow {
    /// Its path relative to the folder of runs (`.` for the folder itself).
    name: String,
    /// The agent.
    agent: String,
    /// What the manifest says (seed, faults, judge, start).
    header: String,
    /// Trials recorded (latest record of each).
    trials: usize,
    /// Mean task score, when anything was counted.
    mean: Option<f64>,
    /// `running`, `complete` or what is missing.
    status: String,
}

impl Viewer {
    /// The run folders: `dir` itself when it is one, else its subfolders that are.
    fn runs(&self) -> Vec<(String, PathBuf)> {
        if is_run(&self.dir) {
            return vec![(".".to_string(), self.dir.clone())];
        }
        let mut runs: Vec<(String, PathBuf)> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().is_dir() && is_run(&e.path()))
            .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
            .collect();
        runs.sort();
        runs
    }

    /// The run named `name`, if the folder has it.
    fn run(&self, name: &str) -> Option<PathBuf> {
        self.runs()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p)
    }

    /// Answers one request.
    async fn answer(
        self: Arc<Self>,
        addr: SocketAddr,
        req: Request<hyper::body::Incoming>,
    ) -> Response<Full<Bytes>> {
        // A page on loopback can still be reached by a web page the user visits through a
        // name that resolves to 127.0.0.1 (DNS rebinding): only our own authority is served.
        let host = req
            .headers()
            .get(hyper::header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        let ours = [
            addr.to_string(),
            format!("localhost:{}", addr.port()),
            format!("127.0.0.1:{}", addr.port()),
        ];
        if !ours.iter().any(|a| a == host) {
            return text(
                StatusCode::FORBIDDEN,
                "clawrun view answers its own address only",
            );
        }
        if req.method() != hyper::Method::GET {
            return text(StatusCode::METHOD_NOT_ALLOWED, "GET only");
        }
        let path = req.uri().path().to_string();
        let query = req.uri().query().unwrap_or("").to_string();
        let viewer = self.clone();
        tokio::task::spawn_blocking(move || viewer.route(&path, &query))
            .await
            .unwrap_or_else(|_| text(StatusCode::INTERNAL_SERVER_ERROR, "the request failed"))
    }

    /// The answer to `GET path?query`.
    fn route(&self, path: &str, query: &str) -> Response<Full<Bytes>> {
        if path == "/" {
            return html(self.index());
        }
        if path == "/compare" {
            let arg = |key: &str| {
                query
                    .split('&')
                    .filter_map(|kv| kv.split_once('='))
                    .find(|(k, _)| *k == key)
                    .map(|(_, v)| percent_decode(v))
            };
            let (Some(a), Some(b)) = (arg("a"), arg("b")) else {
                return text(StatusCode::BAD_REQUEST, "pick two runs (a and b)");
            };
            let (Some(pa), Some(pb)) = (self.run(&a), self.run(&b)) else {
                return text(StatusCode::NOT_FOUND, "no such run");
            };
            let key = format!(
                "compare-{}",
                &blake3::hash(format!("{a}\0{b}").as_bytes()).to_hex()[..16]
            );
            return match self.build(&key, &[pa, pb]) {
                Ok(()) => redirect(&format!("/reports/{key}/report.html")),
                Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e:#}")),
            };
        }
        if let Some(name) = path.strip_prefix("/runs/") {
            let name = percent_decode(name.trim_end_matches('/'));
            let Some(run) = self.run(&name) else {
                return text(StatusCode::NOT_FOUND, "no such run");
            };
            let key = format!("run-{}", &blake3::hash(name.as_bytes()).to_hex()[..16]);
            return match self.build(&key, &[run]) {
                Ok(()) => redirect(&format!("/reports/{key}/report.html")),
                Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e:#}")),
            };
        }
        if let Some(rel) = path.strip_prefix("/reports/") {
            return self.file(&percent_decode(rel));
        }
        text(StatusCode::NOT_FOUND, "not found")
    }

    /// Writes the report of `runs` into `cache/key/` unless it is there already, written from
    /// the journals as they are now.
    fn build(&self, key: &str, runs: &[PathBuf]) -> Result<()> {
        let print = fingerprint(runs);
        if self
            .built
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            == Some(&print)
        {
            return Ok(());
        }
        let folder = self.cache.join(key);
        std::fs::create_dir_all(&folder)?;
        let formats = ReportFormats {
            json: false,
            html: Some(folder.join("report.html")),
            markdown: None,
            prices: None,
            width: None,
        };
        write_report_files(runs, &formats, 0)?;
        self.built
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.to_string(), print);
        Ok(())
    }

    /// A file of the reports written, by its path under the cache (never outside it).
    fn file(&self, rel: &str) -> Response<Full<Bytes>> {
        let rel = Path::new(rel);
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return text(StatusCode::NOT_FOUND, "not found");
        }
        let Ok(bytes) = std::fs::read(self.cache.join(rel)) else {
            return text(StatusCode::NOT_FOUND, "not found");
        };
        let kind = match rel.extension().and_then(|e| e.to_str()) {
            Some("html") => "text/html; charset=utf-8",
            Some("js") => "text/javascript; charset=utf-8",
            Some("json") => "application/json",
            Some("png") => "image/png",
            _ => "application/octet-stream",
        };
        respond(StatusCode::OK, kind, bytes)
    }

    /// The index page.
    fn index(&self) -> String {
        let rows: Vec<RunRow> = self.runs().into_iter().map(|(n, p)| row(n, &p)).collect();
        let running = rows.iter().any(|r| r.status == "running");
        let mut out = String::from(
            "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        );
        if running {
            // A run in progress: its row updates itself.
            out.push_str("<meta http-equiv=\"refresh\" content=\"5\">");
        }
        out.push_str(&format!(
            "<title>clawrun view</title><style>{STYLE}</style></head><body>\n<h1>clawrun \
             view</h1>\n<p class=\"meta\">{} run(s) in <code>{}</code>{}</p>\n",
            rows.len(),
            esc(&self.dir.display().to_string()),
            if running {
                " &middot; refreshing every 5 s while a run is in progress"
            } else {
                ""
            }
        ));
        if rows.is_empty() {
            out.push_str(
                "<p>No run folders here yet: <code>clawrun run --out runs/NAME</code> makes one.</p>",
            );
        }
        out.push_str(
            "<form action=\"/compare\"><div class=\"table-wrap\"><table><thead><tr><th>A</th><th>B</th>\
             <th>run</th><th>agent</th><th>settings</th><th>trials</th><th>mean score</th>\
             <th>status</th></tr></thead><tbody>\n",
        );
        for r in &rows {
            let name = esc(&r.name);
            out.push_str(&format!(
                "<tr data-run=\"{name}\"><td><input type=\"radio\" name=\"a\" value=\"{name}\"></td>\
                 <td><input type=\"radio\" name=\"b\" value=\"{name}\"></td>\
                 <td><a href=\"/runs/{href}/\">{name}</a></td><td>{agent}</td>\
                 <td class=\"meta\">{header}</td><td class=\"num\">{trials}</td>\
                 <td class=\"num\">{mean}</td><td class=\"status {class}\">{status}</td></tr>\n",
                href = percent_encode(&r.name),
                agent = esc(&r.agent),
                header = esc(&r.header),
                trials = r.trials,
                mean = r.mean.map_or("-".to_string(), |m| format!("{m:.3}")),
                class = match r.status.as_str() {
                    "running" | "complete" => r.status.as_str(),
                    _ => "incomplete",
                },
                status = esc(&r.status),
            ));
        }
        out.push_str(
            "</tbody></table></div><p><button type=\"submit\">Compare A with B</button></p></form>\n\
             </body></html>\n",
        );
        out
    }
}

/// A run's row: its records summarised, its lock and completeness asked.
fn row(name: String, run: &Path) -> RunRow {
    let sourced = load_sourced(&[run.to_path_buf()]).unwrap_or_default();
    let trials = sourced.len();
    let summary = Summary::from_records(sourced.into_iter().map(|(_, s)| s), None).ok();
    let arm = clawrun_report::run_folder::arms_of(&[run.to_path_buf()], &mut |_| ())
        .ok()
        .and_then(|a| a.into_iter().next());
    let status = if clawrun_run::lock::held(run) {
        "running".to_string()
    } else {
        match clawrun_run::completeness::gaps(run) {
            Ok(gaps) if gaps.is_empty() => "complete".to_string(),
            Ok(gaps) => gaps.join("; "),
            Err(e) => format!("unreadable: {e:#}"),
        }
    };
    RunRow {
        name,
        agent: arm.as_ref().map_or("?".to_string(), |a| a.agent.clone()),
        header: arm
            .as_ref()
            .and_then(|a| a.headers.first())
            .map_or(String::new(), |h| h.text.clone()),
        trials,
        mean: summary.and_then(|s| s.overall.mean_score).map(|e| e.value),
        status,
    }
}

/// Whether `dir` holds a run (a manifest or a journal of clawrun's).
fn is_run(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name == "run.json"
                || (name.starts_with("run.shard-") && name.ends_with(".json"))
                || (name.starts_with("journal") && name.ends_with(".jsonl"))
        })
}

/// What a report of `runs` is written from: each journal's and timings file's length and
/// modification time.
fn fingerprint(runs: &[PathBuf]) -> String {
    let mut out = String::new();
    for run in runs {
        for entry in std::fs::read_dir(run).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if (name.ends_with(".jsonl") || name.ends_with(".json"))
                && let Ok(meta) = entry.metadata()
            {
                let modified = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                out.push_str(&format!("{name}:{}:{modified};", meta.len()));
            }
        }
    }
    out
}

/// `%XX` escapes (and `+` as a space, as forms send it) decoded.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match u8::from_str_radix(&s[i + 1..i + 3], 16) {
                Ok(b) => {
                    out.push(b);
                    i += 3;
                    continue;
                }
                Err(_) => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `s` with every byte outside `[A-Za-z0-9._-]` as `%XX`.
fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"._-".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn respond(status: StatusCode, kind: &str, body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    if let Ok(v) = kind.parse() {
        r.headers_mut().insert(hyper::header::CONTENT_TYPE, v);
    }
    r
}

fn html(page: String) -> Response<Full<Bytes>> {
    respond(
        StatusCode::OK,
        "text/html; charset=utf-8",
        page.into_bytes(),
    )
}

fn text(status: StatusCode, message: &str) -> Response<Full<Bytes>> {
    respond(
        status,
        "text/plain; charset=utf-8",
        format!("{message}\n").into_bytes(),
    )
}

fn redirect(to: &str) -> Response<Full<Bytes>> {
    let mut r = respond(StatusCode::SEE_OTHER, "text/plain", Vec::new());
    if let Ok(v) = to.parse() {
        r.headers_mut().insert(hyper::header::LOCATION, v);
    }
    r
}

/// The index page's style sheet.
const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1280px;\
padding:16px 24px;color:#1d2330}h1{font-size:22px;margin:0 0 4px}.meta{color:#5b6475}\
.table-wrap{overflow-x:auto}table{border-collapse:collapse;width:100%}\
th,td{border-bottom:1px solid #d8dce4;padding:4px 8px;text-align:left;vertical-align:top}\
th{background:#f4f6f9}.num{text-align:right;font-variant-numeric:tabular-nums}\
.status.running{color:#8a4b00;font-weight:700}.status.complete{color:#1f7a3d}\
.status.incomplete{color:#b3261e}button{font:inherit;padding:4px 12px}\
@media (max-width:600px){body{padding:8px}td.meta{display:none}}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_urls() {
        for name in ["run-a", "my run", "a%b", "ü/x"] {
            assert_eq!(percent_decode(&percent_encode(name)), name);
        }
        assert_eq!(percent_decode("a+b%2Fc%zz"), "a b/c%zz");
    }
}
