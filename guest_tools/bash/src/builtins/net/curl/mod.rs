//! `curl` (as curl 7.88.1 behaves): one transfer per URL over the sandbox's HTTP, with the
//! options agents and task scripts use (see `args.rs`), curl's exit codes and messages, its
//! progress meter on stderr unless `-s`, and its output order: stderr as it happens,
//! stdout buffered until each transfer ends (what a pipe shows).

pub mod args;
pub mod body;
mod request;
pub mod writeout;

use std::path::{Path, PathBuf};
use std::time::Duration;

use self::args::{Action, Config, Fail, Output, Target};
use self::body::{Payload, Source};
use self::request::request_head;
use self::writeout::{Sink, Stats};
use super::meter::{self, Progress};
use super::url::{Strictness, Url, UrlError};
use super::{NetError, Response, Stopwatch, Transport, header_block, redirected_method};
use crate::io::Io;
use crate::shell::{Shell, io_err_msg};

/// The curl version this one behaves as.
pub const VERSION: &str = "7.88.1";
/// `%{curl_version}`.
pub const LIBCURL_VERSION: &str =
    "libcurl/7.88.1 (clawrun sandbox: HTTP and HTTPS through wasi:http)";
const TRY: &str = "curl: try 'curl --help' or 'curl --manual' for more information";

/// `curl ARGS...` over the sandbox's network.
pub fn curl(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    run(sh, argv, io, &mut *super::system_transport())
}

/// `curl ARGS...` over `transport`.
pub fn run(sh: &mut Shell, argv: &[String], io: &Io, transport: &mut dyn Transport) -> i32 {
    let cfg = match args::parse(&argv[1..]) {
        Ok(c) => c,
        Err(e) => {
            io.errln(format!("curl: {}", e.0));
            io.errln(TRY);
            return 2;
        }
    };
    match cfg.action {
        Action::Help => {
            io.out(HELP);
            return 0;
        }
        Action::Version => {
            io.out(format!(
                "curl {VERSION} (wasm32-wasip2) {LIBCURL_VERSION}\nRelease-Date: 2023-02-20\nProtocols: http https\nFeatures: IPv6 Largefile\n"
            ));
            return 0;
        }
        Action::Transfer => {}
    }
    let targets: Vec<Target> = cfg
        .targets
        .iter()
        .filter(|t| t.url.is_some())
        .cloned()
        .collect();
    if targets.is_empty() {
        if argv.len() > 1 {
            io.errln("curl: no URL specified!");
        }
        io.errln(TRY);
        return 2;
    }
    let wants_body = !cfg.data.is_empty() && !cfg.get;
    let conflict = if !cfg.data.is_empty() && !cfg.form.is_empty() {
        Some("POST \nWarning: (-d, --data) and multipart formpost (-F, --form).")
    } else if cfg.head && (wants_body || !cfg.form.is_empty()) {
        Some("POST \nWarning: (-d, --data) and HEAD (-I, --head).")
    } else {
        None
    };
    if let Some(both) = conflict {
        if !cfg.silent {
            io.errln(format!(
                "Warning: You can only select one HTTP request method! You asked for both {both}"
            ));
        }
        return 2;
    }
    let mut session = Session {
        sh,
        io,
        cfg: &cfg,
        transport,
        pending: Vec::new(),
    };
    let code = session.run(&targets);
    session.flush();
    code
}

/// Files and stdin through the shell.
struct ShellFiles<'a> {
    sh: &'a Shell,
    io: &'a Io,
}

impl Source for ShellFiles<'_> {
    fn read(&mut self, name: &str) -> Result<Vec<u8>, String> {
        crate::builtins::read_input(self.sh, self.io, name)
    }
}

/// One `curl` invocation in progress.
struct Session<'a> {
    sh: &'a mut Shell,
    io: &'a Io,
    cfg: &'a Config,
    transport: &'a mut dyn Transport,
    /// Standard output not yet flushed (curl's stdout is a buffered pipe).
    pending: Vec<u8>,
}

