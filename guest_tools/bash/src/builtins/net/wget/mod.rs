//! `wget` (as GNU Wget 1.21 behaves) over the sandbox's HTTP: downloads each URL to a file
//! named after it (`index.html` for an empty name, `name.1`, `name.2`, ... when taken), or
//! to `-O FILE` (`-` is stdout), logging to stderr in wget's format (dot progress included)
//! unless `-q`. Exit codes: 1 generic, 2 bad option, 3 file I/O, 4 network failure, 8 server
//! error response; with several failures the lowest code other than 1 wins.

mod args;
mod log;

use std::path::PathBuf;

use base64::Engine as _;

use self::args::{ArgError, Config, USAGE, Verbosity, parse};
use self::log::{dots, human_size, human_time, now, retr_rate};
use super::url::{Strictness, Url, UrlError, decode};
use super::{NetError, Request, Response, Transport, reason_phrase, redirected_method, title_case};
use crate::io::Io;
use crate::shell::{Shell, io_err_msg};

/// The Wget version this one behaves as.
pub const VERSION: &str = "1.21.3";

/// `wget ARGS...` over the sandbox's network.
pub fn wget(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    run(sh, argv, io, &mut *super::system_transport())
}

/// `wget ARGS...` over `transport`.
pub fn run(sh: &mut Shell, argv: &[String], io: &Io, transport: &mut dyn Transport) -> i32 {
    let mut cfg = match parse(&argv[1..]) {
        Ok(c) => c,
        Err(ArgError(message, code)) => {
            io.errln(message);
            return code;
        }
    };
    if cfg.help {
        io.out(HELP);
        return 0;
    }
    if cfg.version {
        io.out(format!(
            "GNU Wget {VERSION} built on wasm32-wasip2 (clawrun sandbox: HTTP and HTTPS through wasi:http).\n"
        ));
        return 0;
    }
    if let Some(list) = &cfg.input_file {
        match crate::builtins::read_input(sh, io, list) {
            Ok(bytes) => cfg.urls.extend(
                String::from_utf8_lossy(&bytes)
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(str::to_string),
            ),
            Err(e) => {
                io.errln(format!(
                    "{list}: {}",
                    e.split_once(": ").map_or(e.as_str(), |x| x.1)
                ));
                return 3;
            }
        }
    }
    if cfg.urls.is_empty() {
        io.errln(format!("wget: missing URL\n{USAGE}"));
        return 1;
    }
    let body = match &cfg.body_file {
        Some(f) => match crate::builtins::read_input(sh, io, f) {
            Ok(b) => Some(b),
            Err(e) => {
                io.errln(format!("wget: {e}"));
                return 3;
            }
        },
        None => cfg.body_data.clone(),
    };
    let mut w = Wget {
        sh,
        io,
        cfg: &cfg,
        transport,
        body,
        output_fresh: true,
        downloaded_files: 0,
        downloaded_bytes: 0,
    };
    let started = w.transport.stopwatch();
    let mut worst = 0;
    for url in &cfg.urls {
        let code = w.fetch(url);
        worst = match (worst, code) {
            (0, c) | (c, 0) => c,
            (1, c) | (c, 1) => c,
            (a, b) => a.min(b),
        };
    }
    if cfg.urls.len() > 1 && cfg.verbosity >= Verbosity::NoVerbose {
        let elapsed = started.elapsed().as_secs_f64();
        let mut text = format!(
            "FINISHED --{}--\nTotal wall clock time: {}\n",
            now(),
            human_time(elapsed)
        );
        if w.downloaded_files > 0 {
            text.push_str(&format!(
                "Downloaded: {} files, {} in {} ({})\n",
                w.downloaded_files,
                human_size(w.downloaded_bytes),
                human_time(elapsed),
                retr_rate(w.downloaded_bytes, elapsed)
            ));
        }
        io.err(text);
    }
    worst
}

struct Wget<'a> {
    sh: &'a mut Shell,
    io: &'a Io,
    cfg: &'a Config,
    transport: &'a mut dyn Transport,
    body: Option<Vec<u8>>,
    /// Whether `-O FILE` has not been written yet (it is truncated once, then appended to).
    output_fresh: bool,
    downloaded_files: u64,
    downloaded_bytes: u64,
}

/// Where the body goes.
enum Dest {
    Stdout,
    Null,
    File(PathBuf, String),
}

