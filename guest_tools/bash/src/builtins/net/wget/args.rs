//! wget's command line: GNU option syntax (bundled short options, `--opt=value` or
//! `--opt value`, unique prefixes of long options, `-nv`-style two-letter options).

use std::time::Duration;

/// wget's usage lines after a command-line error.
pub(super) const USAGE: &str =
    "Usage: wget [OPTION]... [URL]...\n\nTry `wget --help' for more options.";
/// Redirects followed by default (`--max-redirect`).
const MAX_REDIRECT: u32 = 20;

/// How much wget logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Verbosity {
    /// `-q`.
    Quiet,
    /// `-nv`.
    NoVerbose,
    /// The default.
    Verbose,
}

/// What the command line asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Config {
    pub(super) urls: Vec<String>,
    pub(super) output_document: Option<String>,
    pub(super) directory_prefix: Option<String>,
    pub(super) verbosity: Verbosity,
    pub(super) server_response: bool,
    pub(super) headers: Vec<String>,
    pub(super) method: Option<String>,
    pub(super) body_data: Option<Vec<u8>>,
    pub(super) body_file: Option<String>,
    pub(super) user_agent: Option<String>,
    pub(super) user: Option<String>,
    pub(super) password: Option<String>,
    pub(super) timeout: Option<Duration>,
    pub(super) connect_timeout: Option<Duration>,
    pub(super) max_redirect: u32,
    pub(super) no_clobber: bool,
    pub(super) content_on_error: bool,
    pub(super) content_disposition: bool,
    pub(super) input_file: Option<String>,
    pub(super) spider: bool,
    pub(super) help: bool,
    pub(super) version: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            urls: Vec::new(),
            output_document: None,
            directory_prefix: None,
            verbosity: Verbosity::Verbose,
            server_response: false,
            headers: Vec::new(),
            method: None,
            body_data: None,
            body_file: None,
            user_agent: None,
            user: None,
            password: None,
            timeout: None,
            connect_timeout: None,
            max_redirect: MAX_REDIRECT,
            no_clobber: false,
            content_on_error: false,
            content_disposition: false,
            input_file: None,
            spider: false,
            help: false,
            version: false,
        }
    }
}

/// Long options: (name, short letter, takes a value). Ignored ones are accepted and change
/// nothing here (TLS, retries, caching, the progress style).
const OPTIONS: &[(&str, Option<char>, bool)] = &[
    ("output-document", Some('O'), true),
    ("directory-prefix", Some('P'), true),
    ("quiet", Some('q'), false),
    ("no-verbose", None, false),
    ("verbose", Some('v'), false),
    ("server-response", Some('S'), false),
    ("header", None, true),
    ("method", None, true),
    ("post-data", None, true),
    ("post-file", None, true),
    ("body-data", None, true),
    ("body-file", None, true),
    ("user-agent", Some('U'), true),
    ("user", None, true),
    ("password", None, true),
    ("http-user", None, true),
    ("http-password", None, true),
    ("timeout", Some('T'), true),
    ("connect-timeout", None, true),
    ("read-timeout", None, true),
    ("max-redirect", None, true),
    ("no-clobber", None, false),
    ("content-on-error", None, false),
    ("content-disposition", None, false),
    ("input-file", Some('i'), true),
    ("spider", None, false),
    ("help", Some('h'), false),
    ("version", Some('V'), false),
    ("tries", Some('t'), true),
    ("no-check-certificate", None, false),
    ("continue", Some('c'), false),
    ("timestamping", Some('N'), false),
    ("no-directories", None, false),
    ("no-parent", None, false),
    ("no-cache", None, false),
    ("no-cookies", None, false),
    ("progress", None, true),
    ("show-progress", None, false),
    ("no-hsts", None, false),
    ("inet4-only", Some('4'), false),
    ("inet6-only", Some('6'), false),
    ("retry-connrefused", None, false),
    ("waitretry", None, true),
    ("wait", Some('w'), true),
    ("restrict-file-names", None, true),
    ("compression", None, true),
    ("execute", Some('e'), true),
    ("debug", Some('d'), false),
];

/// Options that cannot work here, with what to do instead.
const UNSUPPORTED: &[(&str, Option<char>, &str)] = &[
    ("recursive", Some('r'), "fetch each URL by name instead"),
    ("mirror", Some('m'), "fetch each URL by name instead"),
    (
        "page-requisites",
        Some('p'),
        "fetch each URL by name instead",
    ),
    ("output-file", Some('o'), "redirect stderr with 2>FILE"),
    ("append-output", Some('a'), "redirect stderr with 2>>FILE"),
    (
        "background",
        Some('b'),
        "commands run in the foreground here",
    ),
];

/// `-nv`, `-nc`, `-nd`, `-np` are wget's two-letter short options.
const TWO_LETTER: &[(&str, &str)] = &[
    ("-nv", "no-verbose"),
    ("-nc", "no-clobber"),
    ("-nd", "no-directories"),
    ("-np", "no-parent"),
    ("-nH", "no-directories"),
];

/// A refused command line: the message and wget's exit code.
pub(super) struct ArgError(pub(super) String, pub(super) i32);

