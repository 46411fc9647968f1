//! curl's command line: short options bundle (`-sSL`, `-XPOST`, `-o-`), long options take
//! their value as the next word (`--max-time=5` is unknown, as in curl), `--no-X` turns a
//! boolean off, `--` ends options. Anything that is not an option is a URL.

use std::time::Duration;

/// What to do with the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Action {
    /// Transfer the URLs.
    #[default]
    Transfer,
    /// `-h/--help`.
    Help,
    /// `-V/--version`.
    Version,
}

/// How the data options contribute to the request body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataKind {
    /// `-d/--data/--data-ascii`: `@file` is read with CR and LF removed.
    Ascii,
    /// `--data-raw`: taken literally.
    Raw,
    /// `--data-binary`: `@file` read exactly.
    Binary,
    /// `--data-urlencode`: `[name]=content`, `[name]@file` or `content`, URL-encoded.
    UrlEncode,
    /// `--json`: like `--data-binary`, parts joined without `&`, JSON headers.
    Json,
}

/// One data option in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Data {
    /// Which option.
    pub kind: DataKind,
    /// Its argument.
    pub value: String,
}

/// Where a URL's body goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// `-o FILE` (`-` is stdout).
    File(String),
    /// `-O`: a file named like the URL's last path segment.
    RemoteName,
}

/// A URL with its output, paired in order as curl pairs them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Target {
    /// The URL as written.
    pub url: Option<String>,
    /// `-o`/`-O` for it.
    pub output: Option<Output>,
}

/// `-f` variants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fail {
    /// HTTP errors are ordinary responses.
    #[default]
    No,
    /// `-f/--fail`: exit 22 without writing the body.
    Silently,
    /// `--fail-with-body`: exit 22 after writing the body.
    WithBody,
}

/// Everything the command line asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// What to do.
    pub action: Action,
    /// URLs and outputs in order.
    pub targets: Vec<Target>,
    /// `-X`.
    pub method: Option<String>,
    /// `-H`, as written.
    pub headers: Vec<String>,
    /// `-d` and friends, in order.
    pub data: Vec<Data>,
    /// `-F`/`--form-string`: (field, literal?).
    pub form: Vec<(String, bool)>,
    /// `--url-query`.
    pub url_query: Vec<String>,
    /// `-G`.
    pub get: bool,
    /// `-I`.
    pub head: bool,
    /// `-i`.
    pub include: bool,
    /// `-s`.
    pub silent: bool,
    /// `-S`.
    pub show_error: bool,
    /// `-f`, `--fail-with-body`.
    pub fail: Fail,
    /// `--fail-early`.
    pub fail_early: bool,
    /// `-L`.
    pub location: bool,
    /// `--max-redirs` (`None`: unlimited, curl's `-1`).
    pub max_redirs: Option<u64>,
    /// `-w`.
    pub write_out: Option<String>,
    /// `-m`.
    pub max_time: Option<Duration>,
    /// `--connect-timeout`.
    pub connect_timeout: Option<Duration>,
    /// `-A` (`Some("")` removes the header).
    pub user_agent: Option<String>,
    /// `-e`.
    pub referer: Option<String>,
    /// `-u`.
    pub user: Option<String>,
    /// `--oauth2-bearer`.
    pub bearer: Option<String>,
    /// `-b NAME=VALUE`.
    pub cookies: Vec<String>,
    /// `-r`.
    pub range: Option<String>,
    /// `-v`.
    pub verbose: bool,
    /// `-D`.
    pub dump_header: Option<String>,
    /// `--output-dir`.
    pub output_dir: Option<String>,
    /// `--create-dirs`.
    pub create_dirs: bool,
    /// `-T`.
    pub upload_file: Option<String>,
    /// `--remote-name-all`.
    pub remote_name_all: bool,
    /// `-J`.
    pub remote_header_name: bool,
    /// `--retry`.
    pub retry: u32,
    /// `--path-as-is`.
    pub path_as_is: bool,
    /// `--no-progress-meter` (or `-#`, whose bar is not drawn).
    pub no_progress_meter: bool,
    /// `--max-filesize`.
    pub max_filesize: Option<u64>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            action: Action::Transfer,
            targets: Vec::new(),
            method: None,
            headers: Vec::new(),
            data: Vec::new(),
            form: Vec::new(),
            url_query: Vec::new(),
            get: false,
            head: false,
            include: false,
            silent: false,
            show_error: false,
            fail: Fail::No,
            fail_early: false,
            location: false,
            max_redirs: Some(50),
            write_out: None,
            max_time: None,
            connect_timeout: None,
            user_agent: None,
            referer: None,
            user: None,
            bearer: None,
            cookies: Vec::new(),
            range: None,
            verbose: false,
            dump_header: None,
            output_dir: None,
            create_dirs: false,
            upload_file: None,
            remote_name_all: false,
            remote_header_name: false,
            retry: 0,
            path_as_is: false,
            no_progress_meter: false,
            max_filesize: None,
        }
    }
}