impl Wget<'_> {
    fn log(&self, text: &str) {
        if self.cfg.verbosity == Verbosity::Verbose {
            self.io.err(text);
        }
    }

    fn fetch(&mut self, raw: &str) -> i32 {
        let cfg = self.cfg;
        let mut url = match Url::parse(raw, Strictness::Wget) {
            Ok(u) => u,
            Err(UrlError::Unsupported(s)) => {
                if cfg.verbosity > Verbosity::Quiet {
                    self.io.errln(format!("{raw}: Unsupported scheme ‘{s}’."));
                }
                return 1;
            }
            Err(UrlError::Malformed) => {
                if cfg.verbosity > Verbosity::Quiet {
                    self.io
                        .errln(format!("{raw}: Invalid URL {raw}: Invalid host name"));
                }
                return 1;
            }
        };
        let original = url.clone();
        if cfg.output_document.is_some() && self.output_fresh {
            // `-O FILE` is created (emptied) before the first request, as wget does.
            if let Err(code) = self.open_output() {
                return code;
            }
        }
        let start = self.transport.stopwatch();
        let mut method = cfg.method.clone().unwrap_or_else(|| "GET".to_string());
        let mut body = self.body.clone();
        let mut redirects = 0;
        let mut previous: Option<String> = None;
        let response = loop {
            self.log(&format!("--{}--  {url}\n", now()));
            let authority = format!("{}:{}", url.bare_host(), url.port_or_default());
            if previous.as_deref() == Some(authority.as_str()) {
                self.log(&format!("Reusing existing connection to {authority}.\n"));
            }
            let request = self.request(&method, &url, body.as_deref());
            let result = self.transport.send(&request);
            let response = match result {
                Ok(r) => r,
                Err(e) => return self.network_failure(&e, &url, &authority, previous.is_some()),
            };
            if previous.as_deref() != Some(authority.as_str()) {
                self.log(&format!("Connecting to {authority}... connected.\n"));
            }
            previous = Some(authority);
            let status = response.status;
            let reason = reason_phrase(status);
            if cfg.server_response {
                let mut text = String::from("HTTP request sent, awaiting response... \n");
                text.push_str(&format!("  HTTP/1.1 {status} {reason}\n"));
                for (k, v) in &response.headers {
                    text.push_str(&format!("  {}: {v}\n", title_case(k)));
                }
                if cfg.verbosity > Verbosity::Quiet {
                    self.io.err(text);
                }
            } else {
                self.log(&format!(
                    "HTTP request sent, awaiting response... {status} {reason}\n"
                ));
            }
            let Some(location) = response.redirect_location() else {
                break response;
            };
            let Ok(next) = url.join(location) else {
                break response;
            };
            if redirects >= cfg.max_redirect {
                self.log(&format!("{} redirections exceeded.\n", cfg.max_redirect));
                if cfg.verbosity == Verbosity::NoVerbose {
                    self.io
                        .errln(format!("{} redirections exceeded.", cfg.max_redirect));
                }
                return 8;
            }
            self.log(&format!("Location: {location} [following]\n"));
            let (m, keep) = redirected_method(status, &method);
            method = m;
            if !keep {
                body = None;
            }
            redirects += 1;
            url = next;
        };
        let status = response.status;
        if status >= 400 {
            let line = format!("{} ERROR {status}: {}.\n", now(), reason_phrase(status));
            match cfg.verbosity {
                Verbosity::Verbose => self.io.err(format!("{line}\n")),
                Verbosity::NoVerbose => self.io.err(format!("{url}:\n{line}")),
                Verbosity::Quiet => {}
            }
            if cfg.content_on_error
                && let Ok(dest) = self.destination(&original, &response)
            {
                let _ = self.save(&dest, &response.body);
            }
            return 8;
        }
        if cfg.spider {
            self.log("Remote file exists.\n\n");
            return 0;
        }
        let dest = match self.destination(&original, &response) {
            Ok(d) => d,
            Err(code) => return code,
        };
        let length = response.content_length();
        let content_type = response.header("content-type").map(str::to_string);
        let mut text = String::from("Length: ");
        match length {
            Some(n) if n >= 1024 => text.push_str(&format!("{n} ({})", human_size(n))),
            Some(n) => text.push_str(&n.to_string()),
            None => text.push_str("unspecified"),
        }
        if let Some(t) = &content_type {
            text.push_str(&format!(" [{t}]"));
        }
        let shown = match &dest {
            Dest::Stdout => "STDOUT".to_string(),
            Dest::Null => "/dev/null".to_string(),
            Dest::File(_, name) => name.clone(),
        };
        text.push_str(&format!("\nSaving to: ‘{shown}’\n"));
        self.log(&text);
        if let Err(code) = self.save(&dest, &response.body) {
            return code;
        }
        let elapsed = start.elapsed().as_secs_f64();
        let n = response.body.len() as u64;
        self.log(&dots(n, length, elapsed));
        let size = match length {
            Some(total) => format!("{n}/{total}"),
            None => n.to_string(),
        };
        let rate = retr_rate(n, elapsed);
        match (&dest, cfg.verbosity) {
            (_, Verbosity::Quiet) => {}
            (Dest::Stdout, Verbosity::Verbose) => self.io.err(format!(
                "\n{} ({rate}) - written to stdout [{size}]\n\n",
                now()
            )),
            (_, Verbosity::Verbose) => self.io.err(format!(
                "\n{} ({rate}) - ‘{shown}’ saved [{size}]\n\n",
                now()
            )),
            (Dest::Stdout, Verbosity::NoVerbose) => self
                .io
                .err(format!("{} URL:{url} [{size}] -> \"-\" [1]\n", now())),
            (_, Verbosity::NoVerbose) => self
                .io
                .err(format!("{} URL:{url} [{size}] -> \"{shown}\" [1]\n", now())),
        }
        self.downloaded_files += 1;
        self.downloaded_bytes += n;
        0
    }

    /// Empties `-O FILE` before the first download.
    fn open_output(&mut self) -> Result<(), i32> {
        self.output_fresh = false;
        let name = self.cfg.output_document.clone().unwrap_or_default();
        if name == "-" || name == "/dev/null" || name == "/dev/stdout" {
            return Ok(());
        }
        let path = self.sh.resolve(&name);
        std::fs::write(&path, b"").map_err(|e| {
            if self.cfg.verbosity > Verbosity::Quiet {
                self.io.errln(format!("{name}: {}", io_err_msg(&e)));
            }
            3
        })
    }

    /// Where `response` for `url` is saved.
    fn destination(&self, url: &Url, response: &Response) -> Result<Dest, i32> {
        if let Some(name) = &self.cfg.output_document {
            return Ok(match name.as_str() {
                "-" | "/dev/stdout" => Dest::Stdout,
                "/dev/null" => Dest::Null,
                _ => Dest::File(self.sh.resolve(name), name.clone()),
            });
        }
        let mut name = String::from_utf8_lossy(&decode(url.last_segment())).into_owned();
        if self.cfg.content_disposition
            && let Some(d) = response.header("content-disposition")
            && let Some(f) = d.split("filename=").nth(1)
        {
            let f = f.trim().trim_matches('"');
            if let Some(base) = f.rsplit('/').next().filter(|b| !b.is_empty()) {
                name = base.to_string();
            }
        }
        if name.is_empty() {
            name = "index.html".into();
        }
        if let Some(q) = &url.query {
            name = format!("{name}?{q}");
        }
        let name = match &self.cfg.directory_prefix {
            Some(dir) => format!("{}/{name}", dir.trim_end_matches('/')),
            None => name,
        };
        let mut path = self.sh.resolve(&name);
        let mut shown = name.clone();
        if path.exists() {
            if self.cfg.no_clobber {
                if self.cfg.verbosity > Verbosity::Quiet {
                    self.io
                        .errln(format!("File ‘{name}’ already there; not retrieving.\n"));
                }
                return Err(1);
            }
            let mut n = 1;
            loop {
                let candidate = format!("{name}.{n}");
                let p = self.sh.resolve(&candidate);
                if !p.exists() {
                    path = p;
                    shown = candidate;
                    break;
                }
                n += 1;
            }
        }
        Ok(Dest::File(path, shown))
    }

    fn save(&mut self, dest: &Dest, bytes: &[u8]) -> Result<(), i32> {
        let (path, name) = match dest {
            Dest::Stdout => {
                self.io.out(bytes);
                return Ok(());
            }
            Dest::Null => return Ok(()),
            Dest::File(p, n) => (p, n),
        };
        if let Some(parent) = path.parent()
            && self.cfg.directory_prefix.is_some()
        {
            let _ = std::fs::create_dir_all(parent);
        }
        let result = if self.cfg.output_document.is_some() {
            use std::io::Write;
            std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(path)
                .and_then(|mut f| f.write_all(bytes))
        } else {
            std::fs::write(path, bytes)
        };
        result.map_err(|e| {
            if self.cfg.verbosity > Verbosity::Quiet {
                self.io.errln(format!("{name}: {}", io_err_msg(&e)));
            }
            3
        })
    }

    /// wget's lines for a failed connection; exit code 4.
    fn network_failure(&self, e: &NetError, url: &Url, authority: &str, reused: bool) -> i32 {
        let host = url.bare_host();
        let connect = if reused {
            String::new()
        } else {
            format!("Connecting to {authority}... ")
        };
        let (log, short) = match e {
            NetError::Resolve if !url.host_is_address() => (
                format!("Resolving {host} ({host})... failed: Name or service not known.\n"),
                format!("wget: unable to resolve host address ‘{host}’\n"),
            ),
            NetError::Resolve | NetError::Connect => (
                format!("{connect}failed: Connection refused.\n"),
                String::new(),
            ),
            NetError::ConnectTimeout => (
                format!("{connect}failed: Connection timed out.\n"),
                String::new(),
            ),
            NetError::Timeout => (
                format!(
                    "{connect}connected.\nHTTP request sent, awaiting response... Read error (Connection timed out) in headers.\nGiving up.\n\n"
                ),
                String::new(),
            ),
            NetError::Reset => (
                format!(
                    "{connect}connected.\nHTTP request sent, awaiting response... Read error (Connection reset by peer) in headers.\nGiving up.\n\n"
                ),
                String::new(),
            ),
            NetError::Tls => (
                format!("{connect}connected.\nUnable to establish SSL connection.\n"),
                String::new(),
            ),
            NetError::Invalid(m) | NetError::Other(m) => {
                (format!("{connect}failed: {m}.\n"), String::new())
            }
        };
        match self.cfg.verbosity {
            Verbosity::Verbose => self.io.err(format!("{log}{short}")),
            Verbosity::NoVerbose => {
                if short.is_empty() {
                    self.io.err(format!("{url}:\n{log}"));
                } else {
                    self.io.err(short);
                }
            }
            Verbosity::Quiet => {}
        }
        4
    }

    fn request(&self, method: &str, url: &Url, body: Option<&[u8]>) -> Request {
        let cfg = self.cfg;
        let mut headers: Vec<(String, String)> = Vec::new();
        headers.push((
            "User-Agent".into(),
            cfg.user_agent
                .clone()
                .unwrap_or_else(|| format!("Wget/{VERSION}")),
        ));
        headers.push(("Accept".into(), "*/*".into()));
        headers.push(("Accept-Encoding".into(), "identity".into()));
        let user = cfg.user.clone().or_else(|| {
            url.userinfo
                .as_ref()
                .map(|u| String::from_utf8_lossy(&decode(u)).into_owned())
        });
        if let Some(user) = user {
            let pair = match (&cfg.password, user.contains(':')) {
                (Some(p), _) => format!("{user}:{p}"),
                (None, true) => user,
                (None, false) => format!("{user}:"),
            };
            headers.push((
                "Authorization".into(),
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(pair.as_bytes())
                ),
            ));
        }
        if let Some(b) = body {
            headers.push((
                "Content-Type".into(),
                "application/x-www-form-urlencoded".into(),
            ));
            headers.push(("Content-Length".into(), b.len().to_string()));
        }
        for h in &cfg.headers {
            let Some((name, value)) = h.split_once(':') else {
                continue;
            };
            let (name, value) = (name.trim(), value.trim());
            headers.retain(|(k, _)| !k.eq_ignore_ascii_case(name));
            if !value.is_empty() {
                headers.push((name.to_string(), value.to_string()));
            }
        }
        Request {
            method: method.to_string(),
            url: url.clone(),
            headers,
            body: body.map(<[u8]>::to_vec).unwrap_or_default(),
            connect_timeout: cfg.connect_timeout,
            timeout: cfg.timeout,
        }
    }
}

