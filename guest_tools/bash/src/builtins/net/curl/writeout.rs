//! `-w/--write-out`: `%{variable}`, `%header{name}`, `%{json}`, `%{header_json}`,
//! `%{stdout}`/`%{stderr}` switching, `%%`, and the `\n`, `\r`, `\t` escapes, as curl 7.88
//! expands them. An unknown variable is reported on stderr and expands to nothing.

use std::time::Duration;

/// What one transfer left for `-w`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// The URL as given.
    pub url: String,
    /// The last URL fetched (after redirects).
    pub url_effective: String,
    /// Index of the URL on the command line, from 0.
    pub urlnum: usize,
    /// The method of the last request.
    pub method: String,
    /// The last status (0 when no response came).
    pub http_code: u16,
    /// Headers of the last response.
    pub headers: Vec<(String, String)>,
    /// Redirects followed.
    pub num_redirects: u64,
    /// Where the last response redirected to, when not followed.
    pub redirect_url: Option<String>,
    /// Body bytes received.
    pub size_download: u64,
    /// Body bytes sent.
    pub size_upload: u64,
    /// Header bytes received (all responses).
    pub size_header: u64,
    /// Header bytes sent (all requests).
    pub size_request: u64,
    /// Time of the whole transfer.
    pub time_total: Duration,
    /// Time spent before the last request (redirects).
    pub time_redirect: Duration,
    /// The transfer's exit code.
    pub exitcode: i32,
    /// The error message, when it failed.
    pub errormsg: Option<String>,
    /// The output file, if any.
    pub filename_effective: Option<String>,
    /// `http` or `https`.
    pub scheme: String,
    /// The port connected to (0 when none).
    pub remote_port: u16,
    /// The `Referer` sent, if any.
    pub referer: Option<String>,
    /// Connections made.
    pub num_connects: u64,
}