/// How a transfer ended badly: curl's exit code and message.
struct Failure {
    code: i32,
    message: String,
}

impl Failure {
    fn new(code: i32, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
        }
    }
}

/// Where a body or header block is written.
enum Dest {
    Stdout,
    Stderr,
    Null,
    File(PathBuf),
}

impl Session<'_> {
    fn silent(&self) -> bool {
        self.cfg.silent
    }

    fn meter(&self) -> bool {
        !self.cfg.silent && !self.cfg.no_progress_meter
    }

    fn flush(&mut self) {
        if !self.pending.is_empty() {
            self.io.out(std::mem::take(&mut self.pending));
        }
    }

    fn warn(&self, message: &str) {
        if !self.silent() {
            self.io.errln(message);
        }
    }

    fn run(&mut self, targets: &[Target]) -> i32 {
        let payload = match self.payload() {
            Ok(p) => p,
            Err(f) => {
                self.report(&f);
                return f.code;
            }
        };
        let mut last = 0;
        for (n, target) in targets.iter().enumerate() {
            let output = target
                .output
                .clone()
                .or_else(|| self.cfg.remote_name_all.then_some(Output::RemoteName));
            let raw = target.url.clone().unwrap_or_default();
            let (code, stats) = self.transfer(n, &raw, output, payload.as_ref());
            if let Some(format) = &self.cfg.write_out {
                self.write_out(format, &stats);
            }
            last = code;
            if code != 0 && self.cfg.fail_early {
                break;
            }
        }
        last
    }

    /// The body every request carries, if any.
    fn payload(&mut self) -> Result<Option<Payload>, Failure> {
        let mut warnings = Vec::new();
        let mut files = ShellFiles {
            sh: self.sh,
            io: self.io,
        };
        if let Some(path) = &self.cfg.upload_file {
            return match files.read(path) {
                Ok(bytes) => Ok(Some(Payload {
                    bytes,
                    content_type: None,
                })),
                Err(_) => {
                    if !self.silent() {
                        self.io.errln(format!("curl: Can't open '{path}'!"));
                        self.io.errln(TRY);
                    }
                    Err(Failure::new(
                        26,
                        "Failed to open/read local data from file/application",
                    ))
                }
            };
        }
        if !self.cfg.form.is_empty() {
            return body::multipart(&self.cfg.form, &mut files)
                .map(Some)
                .map_err(|m| Failure::new(26, m));
        }
        let data = body::data(self.cfg, &mut files, &mut |w| warnings.push(w));
        for w in warnings {
            self.warn(&w);
        }
        Ok(data.map(|bytes| Payload {
            bytes,
            content_type: Some(
                if self.cfg.data.iter().all(|d| d.kind == args::DataKind::Json) {
                    "application/json"
                } else {
                    "application/x-www-form-urlencoded"
                }
                .into(),
            ),
        }))
    }

    /// Prints `curl: (N) message` unless silenced.
    fn report(&self, f: &Failure) {
        if !self.silent() || self.cfg.show_error {
            self.io.errln(format!("curl: ({}) {}", f.code, f.message));
        }
    }

    fn write_out(&mut self, format: &str, stats: &Stats) {
        let format = match format.strip_prefix('@') {
            Some(name) => match crate::builtins::read_input(self.sh, self.io, name) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(_) => return,
            },
            None => format.to_string(),
        };
        let io = self.io;
        let pending = &mut self.pending;
        writeout::expand(&format, stats, &mut |sink, bytes| match sink {
            Sink::Stdout => pending.extend_from_slice(bytes),
            Sink::Stderr => io.err(bytes),
        });
    }

    /// Resolves an output name to where it writes.
    fn sink(&self, name: &str) -> Dest {
        match name {
            "-" | "/dev/stdout" => Dest::Stdout,
            "/dev/stderr" => Dest::Stderr,
            "/dev/null" => Dest::Null,
            _ => {
                let name = match &self.cfg.output_dir {
                    Some(dir) if !name.starts_with('/') => {
                        format!("{}/{name}", dir.trim_end_matches('/'))
                    }
                    _ => name.to_string(),
                };
                Dest::File(self.sh.resolve(&name))
            }
        }
    }

    /// Writes `bytes` to `sink` (a file is created or truncated on first use, appended to
    /// after); on failure, curl's warning and the reason.
    fn write(&mut self, sink: &Dest, bytes: &[u8], fresh: bool) -> Result<(), String> {
        match sink {
            Dest::Stdout => self.pending.extend_from_slice(bytes),
            Dest::Stderr => self.io.err(bytes),
            Dest::Null => {}
            Dest::File(path) => {
                if self.cfg.create_dirs
                    && let Some(parent) = path.parent()
                {
                    let _ = std::fs::create_dir_all(parent);
                }
                let result = if fresh {
                    std::fs::write(path, bytes)
                } else {
                    use std::io::Write;
                    std::fs::OpenOptions::new()
                        .append(true)
                        .open(path)
                        .and_then(|mut f| f.write_all(bytes))
                };
                if let Err(e) = result {
                    return Err(format!(
                        "Warning: Failed to open the file {}: {}",
                        display_path(path),
                        io_err_msg(&e)
                    ));
                }
            }
        }
        Ok(())
    }

    /// One URL: its requests (redirects and retries included), outputs and meter.
    fn transfer(
        &mut self,
        urlnum: usize,
        raw: &str,
        output: Option<Output>,
        payload: Option<&Payload>,
    ) -> (i32, Stats) {
        let start = self.transport.stopwatch();
        let mut stats = Stats {
            url: raw.to_string(),
            url_effective: raw.to_string(),
            urlnum,
            method: "GET".into(),
            ..Stats::default()
        };
        let result = self.exchange(raw, output, payload, &mut stats, start);
        stats.time_total = start.elapsed();
        let code = match result {
            Ok(()) => 0,
            Err(f) => {
                self.report(&f);
                stats.exitcode = f.code;
                stats.errormsg = Some(f.message);
                f.code
            }
        };
        self.flush();
        (code, stats)
    }

    fn exchange(
        &mut self,
        raw: &str,
        output: Option<Output>,
        payload: Option<&Payload>,
        stats: &mut Stats,
        start: Stopwatch,
    ) -> Result<(), Failure> {
        let cfg = self.cfg;
        let mut url = Url::parse(raw, Strictness::Curl).map_err(|e| match e {
            UrlError::Malformed => Failure::new(3, "URL using bad/illegal format or missing URL"),
            UrlError::Unsupported(s) => Failure::new(
                1,
                format!("Protocol \"{s}\" not supported or disabled in libcurl"),
            ),
        })?;
        if cfg.path_as_is
            && let Some(path) = raw_path(raw)
        {
            url.path = path;
        }
        let mut files = ShellFiles {
            sh: self.sh,
            io: self.io,
        };
        for q in &cfg.url_query {
            let encoded = match q.strip_prefix('+') {
                Some(plain) => plain.to_string(),
                None => body::urlencoded(q, &mut |name| files.read(name).unwrap_or_default()),
            };
            url.append_query(&encoded);
        }
        let mut body: Option<&Payload> = payload;
        if cfg.get && !cfg.data.is_empty() && cfg.upload_file.is_none() {
            if let Some(p) = payload {
                url.append_query(&String::from_utf8_lossy(&p.bytes));
            }
            body = None;
        }
        if let Some(upload) = &cfg.upload_file
            && url.path.ends_with('/')
        {
            let name = upload.rsplit('/').next().unwrap_or(upload);
            url.path.push_str(&super::url::encode(name));
        }
        stats.url_effective = url.to_string();
        stats.scheme = url.scheme.clone();
        let mut method = match &cfg.method {
            Some(m) => m.clone(),
            None if cfg.head => "HEAD".into(),
            None if cfg.upload_file.is_some() => "PUT".into(),
            None if body.is_some() => "POST".into(),
            None => "GET".into(),
        };
        let mut internal_method = if cfg.head {
            "HEAD".to_string()
        } else if body.is_some() {
            if cfg.upload_file.is_some() {
                "PUT"
            } else {
                "POST"
            }
            .to_string()
        } else {
            "GET".to_string()
        };
        stats.method = method.clone();
        stats.referer = cfg.referer.clone();
        // The output sink: decided before the transfer, opened when the body is written.
        let mut out_sink = match &output {
            None => Dest::Stdout,
            Some(Output::File(name)) => self.sink(name),
            Some(Output::RemoteName) => {
                let name = url.last_segment().to_string();
                if name.is_empty() && !cfg.remote_header_name {
                    self.warn("curl: Remote file name has no length!");
                    return Err(Failure::new(
                        23,
                        "Failed writing received data to disk/application",
                    ));
                }
                self.sink(&name)
            }
        };
        let header_sink = cfg.dump_header.as_deref().map(|d| self.sink(d));
        let show_meter = self.meter();
        let ul_size = body.map(|b| b.bytes.len() as u64);
        if show_meter {
            self.io.err(meter::HEADER);
            self.io.err(meter::line(&Progress::default()));
        }
        let mut redirects = 0u64;
        let mut retries_left = cfg.retry;
        let mut retry_wait = Duration::from_secs(1);
        let mut headers_out_fresh = true;
        let mut dump_fresh = true;
        let response = loop {
            let request = self.request(&method, &url, body);
            stats.size_request += request_head(&request).len() as u64;
            if cfg.verbose {
                self.verbose_request(&request);
            }
            let sent = self.transport.stopwatch();
            let result = self.transport.send(&request);
            stats.num_connects += 1;
            let response = match result {
                Ok(r) => r,
                Err(e) => {
                    if retries_left > 0 && matches!(e, NetError::Timeout | NetError::ConnectTimeout)
                    {
                        retries_left -= 1;
                        self.retry_warning("timeout", retry_wait, retries_left);
                        self.transport.pause(retry_wait);
                        retry_wait *= 2;
                        continue;
                    }
                    let failure = net_failure(&e, &url, cfg, sent.elapsed());
                    if cfg.verbose {
                        self.io
                            .err(format!("* {}\n* Closing connection 0\n", failure.message));
                    }
                    // A name that does not resolve ends the meter's line at once; a failed
                    // connection first draws a second line.
                    if show_meter && failure.code != 6 {
                        self.io.err(meter::line(&Progress::default()));
                        self.io.err("\n");
                    }
                    return Err(failure);
                }
            };
            if retries_left > 0 && matches!(response.status, 408 | 429 | 500 | 502 | 503 | 504) {
                retries_left -= 1;
                self.retry_warning("HTTP error", retry_wait, retries_left);
                self.transport.pause(retry_wait);
                retry_wait *= 2;
                continue;
            }
            stats.remote_port = url.port_or_default();
            stats.http_code = response.status;
            stats.headers = response.headers.clone();
            let block = header_block(&response);
            stats.size_header += block.len() as u64;
            if cfg.verbose {
                self.verbose_response(&block);
            }
            if cfg.include || cfg.head {
                self.write(&out_sink, block.as_bytes(), headers_out_fresh)
                    .map_err(|w| self.write_failure(w))?;
                headers_out_fresh = false;
            }
            if let Some(sink) = &header_sink {
                self.write(sink, block.as_bytes(), dump_fresh)
                    .map_err(|w| self.write_failure(w))?;
                dump_fresh = false;
            }
            let Some(location) = response.redirect_location() else {
                break response;
            };
            let next = url.join(location);
            if !cfg.location {
                stats.redirect_url = next.ok().map(|u| u.to_string());
                break response;
            }
            if cfg.max_redirs.is_some_and(|max| redirects >= max) {
                if show_meter {
                    self.io.err(meter::line(&Progress::default()));
                    self.io.err("\n");
                }
                return Err(Failure::new(
                    47,
                    format!(
                        "Maximum ({}) redirects followed",
                        cfg.max_redirs.unwrap_or(0)
                    ),
                ));
            }
            let next =
                next.map_err(|_| Failure::new(3, "URL using bad/illegal format or missing URL"))?;
            if cfg.verbose {
                self.io
                    .err(format!("* Issue another request to this URL: '{next}'\n"));
            }
            let (new_method, keep_body) = redirected_method(response.status, &internal_method);
            internal_method = new_method.clone();
            if cfg.method.is_none() {
                method = new_method;
            }
            if !keep_body {
                body = None;
            }
            redirects += 1;
            stats.time_redirect = start.elapsed();
            url = next;
            stats.url_effective = url.to_string();
            stats.method = method.clone();
        };
        stats.num_redirects = redirects;
        if cfg.remote_header_name
            && output == Some(Output::RemoteName)
            && let Some(name) = response
                .header("content-disposition")
                .and_then(disposition_filename)
        {
            out_sink = self.sink(&name);
        }
        let progress = Progress {
            dl_size: response.content_length(),
            ul_size,
            downloaded: response.body.len() as u64,
            uploaded: ul_size.unwrap_or(0),
            elapsed: start.elapsed(),
        };
        if cfg.fail != Fail::No && response.status >= 400 {
            if cfg.fail == Fail::WithBody {
                self.write_body(&out_sink, &response, !headers_out_fresh, stats)?;
            }
            if show_meter {
                self.io.err(meter::line(&Progress {
                    downloaded: 0,
                    ..progress
                }));
                self.io.err("\n");
            }
            return Err(Failure::new(
                22,
                format!("The requested URL returned error: {}", response.status),
            ));
        }
        if let Some(max) = cfg.max_filesize
            && response.body.len() as u64 > max
        {
            if show_meter {
                self.io.err("\n");
            }
            return Err(Failure::new(63, "Maximum file size exceeded"));
        }
        let written = self.write_body(&out_sink, &response, !headers_out_fresh, stats);
        if show_meter {
            self.io.err(meter::line(&progress));
            self.io.err("\n");
        }
        written?;
        stats.size_download = response.body.len() as u64;
        stats.size_upload = ul_size.unwrap_or(0);
        if response.header("x-clawrun-web") == Some("truncated") {
            // The page was longer than the web keeps: what was written is its start; fail as
            // curl does when a transfer passes --max-filesize.
            return Err(Failure::new(
                63,
                format!(
                    "Maximum file size exceeded: the web keeps the first {} bytes of a page and this one is longer (the output holds only those)",
                    response.body.len()
                ),
            ));
        }
        if cfg.verbose {
            self.io.err(format!(
                "* Connection #0 to host {} left intact\n",
                url.bare_host()
            ));
        }
        Ok(())
    }

    /// Writes the body (after any header block already written to the same sink).
    fn write_body(
        &mut self,
        sink: &Dest,
        response: &Response,
        appending: bool,
        stats: &mut Stats,
    ) -> Result<(), Failure> {
        if let Dest::File(path) = sink {
            stats.filename_effective = Some(display_path(path));
        }
        if self.cfg.verbose && !response.body.is_empty() {
            self.io
                .err(format!("{{ [{} bytes data]\n", response.body.len()));
        }
        match self.write(sink, &response.body, !appending) {
            Ok(()) => Ok(()),
            Err(warning) => Err(self.write_failure(warning)),
        }
    }

    fn write_failure(&self, warning: String) -> Failure {
        self.warn(&warning);
        Failure::new(23, "Failure writing output to destination")
    }

    fn retry_warning(&self, problem: &str, wait: Duration, left: u32) {
        self.warn(&format!(
            "Warning: Problem : {problem}. Will retry in {} seconds. {left} retries left.",
            wait.as_secs()
        ));
    }
}