const HELP: &str = "GNU Wget 1.21.3, a non-interactive network retriever.
Usage: wget [OPTION]... [URL]...

  -O,  --output-document=FILE      write documents to FILE ('-' for stdout)
  -P,  --directory-prefix=PREFIX   save files to PREFIX/..
  -q,  --quiet                     quiet (no output)
  -nv, --no-verbose                turn off verboseness, without being quiet
  -S,  --server-response           print server response
  -i,  --input-file=FILE           download URLs found in local FILE
  -nc, --no-clobber                skip downloads that would overwrite existing files
  -U,  --user-agent=AGENT          identify as AGENT instead of Wget/VERSION
  -T,  --timeout=SECONDS           set all timeout values to SECONDS
       --header=STRING             insert STRING among the headers
       --post-data=STRING          use the POST method; send STRING as the data
       --post-file=FILE            use the POST method; send contents of FILE
       --method=HTTPMethod         use method \"HTTPMethod\" in the request
       --body-data=STRING / --body-file=FILE   send a body with --method
       --user=USER --password=PASS set http user and password
       --max-redirect              maximum redirections allowed per page
       --content-on-error          output the received content on server errors
       --content-disposition       honor the Content-Disposition header
       --spider                    don't download anything

This is the sandbox's built-in wget: HTTP and HTTPS only, through the sandbox's network.
";

#[cfg(test)]
mod tests;