impl Stats {
    fn content_type(&self) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v.as_str())
    }

    fn speed(&self, bytes: u64) -> u64 {
        let us = self.time_total.as_micros().max(1000);
        (u128::from(bytes) * 1_000_000 / us) as u64
    }

    /// The value of variable `name` as `-w` prints it; `None` for an unknown name.
    fn var(&self, name: &str) -> Option<Value> {
        let secs = |d: Duration| Value::Time(d.as_secs_f64());
        let num = |n: u64| Value::Num(n);
        let text = |s: &str| Value::Text(Some(s.to_string()));
        Some(match name {
            "certs" => text(""),
            "content_type" => Value::Text(self.content_type().map(str::to_string)),
            "errormsg" => Value::Text(self.errormsg.clone()),
            "exitcode" => num(self.exitcode as u64),
            "filename_effective" => Value::Text(self.filename_effective.clone()),
            "ftp_entry_path" => Value::Text(None),
            "http_code" | "response_code" => Value::Code(self.http_code),
            "http_connect" => Value::Code(0),
            "http_version" => text(if self.http_code == 0 { "0" } else { "1.1" }),
            "local_ip" | "remote_ip" => text(""),
            "local_port" => num(0),
            "method" => text(&self.method),
            "num_certs" => num(0),
            "num_connects" => num(self.num_connects),
            "num_headers" => num(self.headers.len() as u64),
            "num_redirects" => num(self.num_redirects),
            "proxy_ssl_verify_result" | "ssl_verify_result" => num(0),
            "redirect_url" => Value::Text(self.redirect_url.clone()),
            "referer" => Value::Text(self.referer.clone()),
            "remote_port" => num(u64::from(self.remote_port)),
            "scheme" => text(&self.scheme.to_ascii_uppercase()),
            "size_download" => num(self.size_download),
            "size_header" => num(self.size_header),
            "size_request" => num(self.size_request),
            "size_upload" => num(self.size_upload),
            "speed_download" => num(self.speed(self.size_download)),
            "speed_upload" => num(self.speed(self.size_upload)),
            "time_appconnect" | "time_connect" | "time_namelookup" | "time_pretransfer" => {
                secs(Duration::ZERO)
            }
            "time_redirect" => secs(self.time_redirect),
            "time_starttransfer" | "time_total" => secs(self.time_total),
            "url" => text(&self.url),
            "url_effective" => text(&self.url_effective),
            "urlnum" => num(self.urlnum as u64),
            "curl_version" => text(super::LIBCURL_VERSION),
            "header_json" => Value::Raw(self.header_json()),
            "json" => Value::Raw(self.json()),
            _ => return None,
        })
    }

    /// `%{header_json}`: the last response's headers, names lower-cased, values in arrays.
    fn header_json(&self) -> String {
        let mut names: Vec<String> = Vec::new();
        for (k, _) in &self.headers {
            let k = k.to_ascii_lowercase();
            if !names.contains(&k) {
                names.push(k);
            }
        }
        let fields: Vec<String> = names
            .iter()
            .map(|n| {
                let values: Vec<String> = self
                    .headers
                    .iter()
                    .filter(|(k, _)| k.eq_ignore_ascii_case(n))
                    .map(|(_, v)| json_string(v))
                    .collect();
                format!("{}:[{}]", json_string(n), values.join(","))
            })
            .collect();
        format!("{{{}\n}}", fields.join(",\n"))
    }

    /// `%{json}`: every variable in one object, in curl's order.
    fn json(&self) -> String {
        const NAMES: &[&str] = &[
            "certs",
            "content_type",
            "errormsg",
            "exitcode",
            "filename_effective",
            "ftp_entry_path",
            "http_code",
            "http_connect",
            "http_version",
            "local_ip",
            "local_port",
            "method",
            "num_certs",
            "num_connects",
            "num_headers",
            "num_redirects",
            "proxy_ssl_verify_result",
            "redirect_url",
            "referer",
            "remote_ip",
            "remote_port",
            "response_code",
            "scheme",
            "size_download",
            "size_header",
            "size_request",
            "size_upload",
            "speed_download",
            "speed_upload",
            "ssl_verify_result",
            "time_appconnect",
            "time_connect",
            "time_namelookup",
            "time_pretransfer",
            "time_redirect",
            "time_starttransfer",
            "time_total",
            "url",
            "url_effective",
            "urlnum",
            "curl_version",
        ];
        let fields: Vec<String> = NAMES
            .iter()
            .map(|n| {
                let v = match self.var(n).expect("every json name is a variable") {
                    Value::Text(Some(s)) => json_string(&s),
                    Value::Text(None) => "null".into(),
                    Value::Num(n) => n.to_string(),
                    Value::Code(c) => c.to_string(),
                    Value::Time(t) => format!("{t:.6}"),
                    Value::Raw(r) => r,
                };
                format!("\"{n}\":{v}")
            })
            .collect();
        format!("{{{}}}", fields.join(","))
    }
}

/// A variable's value.
enum Value {
    Text(Option<String>),
    Num(u64),
    /// A status code: three digits (`000` when none).
    Code(u16),
    /// Seconds, printed with six decimals.
    Time(f64),
    Raw(String),
}

