//! FFmpeg's writers for the probe document: `json`, `default` and `csv`, each printing what
//! the command line asked for ([`crate::cli::ffprobe::Probe`]).

use super::doc::{Doc, Value};
use crate::cli::ffprobe::{Entries, Probe, Writer};

/// A section about to be printed: its name, entries, and sub-sections.
struct Section<'a> {
    name: &'static str,
    entries: Vec<(&'a str, &'a Value)>,
    disposition: Vec<(&'a str, Value)>,
    tags: Vec<(&'a str, Value)>,
}

fn sections<'a>(doc: &'a Doc, probe: &Probe) -> (Option<Vec<Section<'a>>>, Option<Section<'a>>) {
    let pick = |entries: &'a [(String, Value)], want: &Entries| -> Vec<(&'a str, &'a Value)> {
        entries
            .iter()
            .filter(|(k, _)| want.wants(k))
            .map(|(k, v)| (k.as_str(), v))
            .collect()
    };
    let tags = |tags: &'a [(String, String)], want: &Entries| -> Vec<(&'a str, Value)> {
        tags.iter()
            .filter(|(k, _)| want.wants(k))
            .map(|(k, v)| (k.as_str(), Value::Str(v.clone())))
            .collect()
    };
    let any_stream =
        probe.streams.shown() || probe.stream_tags.shown() || probe.stream_disposition.shown();
    let streams = any_stream.then(|| {
        doc.streams
            .iter()
            .filter(|s| probe.select.selects(s.index, s.kind, s.nth_of_kind))
            .map(|s| Section {
                name: "stream",
                entries: pick(&s.entries, &probe.streams),
                disposition: s
                    .disposition
                    .iter()
                    .filter(|(k, _)| probe.stream_disposition.wants(k))
                    .map(|(k, v)| (k.as_str(), Value::Int(*v)))
                    .collect(),
                tags: tags(&s.tags, &probe.stream_tags),
            })
            .collect()
    });
    let format = (probe.format.shown() || probe.format_tags.shown()).then(|| Section {
        name: "format",
        entries: pick(&doc.format.entries, &probe.format),
        disposition: Vec::new(),
        tags: tags(&doc.format.tags, &probe.format_tags),
    });
    (streams, format)
}