/// curl's exit code and message for a transport failure.
fn net_failure(e: &NetError, url: &Url, cfg: &Config, waited: Duration) -> Failure {
    let host = url.bare_host();
    let port = url.port_or_default();
    let refused = || {
        Failure::new(
            7,
            format!(
                "Failed to connect to {host} port {port} after 0 ms: Couldn't connect to server"
            ),
        )
    };
    match e {
        // Nothing answers a name the sandbox does not serve; an address cannot be "unknown",
        // so it is a refused connection there, as on a machine where nothing listens.
        NetError::Resolve if url.host_is_address() => refused(),
        NetError::Resolve => Failure::new(6, format!("Could not resolve host: {host}")),
        NetError::Connect => refused(),
        NetError::ConnectTimeout => {
            let ms = cfg
                .connect_timeout
                .or(cfg.max_time)
                .unwrap_or(waited)
                .as_millis();
            Failure::new(
                28,
                format!(
                    "Failed to connect to {host} port {port} after {ms} ms: Timeout was reached"
                ),
            )
        }
        NetError::Timeout => {
            let ms = cfg.max_time.unwrap_or(waited).as_millis();
            Failure::new(
                28,
                format!("Operation timed out after {ms} milliseconds with 0 bytes received"),
            )
        }
        NetError::Reset => Failure::new(56, "Recv failure: Connection reset by peer"),
        NetError::Tls => Failure::new(35, format!("TLS connect error to {host}:{port}")),
        NetError::Invalid(m) => Failure::new(43, m.clone()),
        NetError::Other(m) => Failure::new(
            56,
            format!("Failure when receiving data from the peer: {m}"),
        ),
    }
}