impl Value {
    fn render(self) -> String {
        match self {
            Value::Text(s) => s.unwrap_or_default(),
            Value::Num(n) => n.to_string(),
            Value::Code(c) => format!("{c:03}"),
            Value::Time(t) => format!("{t:.6}"),
            Value::Raw(r) => r,
        }
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// Where `-w` output goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sink {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// Expands `format` for `stats`; calls `emit` with each piece and where it goes.
pub fn expand(format: &str, stats: &Stats, emit: &mut dyn FnMut(Sink, &[u8])) {
    let mut sink = Sink::Stdout;
    let mut rest = format;
    let mut text = String::new();
    let flush = |text: &mut String, sink: Sink, emit: &mut dyn FnMut(Sink, &[u8])| {
        if !text.is_empty() {
            emit(sink, text.as_bytes());
            text.clear();
        }
    };
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("%%") {
            text.push('%');
            rest = after;
        } else if let Some(after) = rest.strip_prefix("%{")
            && let Some(end) = after.find('}')
        {
            let name = &after[..end];
            rest = &after[end + 1..];
            match name {
                "stdout" => {
                    flush(&mut text, sink, emit);
                    sink = Sink::Stdout;
                }
                "stderr" => {
                    flush(&mut text, sink, emit);
                    sink = Sink::Stderr;
                }
                _ => match stats.var(name) {
                    Some(v) => text.push_str(&v.render()),
                    None => {
                        flush(&mut text, sink, emit);
                        emit(
                            Sink::Stderr,
                            format!("curl: unknown --write-out variable: '{name}'\n").as_bytes(),
                        );
                    }
                },
            }
        } else if let Some(after) = rest.strip_prefix("%header{")
            && let Some(end) = after.find('}')
        {
            let name = &after[..end];
            rest = &after[end + 1..];
            let values: Vec<&str> = stats
                .headers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
                .collect();
            text.push_str(&values.join(", "));
        } else if c == '\\' && rest.len() > 1 {
            let next = rest[1..].chars().next().unwrap_or('\\');
            match next {
                'n' => text.push('\n'),
                'r' => text.push('\r'),
                't' => text.push('\t'),
                _ => {
                    text.push('\\');
                    rest = &rest[1..];
                    continue;
                }
            }
            rest = &rest[2..];
        } else {
            text.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    flush(&mut text, sink, emit);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(format: &str, stats: &Stats) -> (String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        expand(format, stats, &mut |sink, b| match sink {
            Sink::Stdout => out.extend_from_slice(b),
            Sink::Stderr => err.extend_from_slice(b),
        });
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    fn stats() -> Stats {
        Stats {
            url: "http://h.local/r".into(),
            url_effective: "http://h.local/json".into(),
            method: "GET".into(),
            http_code: 200,
            headers: vec![
                ("content-type".into(), "application/json".into()),
                ("set-cookie".into(), "a=1".into()),
                ("set-cookie".into(), "b=2".into()),
            ],
            num_redirects: 1,
            size_download: 11,
            scheme: "http".into(),
            remote_port: 80,
            num_connects: 1,
            ..Stats::default()
        }
    }

    #[test]
    fn variables_escapes_and_streams() {
        let (out, err) = run(
            "%{http_code} %{size_download} %{url_effective} %{num_redirects} %{content_type} %{scheme} %{time_total}\\n%%\\t\\q%z%{stderr}E%{stdout}O",
            &stats(),
        );
        assert_eq!(
            out,
            "200 11 http://h.local/json 1 application/json HTTP 0.000000\n%\t\\q%zO"
        );
        assert_eq!(err, "E");
    }

    #[test]
    fn no_response_is_000_and_unknown_variables_are_reported() {
        let s = Stats {
            exitcode: 6,
            errormsg: Some("Could not resolve host: x".into()),
            ..Stats::default()
        };
        let (out, err) = run("%{http_code} %{foo}|%{errormsg}|%{exitcode}", &s);
        assert_eq!(out, "000 |Could not resolve host: x|6");
        assert_eq!(err, "curl: unknown --write-out variable: 'foo'\n");
    }

    #[test]
    fn headers_and_json() {
        let (out, _) = run("%header{Set-Cookie}|%{header_json}", &stats());
        assert_eq!(
            out,
            "a=1, b=2|{\"content-type\":[\"application/json\"],\n\"set-cookie\":[\"a=1\",\"b=2\"]\n}"
        );
        let (json, _) = run("%{json}", &stats());
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["http_code"], 200);
        assert_eq!(v["errormsg"], serde_json::Value::Null);
        assert_eq!(v["url_effective"], "http://h.local/json");
    }
}