/// The document as `probe`'s writer prints it.
pub fn render(doc: &Doc, probe: &Probe) -> String {
    let (streams, format) = sections(doc, probe);
    match &probe.writer {
        Writer::Json => json(probe.programs, streams.as_deref(), format.as_ref()),
        Writer::Default {
            no_wrappers,
            no_key,
        } => {
            let mut out = String::new();
            for s in streams.iter().flatten().chain(format.as_ref()) {
                flat(&mut out, s, *no_wrappers, *no_key);
            }
            out
        }
        Writer::Csv { print_section } => {
            let mut out = String::new();
            for s in streams.iter().flatten().chain(format.as_ref()) {
                let mut fields: Vec<String> = Vec::new();
                if *print_section {
                    fields.push(s.name.into());
                }
                fields.extend(s.entries.iter().map(|(_, v)| csv_field(&v.text())));
                fields.extend(
                    s.disposition
                        .iter()
                        .chain(&s.tags)
                        .map(|(_, v)| csv_field(&v.text())),
                );
                out.push_str(&fields.join(","));
                out.push('\n');
            }
            out
        }
    }
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

fn flat(out: &mut String, s: &Section<'_>, no_wrappers: bool, no_key: bool) {
    let upper = s.name.to_ascii_uppercase();
    if !no_wrappers {
        out.push_str(&format!("[{upper}]\n"));
    }
    let mut line = |prefix: &str, key: &str, value: &Value| {
        if !no_key {
            out.push_str(prefix);
            out.push_str(key);
            out.push('=');
        }
        out.push_str(&value.text());
        out.push('\n');
    };
    for (k, v) in &s.entries {
        line("", k, v);
    }
    for (k, v) in &s.disposition {
        line("DISPOSITION:", k, v);
    }
    for (k, v) in &s.tags {
        line("TAG:", k, v);
    }
    if !no_wrappers {
        out.push_str(&format!("[/{upper}]\n"));
    }
}

fn json(programs: bool, streams: Option<&[Section<'_>]>, format: Option<&Section<'_>>) -> String {
    let mut parts = Vec::new();
    if programs {
        // The files probed here have no programs: ffprobe prints the section empty.
        parts.push("    \"programs\": [\n\n    ]".to_owned());
    }
    if let Some(streams) = streams {
        let items: Vec<String> = streams.iter().map(|s| json_object(s, 2)).collect();
        let body = if items.is_empty() {
            "\n".to_owned()
        } else {
            format!("{}\n", items.join(",\n"))
        };
        parts.push(format!("    \"streams\": [\n{body}    ]"));
    }
    if let Some(format) = format {
        parts.push(format!(
            "    \"format\": {}",
            json_object(format, 1).trim_start()
        ));
    }
    format!("{{\n{}\n}}\n", parts.join(",\n"))
}

fn json_object(s: &Section<'_>, depth: usize) -> String {
    let pad = "    ".repeat(depth);
    let inner = "    ".repeat(depth + 1);
    let mut lines: Vec<String> = s
        .entries
        .iter()
        .filter_map(|(k, v)| json_value(v).map(|v| format!("{inner}{}: {v}", json_string(k))))
        .collect();
    for (name, list) in [("disposition", &s.disposition), ("tags", &s.tags)] {
        if list.is_empty() {
            continue;
        }
        let deeper = "    ".repeat(depth + 2);
        let body: Vec<String> = list
            .iter()
            .filter_map(|(k, v)| json_value(v).map(|v| format!("{deeper}{}: {v}", json_string(k))))
            .collect();
        lines.push(format!(
            "{inner}\"{name}\": {{\n{}\n{inner}}}",
            body.join(",\n")
        ));
    }
    format!("{pad}{{\n{}\n{pad}}}", lines.join(",\n"))
}

fn json_value(v: &Value) -> Option<String> {
    match v {
        Value::Int(i) => Some(i.to_string()),
        Value::Str(s) => Some(json_string(s)),
        Value::NotAvailable => None,
    }
}

/// `text` as ffprobe's JSON writer quotes it.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::ffprobe::parse;
    use crate::probe::doc::{Format, Stream};

    fn doc() -> Doc {
        Doc {
            streams: vec![Stream {
                index: 0,
                kind: 'v',
                nth_of_kind: 0,
                entries: vec![
                    ("index".into(), Value::Int(0)),
                    ("codec_name".into(), Value::Str("vp9".into())),
                    ("width".into(), Value::Int(320)),
                    ("duration".into(), Value::NotAvailable),
                ],
                disposition: vec![("default".into(), 1)],
                tags: vec![("DURATION".into(), "00:00:02.000000000".into())],
            }],
            format: Format {
                entries: vec![("duration".into(), Value::Str("2.000000".into()))],
                tags: vec![("ENCODER".into(), "Lavf \"x\"".into())],
            },
        }
    }

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn json_as_ffprobe_prints_it() {
        let probe = parse(&args(
            "-v quiet -print_format json -show_format -show_streams a",
        ))
        .unwrap();
        let expected = r#"{
    "streams": [
        {
            "index": 0,
            "codec_name": "vp9",
            "width": 320,
            "disposition": {
                "default": 1
            },
            "tags": {
                "DURATION": "00:00:02.000000000"
            }
        }
    ],
    "format": {
        "duration": "2.000000",
        "tags": {
            "ENCODER": "Lavf \"x\""
        }
    }
}
"#;
        assert_eq!(render(&doc(), &probe), expected);
    }

    #[test]
    fn default_and_csv_writers() {
        let probe = parse(&args(
            "-show_entries stream=width,duration -of default=nw=1 a",
        ))
        .unwrap();
        assert_eq!(render(&doc(), &probe), "width=320\nduration=N/A\n");
        let probe = parse(&args(
            "-show_entries format=duration -of default=nw=1:nk=1 a",
        ))
        .unwrap();
        assert_eq!(render(&doc(), &probe), "2.000000\n");
        let probe = parse(&args("-show_entries stream=codec_name,width -of csv=p=0 a")).unwrap();
        assert_eq!(render(&doc(), &probe), "vp9,320\n");
        let probe = parse(&args("-show_streams -select_streams a a")).unwrap();
        assert_eq!(render(&doc(), &probe), "");
        let probe = parse(&args("-show_entries stream=width -of json a")).unwrap();
        assert_eq!(
            render(&doc(), &probe),
            "{\n    \"programs\": [\n\n    ],\n    \"streams\": [\n        {\n            \"width\": 320\n        }\n    ]\n}\n"
        );
    }
}