/// The file name of a `Content-Disposition: attachment; filename="x"` header, without any
/// directory part.
fn disposition_filename(value: &str) -> Option<String> {
    let at = value.find("filename=")?;
    let name = value[at + "filename=".len()..].trim();
    let name = match name.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => name.split(';').next()?.trim(),
    };
    let base = name.rsplit(['/', '\\']).next()?;
    (!base.is_empty()).then(|| base.to_string())
}

/// The path of `raw` exactly as written (for `--path-as-is`), percent-encoded.
fn raw_path(raw: &str) -> Option<String> {
    let rest = raw.split_once("://").map_or(raw, |(_, r)| r);
    let start = rest.find('/')?;
    let path = &rest[start..];
    let end = path.find(['?', '#']).unwrap_or(path.len());
    Some(super::url::encode(&path[..end]))
}

fn display_path(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

const HELP: &str = "Usage: curl [options...] <url>
 -d, --data <data>          HTTP POST data (also --data-raw, --data-binary, --data-urlencode)
     --json <data>          HTTP POST JSON
 -F, --form <name=content>  Specify multipart MIME data
 -f, --fail                 Fail fast with no output on HTTP errors (also --fail-with-body)
 -G, --get                  Put the post data in the URL and use GET
 -H, --header <header/@file> Pass custom header(s) to server
 -I, --head                 Show document info only
 -i, --include              Include protocol response headers in the output
 -L, --location             Follow redirects (--max-redirs <num>)
 -o, --output <file>        Write to file instead of stdout (--output-dir, --create-dirs)
 -O, --remote-name          Write output to a file named as the remote file
 -s, --silent               Silent mode
 -S, --show-error           Show error even when -s is used
 -T, --upload-file <file>   Transfer local FILE to destination
 -u, --user <user:password> Server user and password (also --oauth2-bearer)
 -A, --user-agent <name>    Send User-Agent <name> to server
 -e, --referer <URL>        Referrer URL
 -b, --cookie <data>        Send cookies (NAME=VALUE)
 -r, --range <range>        Retrieve only the bytes within RANGE
 -D, --dump-header <file>   Write the received headers to <filename>
 -m, --max-time <seconds>   Maximum time allowed for transfer (--connect-timeout)
 -w, --write-out <format>   Use output FORMAT after completion
 -v, --verbose              Make the operation more talkative
     --retry <num>          Retry request if transient problems occur
 -V, --version              Show version number and quit

This is the sandbox's built-in curl: HTTP and HTTPS only, through the sandbox's network.
";

#[cfg(test)]
mod tests;