pub(super) fn parse(args: &[String]) -> Result<Config, ArgError> {
    let mut cfg = Config::default();
    let mut i = 0;
    while i < args.len() {
        let word = &args[i];
        i += 1;
        if word == "--" {
            cfg.urls.extend(args[i..].iter().cloned());
            break;
        }
        if let Some((_, long)) = TWO_LETTER.iter().find(|(s, _)| s == word) {
            apply(&mut cfg, long, None)?;
            continue;
        }
        if let Some(body) = word.strip_prefix("--") {
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            if let Some((n, _, what)) = UNSUPPORTED.iter().find(|u| u.0 == name) {
                return Err(unsupported(&format!("--{n}"), what));
            }
            let matches: Vec<&(&str, Option<char>, bool)> =
                match OPTIONS.iter().find(|o| o.0 == name) {
                    Some(exact) => vec![exact],
                    None => OPTIONS.iter().filter(|o| o.0.starts_with(name)).collect(),
                };
            let opt = match matches.as_slice() {
                [one] => *one,
                [] => match name
                    .strip_prefix("no-")
                    .and_then(|n| OPTIONS.iter().find(|o| o.0 == n && !o.2))
                {
                    Some(_) => continue,
                    None => return Err(usage(format!("wget: unrecognized option '{word}'"))),
                },
                _ => return Err(usage(format!("wget: option '{word}' is ambiguous"))),
            };
            let value = if opt.2 {
                match inline {
                    Some(v) => Some(v),
                    None => {
                        let v = args.get(i).ok_or_else(|| {
                            usage(format!("wget: option '--{}' requires an argument", opt.0))
                        })?;
                        i += 1;
                        Some(v.clone())
                    }
                }
            } else if inline.is_some() {
                return Err(usage(format!(
                    "wget: option '--{}' doesn't allow an argument",
                    opt.0
                )));
            } else {
                None
            };
            apply(&mut cfg, opt.0, value)?;
            continue;
        }
        if word.len() < 2 || !word.starts_with('-') {
            cfg.urls.push(word.clone());
            continue;
        }
        let letters: Vec<char> = word[1..].chars().collect();
        let mut j = 0;
        while j < letters.len() {
            let c = letters[j];
            j += 1;
            if let Some((n, _, what)) = UNSUPPORTED.iter().find(|u| u.1 == Some(c)) {
                return Err(unsupported(&format!("-{c} (--{n})"), what));
            }
            let Some(opt) = OPTIONS.iter().find(|o| o.1 == Some(c)) else {
                return Err(usage(format!("wget: invalid option -- '{c}'")));
            };
            let value = if opt.2 {
                let rest: String = letters[j..].iter().collect();
                j = letters.len();
                if rest.is_empty() {
                    let v = args.get(i).ok_or_else(|| {
                        usage(format!("wget: option requires an argument -- '{c}'"))
                    })?;
                    i += 1;
                    Some(v.clone())
                } else {
                    Some(rest)
                }
            } else {
                None
            };
            apply(&mut cfg, opt.0, value)?;
        }
    }
    Ok(cfg)
}

fn usage(first: String) -> ArgError {
    ArgError(format!("{first}\n{USAGE}"), 2)
}

fn unsupported(option: &str, what: &str) -> ArgError {
    ArgError(
        format!("wget: option {option} is not supported in this sandbox; {what}"),
        2,
    )
}

fn seconds(name: &str, v: &str) -> Result<Duration, ArgError> {
    match v.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s >= 0.0 => Ok(Duration::from_secs_f64(s)),
        _ => Err(ArgError(
            format!(
                "wget: --{name}: Invalid time period '{v}'\nCould not parse value '{v}' for option '{name}'"
            ),
            2,
        )),
    }
}

fn apply(cfg: &mut Config, name: &str, value: Option<String>) -> Result<(), ArgError> {
    let v = value.unwrap_or_default();
    match name {
        "output-document" => cfg.output_document = Some(v),
        "directory-prefix" => cfg.directory_prefix = Some(v),
        "quiet" => cfg.verbosity = Verbosity::Quiet,
        "no-verbose" => cfg.verbosity = Verbosity::NoVerbose,
        "verbose" => cfg.verbosity = Verbosity::Verbose,
        "server-response" => cfg.server_response = true,
        "header" => cfg.headers.push(v),
        "method" => cfg.method = Some(v.to_ascii_uppercase()),
        "post-data" => {
            cfg.method.get_or_insert_with(|| "POST".into());
            cfg.body_data = Some(v.into_bytes());
        }
        "post-file" => {
            cfg.method.get_or_insert_with(|| "POST".into());
            cfg.body_file = Some(v);
        }
        "body-data" => cfg.body_data = Some(v.into_bytes()),
        "body-file" => cfg.body_file = Some(v),
        "user-agent" => cfg.user_agent = Some(v),
        "user" | "http-user" => cfg.user = Some(v),
        "password" | "http-password" => cfg.password = Some(v),
        "timeout" => {
            let t = seconds(name, &v)?;
            cfg.timeout = Some(t);
            cfg.connect_timeout.get_or_insert(t);
        }
        "connect-timeout" => cfg.connect_timeout = Some(seconds(name, &v)?),
        "read-timeout" => cfg.timeout = Some(seconds(name, &v)?),
        "max-redirect" => {
            cfg.max_redirect = v
                .trim()
                .parse()
                .map_err(|_| ArgError(format!("wget: --max-redirect: Invalid number '{v}'."), 2))?
        }
        "no-clobber" => cfg.no_clobber = true,
        "content-on-error" => cfg.content_on_error = true,
        "content-disposition" => cfg.content_disposition = true,
        "input-file" => cfg.input_file = Some(v),
        "spider" => cfg.spider = true,
        "help" => cfg.help = true,
        "version" => cfg.version = true,
        _ => {}
    }
    Ok(())
}