/// A command line curl refuses (exit 2); the message is curl's first line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

/// Options with their short letter and whether they take a value. Options marked `Ignored`
/// change nothing here (TLS, IP version, compression, connection tuning: the sandbox's
/// transport decides those) and are accepted so scripts run unchanged.
const OPTIONS: &[(&str, Option<char>, Arg)] = &[
    ("request", Some('X'), Arg::Value),
    ("header", Some('H'), Arg::Value),
    ("data", Some('d'), Arg::Value),
    ("data-ascii", None, Arg::Value),
    ("data-raw", None, Arg::Value),
    ("data-binary", None, Arg::Value),
    ("data-urlencode", None, Arg::Value),
    ("json", None, Arg::Value),
    ("form", Some('F'), Arg::Value),
    ("form-string", None, Arg::Value),
    ("url-query", None, Arg::Value),
    ("output", Some('o'), Arg::Value),
    ("remote-name", Some('O'), Arg::Flag),
    ("remote-name-all", None, Arg::Flag),
    ("remote-header-name", Some('J'), Arg::Flag),
    ("output-dir", None, Arg::Value),
    ("create-dirs", None, Arg::Flag),
    ("silent", Some('s'), Arg::Flag),
    ("show-error", Some('S'), Arg::Flag),
    ("fail", Some('f'), Arg::Flag),
    ("fail-with-body", None, Arg::Flag),
    ("fail-early", None, Arg::Flag),
    ("location", Some('L'), Arg::Flag),
    ("location-trusted", None, Arg::Flag),
    ("max-redirs", None, Arg::Value),
    ("include", Some('i'), Arg::Flag),
    ("show-headers", None, Arg::Flag),
    ("head", Some('I'), Arg::Flag),
    ("get", Some('G'), Arg::Flag),
    ("write-out", Some('w'), Arg::Value),
    ("max-time", Some('m'), Arg::Value),
    ("connect-timeout", None, Arg::Value),
    ("user-agent", Some('A'), Arg::Value),
    ("referer", Some('e'), Arg::Value),
    ("user", Some('u'), Arg::Value),
    ("oauth2-bearer", None, Arg::Value),
    ("cookie", Some('b'), Arg::Value),
    ("range", Some('r'), Arg::Value),
    ("verbose", Some('v'), Arg::Flag),
    ("dump-header", Some('D'), Arg::Value),
    ("upload-file", Some('T'), Arg::Value),
    ("url", None, Arg::Value),
    ("retry", None, Arg::Value),
    ("path-as-is", None, Arg::Flag),
    ("progress-meter", None, Arg::Flag),
    ("progress-bar", Some('#'), Arg::Flag),
    ("max-filesize", None, Arg::Value),
    ("help", Some('h'), Arg::Flag),
    ("version", Some('V'), Arg::Flag),
    ("insecure", Some('k'), Arg::Ignored),
    ("compressed", None, Arg::Ignored),
    ("no-buffer", Some('N'), Arg::Ignored),
    ("globoff", Some('g'), Arg::Ignored),
    ("disable", Some('q'), Arg::Ignored),
    ("ipv4", Some('4'), Arg::Ignored),
    ("ipv6", Some('6'), Arg::Ignored),
    ("http1.0", Some('0'), Arg::Ignored),
    ("http1.1", None, Arg::Ignored),
    ("http2", None, Arg::Ignored),
    ("http2-prior-knowledge", None, Arg::Ignored),
    ("tlsv1", Some('1'), Arg::Ignored),
    ("tlsv1.0", None, Arg::Ignored),
    ("tlsv1.1", None, Arg::Ignored),
    ("tlsv1.2", None, Arg::Ignored),
    ("tlsv1.3", None, Arg::Ignored),
    ("ssl", None, Arg::Ignored),
    ("ssl-reqd", None, Arg::Ignored),
    ("tcp-nodelay", None, Arg::Ignored),
    ("keepalive", None, Arg::Ignored),
    ("sessionid", None, Arg::Ignored),
    ("raw", None, Arg::Ignored),
    ("remote-time", Some('R'), Arg::Ignored),
    ("retry-connrefused", None, Arg::Ignored),
    ("retry-all-errors", None, Arg::Ignored),
    ("post301", None, Arg::Ignored),
    ("post302", None, Arg::Ignored),
    ("post303", None, Arg::Ignored),
    ("basic", None, Arg::Ignored),
    ("parallel", Some('Z'), Arg::Ignored),
    ("styled-output", None, Arg::Ignored),
    ("cacert", None, Arg::IgnoredValue),
    ("capath", None, Arg::IgnoredValue),
    ("cert", Some('E'), Arg::IgnoredValue),
    ("key", None, Arg::IgnoredValue),
    ("ciphers", None, Arg::IgnoredValue),
    ("limit-rate", None, Arg::IgnoredValue),
    ("retry-delay", None, Arg::IgnoredValue),
    ("retry-max-time", None, Arg::IgnoredValue),
    ("proxy", Some('x'), Arg::IgnoredValue),
    ("noproxy", None, Arg::IgnoredValue),
    ("proxy-header", None, Arg::IgnoredValue),
    ("resolve", None, Arg::IgnoredValue),
    ("connect-to", None, Arg::IgnoredValue),
    ("interface", None, Arg::IgnoredValue),
    ("dns-servers", None, Arg::IgnoredValue),
    ("keepalive-time", None, Arg::IgnoredValue),
    ("proto", None, Arg::IgnoredValue),
    ("proto-redir", None, Arg::IgnoredValue),
    ("proto-default", None, Arg::IgnoredValue),
    ("expect100-timeout", None, Arg::IgnoredValue),
    ("parallel-max", None, Arg::IgnoredValue),
    ("proxy-user", Some('U'), Arg::IgnoredValue),
    ("speed-limit", Some('Y'), Arg::IgnoredValue),
    ("speed-time", Some('y'), Arg::IgnoredValue),
    ("junk-session-cookies", Some('j'), Arg::Ignored),
    ("proxytunnel", Some('p'), Arg::Ignored),
    (
        "time-cond",
        Some('z'),
        Arg::Unsupported("send If-Modified-Since with -H instead"),
    ),
    ("list-only", Some('l'), Arg::Unsupported("FTP")),
    ("append", Some('a'), Arg::Unsupported("FTP")),
    ("use-ascii", Some('B'), Arg::Unsupported("FTP")),
    ("ftp-port", Some('P'), Arg::Unsupported("FTP")),
    ("quote", Some('Q'), Arg::Unsupported("FTP")),
    ("telnet-option", Some('t'), Arg::Unsupported("telnet")),
    ("cookie-jar", Some('c'), Arg::Unsupported("cookie files")),
    ("config", Some('K'), Arg::Unsupported("config files")),
    (
        "manual",
        Some('M'),
        Arg::Unsupported("the manual; see `curl --help`"),
    ),
    ("trace", None, Arg::Unsupported("trace files; use -v")),
    ("trace-ascii", None, Arg::Unsupported("trace files; use -v")),
    (
        "stderr",
        None,
        Arg::Unsupported("redirecting stderr; use 2>FILE"),
    ),
    ("netrc", Some('n'), Arg::Unsupported("netrc files; use -u")),
    (
        "continue-at",
        Some('C'),
        Arg::Unsupported("resuming; use -r"),
    ),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Arg {
    Flag,
    Value,
    Ignored,
    IgnoredValue,
    Unsupported(&'static str),
}

impl Arg {
    fn takes_value(self) -> bool {
        matches!(self, Arg::Value | Arg::IgnoredValue)
    }
}

/// Parses curl's arguments (without `argv[0]`).
pub fn parse(args: &[String]) -> Result<Config, ArgError> {
    let mut cfg = Config::default();
    let mut i = 0;
    let mut options_done = false;
    while i < args.len() {
        let word = &args[i];
        i += 1;
        if options_done || !word.starts_with('-') || word == "-" {
            add_url(&mut cfg, word.clone());
            continue;
        }
        if word == "--" {
            options_done = true;
            continue;
        }
        if let Some(name) = word.strip_prefix("--") {
            let (long, negated) = match find_long(name) {
                Some(o) => (o, false),
                None => match name.strip_prefix("no-").and_then(find_long) {
                    Some(o) if o.2 == Arg::Flag || o.2 == Arg::Ignored => (o, true),
                    Some(_) => {
                        return Err(ArgError(format!(
                            "option {word}: used '--no-' for option that isn't a boolean"
                        )));
                    }
                    None => return Err(unknown(word)),
                },
            };
            let value = if long.2.takes_value() {
                let v = args.get(i).ok_or_else(|| needs_param(word))?;
                i += 1;
                Some(v.clone())
            } else {
                None
            };
            apply(&mut cfg, long, word, value, negated)?;
            continue;
        }
        let letters: Vec<char> = word[1..].chars().collect();
        let mut j = 0;
        while j < letters.len() {
            let c = letters[j];
            j += 1;
            let Some(opt) = OPTIONS.iter().find(|o| o.1 == Some(c)) else {
                return Err(unknown(word));
            };
            let value = if opt.2.takes_value() {
                let rest: String = letters[j..].iter().collect();
                j = letters.len();
                if !rest.is_empty() {
                    Some(rest)
                } else {
                    let v = args.get(i).ok_or_else(|| needs_param(word))?;
                    i += 1;
                    Some(v.clone())
                }
            } else {
                None
            };
            apply(&mut cfg, opt, &format!("-{c}"), value, false)?;
        }
    }
    Ok(cfg)
}

fn find_long(name: &str) -> Option<&'static (&'static str, Option<char>, Arg)> {
    OPTIONS.iter().find(|o| o.0 == name)
}

fn unknown(word: &str) -> ArgError {
    ArgError(format!("option {word}: is unknown"))
}

fn needs_param(word: &str) -> ArgError {
    ArgError(format!("option {word}: requires parameter"))
}

fn bad_number(word: &str) -> ArgError {
    ArgError(format!(
        "option {word}: expected a proper numerical parameter"
    ))
}

/// A decimal number of seconds (`-m 1.5`).
fn seconds(word: &str, v: &str) -> Result<Duration, ArgError> {
    let secs: f64 = v.trim().parse().map_err(|_| bad_number(word))?;
    if !secs.is_finite() || secs < 0.0 {
        return Err(bad_number(word));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn add_url(cfg: &mut Config, url: String) {
    match cfg.targets.iter_mut().find(|t| t.url.is_none()) {
        Some(t) => t.url = Some(url),
        None => cfg.targets.push(Target {
            url: Some(url),
            output: None,
        }),
    }
}

fn add_output(cfg: &mut Config, output: Output) {
    match cfg.targets.iter_mut().find(|t| t.output.is_none()) {
        Some(t) => t.output = Some(output),
        None => cfg.targets.push(Target {
            url: None,
            output: Some(output),
        }),
    }
}

fn apply(
    cfg: &mut Config,
    opt: &(&'static str, Option<char>, Arg),
    word: &str,
    value: Option<String>,
    negated: bool,
) -> Result<(), ArgError> {
    let on = !negated;
    let v = value.unwrap_or_default();
    match opt.2 {
        Arg::Ignored | Arg::IgnoredValue => return Ok(()),
        Arg::Unsupported(what) => {
            return Err(ArgError(format!(
                "option {word}: is not supported in this sandbox ({what})"
            )));
        }
        Arg::Flag | Arg::Value => {}
    }
    let data = |kind| Data {
        kind,
        value: v.clone(),
    };
    match opt.0 {
        "request" => cfg.method = Some(v),
        "header" => cfg.headers.push(v),
        "data" | "data-ascii" => cfg.data.push(data(DataKind::Ascii)),
        "data-raw" => cfg.data.push(data(DataKind::Raw)),
        "data-binary" => cfg.data.push(data(DataKind::Binary)),
        "data-urlencode" => cfg.data.push(data(DataKind::UrlEncode)),
        "json" => cfg.data.push(data(DataKind::Json)),
        "form" => cfg.form.push((v, false)),
        "form-string" => cfg.form.push((v, true)),
        "url-query" => cfg.url_query.push(v),
        "output" => add_output(cfg, Output::File(v)),
        "remote-name" => add_output(cfg, Output::RemoteName),
        "remote-name-all" => cfg.remote_name_all = on,
        "remote-header-name" => cfg.remote_header_name = on,
        "output-dir" => cfg.output_dir = Some(v),
        "create-dirs" => cfg.create_dirs = on,
        "silent" => cfg.silent = on,
        "show-error" => cfg.show_error = on,
        "fail" => cfg.fail = if on { Fail::Silently } else { Fail::No },
        "fail-with-body" => cfg.fail = if on { Fail::WithBody } else { Fail::No },
        "fail-early" => cfg.fail_early = on,
        "location" | "location-trusted" => cfg.location = on,
        "max-redirs" => {
            let n: i64 = v.trim().parse().map_err(|_| bad_number(word))?;
            cfg.max_redirs = match n {
                -1 => None,
                n if n >= 0 => Some(n as u64),
                _ => return Err(bad_number(word)),
            };
        }
        "include" | "show-headers" => cfg.include = on,
        "head" => cfg.head = on,
        "get" => cfg.get = on,
        "write-out" => cfg.write_out = Some(v),
        "max-time" => cfg.max_time = Some(seconds(word, &v)?),
        "connect-timeout" => cfg.connect_timeout = Some(seconds(word, &v)?),
        "user-agent" => cfg.user_agent = Some(v),
        "referer" => cfg.referer = Some(v),
        "user" => cfg.user = Some(v),
        "oauth2-bearer" => cfg.bearer = Some(v),
        "cookie" => {
            if !v.contains('=') {
                return Err(ArgError(format!(
                    "option {word}: reading cookies from a file is not supported in this \
                     sandbox; pass them as 'NAME=VALUE; NAME2=VALUE2'"
                )));
            }
            cfg.cookies.push(v);
        }
        "range" => cfg.range = Some(v),
        "verbose" => cfg.verbose = on,
        "dump-header" => cfg.dump_header = Some(v),
        "upload-file" => cfg.upload_file = Some(v),
        "url" => add_url(cfg, v),
        "retry" => cfg.retry = v.trim().parse().map_err(|_| bad_number(word))?,
        "path-as-is" => cfg.path_as_is = on,
        "progress-meter" => cfg.no_progress_meter = !on,
        "progress-bar" => cfg.no_progress_meter = on,
        "max-filesize" => cfg.max_filesize = Some(size(word, &v)?),
        "help" => cfg.action = Action::Help,
        "version" => cfg.action = Action::Version,
        other => unreachable!("option --{other} has no handler"),
    }
    Ok(())
}

/// A size with an optional `k`/`m`/`g` suffix (`--max-filesize 10M`).
fn size(word: &str, v: &str) -> Result<u64, ArgError> {
    let v = v.trim();
    let (num, mult) = match v.chars().last() {
        Some('k' | 'K') => (&v[..v.len() - 1], 1u64 << 10),
        Some('m' | 'M') => (&v[..v.len() - 1], 1 << 20),
        Some('g' | 'G') => (&v[..v.len() - 1], 1 << 30),
        _ => (v, 1),
    };
    num.parse::<u64>()
        .map(|n| n.saturating_mul(mult))
        .map_err(|_| bad_number(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Config, ArgError> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn bundled_short_options_and_attached_values() {
        let c = p(&["-sSfL", "-XPOST", "-o-", "-H", "A: b", "http://x.local/"]).unwrap();
        assert!(c.silent && c.show_error && c.location);
        assert_eq!(c.fail, Fail::Silently);
        assert_eq!(c.method.as_deref(), Some("POST"));
        assert_eq!(c.headers, ["A: b"]);
        assert_eq!(
            c.targets,
            [Target {
                url: Some("http://x.local/".into()),
                output: Some(Output::File("-".into()))
            }]
        );
        let c = p(&["-sSo", "out.json", "u"]).unwrap();
        assert_eq!(c.targets[0].output, Some(Output::File("out.json".into())));
    }

    #[test]
    fn outputs_pair_with_urls_in_order() {
        let c = p(&["a", "-O", "b", "-o", "f", "c"]).unwrap();
        let pairs: Vec<_> = c
            .targets
            .iter()
            .map(|t| (t.url.clone().unwrap(), t.output.clone()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("a".to_string(), Some(Output::RemoteName)),
                ("b".to_string(), Some(Output::File("f".into()))),
                ("c".to_string(), None),
            ]
        );
    }

    #[test]
    fn long_options_take_the_next_word_and_negate_with_no() {
        let c = p(&[
            "--data-binary",
            "@f",
            "--json",
            "{}",
            "--max-time",
            "1.5",
            "--no-silent",
            "--url",
            "u",
            "--",
            "-notanoption",
        ])
        .unwrap();
        assert_eq!(
            c.data[0],
            Data {
                kind: DataKind::Binary,
                value: "@f".into()
            }
        );
        assert_eq!(c.data[1].kind, DataKind::Json);
        assert_eq!(c.max_time, Some(Duration::from_millis(1500)));
        assert!(!c.silent);
        assert_eq!(c.targets.len(), 2);
        assert_eq!(c.targets[1].url.as_deref(), Some("-notanoption"));
    }

    #[test]
    fn errors_use_curls_wording() {
        assert_eq!(p(&["--foo"]).unwrap_err().0, "option --foo: is unknown");
        assert_eq!(
            p(&["--max-time=5"]).unwrap_err().0,
            "option --max-time=5: is unknown"
        );
        assert_eq!(p(&["-sS9", "u"]).unwrap_err().0, "option -sS9: is unknown");
        assert_eq!(
            p(&["--no-max-time", "3"]).unwrap_err().0,
            "option --no-max-time: used '--no-' for option that isn't a boolean"
        );
        assert_eq!(
            p(&["-sSo"]).unwrap_err().0,
            "option -sSo: requires parameter"
        );
        assert_eq!(
            p(&["--output"]).unwrap_err().0,
            "option --output: requires parameter"
        );
        assert_eq!(
            p(&["-m", "abc"]).unwrap_err().0,
            "option -m: expected a proper numerical parameter"
        );
        assert_eq!(
            p(&["--max-redirs", "x"]).unwrap_err().0,
            "option --max-redirs: expected a proper numerical parameter"
        );
        assert!(
            p(&["-c", "jar"])
                .unwrap_err()
                .0
                .contains("not supported in this sandbox")
        );
        assert!(p(&["-b", "jar.txt"]).unwrap_err().0.contains("NAME=VALUE"));
    }

    #[test]
    fn ignored_options_are_accepted() {
        let c = p(&["-k", "--compressed", "--cacert", "x.pem", "-4", "u"]).unwrap();
        assert_eq!(c.targets.len(), 1);
        assert_eq!(p(&["--max-redirs", "-1"]).unwrap().max_redirs, None);
    }
}
