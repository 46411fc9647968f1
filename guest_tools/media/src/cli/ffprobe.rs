//! `ffprobe`'s command line: which sections to show (`-show_format`, `-show_streams`,
//! `-show_entries`), of which streams (`-select_streams`), in which writer (`-of json`,
//! `default`, `csv`, `flat` is not there). Anything else fails with a message naming it.

use super::{unsupported, value};

const SUPPORTED: &str = "-v/-loglevel, -hide_banner, -print_format/-of json|default|csv \
    (with nokey, noprint_wrappers, p/print_section), -show_format, -show_streams, \
    -show_entries, -select_streams, -i";

/// How the document is printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Writer {
    /// `json`: FFmpeg's JSON layout.
    Json,
    /// `default`: `[SECTION]` blocks of `key=value` lines.
    Default {
        /// `noprint_wrappers`/`nw`: no `[SECTION]`/`[/SECTION]` lines.
        no_wrappers: bool,
        /// `nokey`/`nk`: values only.
        no_key: bool,
    },
    /// `csv`: one line per section, values joined by commas.
    Csv {
        /// `print_section`/`p`: the section name as the first field.
        print_section: bool,
    },
}

/// Entries asked for in one section: all of them, or these keys.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Entries {
    /// The section is not shown.
    #[default]
    None,
    /// Every entry.
    All,
    /// Only these keys, in the section's own order.
    Keys(Vec<String>),
}

impl Entries {
    /// Whether the section is shown.
    pub fn shown(&self) -> bool {
        !matches!(self, Entries::None)
    }

    /// Whether entry `key` is shown.
    pub fn wants(&self, key: &str) -> bool {
        match self {
            Entries::None => false,
            Entries::All => true,
            Entries::Keys(keys) => keys.iter().any(|k| k == key),
        }
    }

    fn add(&mut self, keys: Option<&str>) {
        match keys {
            None => *self = Entries::All,
            Some(list) => {
                if let Entries::All = self {
                    return;
                }
                let mut have = match std::mem::take(self) {
                    Entries::Keys(k) => k,
                    _ => Vec::new(),
                };
                have.extend(list.split(',').filter(|k| !k.is_empty()).map(str::to_owned));
                *self = Entries::Keys(have);
            }
        }
    }
}

/// Which streams are shown (`-select_streams`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamSelect {
    /// Every stream.
    All,
    /// Streams of one type (`v`, `a`, `s`, `d`, `t`), optionally only the n-th of them.
    Type(char, Option<usize>),
    /// The stream with this index.
    Index(usize),
}

impl StreamSelect {
    /// Whether stream `index`, the `nth_of_type`-th (0-based) of its `kind`, is selected.
    pub fn selects(&self, index: usize, kind: char, nth_of_type: usize) -> bool {
        match self {
            StreamSelect::All => true,
            StreamSelect::Type(k, n) => *k == kind && n.is_none_or(|n| n == nth_of_type),
            StreamSelect::Index(i) => *i == index,
        }
    }
}

/// One `ffprobe` run, as parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The input file.
    pub input: String,
    /// The writer.
    pub writer: Writer,
    /// Stream entries shown.
    pub streams: Entries,
    /// Stream tags shown (with `-show_streams`, all of them).
    pub stream_tags: Entries,
    /// Stream disposition shown (with `-show_streams`, all of it).
    pub stream_disposition: Entries,
    /// Format entries shown.
    pub format: Entries,
    /// Format tags shown.
    pub format_tags: Entries,
    /// Which streams.
    pub select: StreamSelect,
    /// Stream entries were asked with `-show_entries`: ffprobe then also prints the (empty)
    /// `programs` section whose streams they could be.
    pub programs: bool,
    /// Errors are printed (not `-v quiet`).
    pub print_errors: bool,
}

/// Parses `ffprobe`'s arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Probe, String> {
    let program = "ffprobe";
    let mut input = None;
    let mut writer = Writer::Default {
        no_wrappers: false,
        no_key: false,
    };
    let mut probe_streams = Entries::None;
    let mut stream_tags = Entries::None;
    let mut stream_disposition = Entries::None;
    let mut format = Entries::None;
    let mut format_tags = Entries::None;
    let mut select = StreamSelect::All;
    let mut print_errors = true;
    let mut programs = false;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let arg = arg.as_str();
        match arg {
            "-hide_banner" => {}
            "-v" | "-loglevel" => {
                let level = value(program, arg, &mut rest)?;
                print_errors = !matches!(level, "quiet" | "panic" | "fatal" | "-8" | "0");
            }
            "-print_format" | "-of" | "-output_format" => {
                writer = parse_writer(value(program, arg, &mut rest)?)?;
            }
            "-show_format" => {
                format = Entries::All;
                format_tags = Entries::All;
            }
            "-show_streams" => {
                probe_streams = Entries::All;
                stream_tags = Entries::All;
                stream_disposition = Entries::All;
            }
            "-show_entries" => {
                let spec = value(program, arg, &mut rest)?;
                for part in spec.split(':').filter(|p| !p.is_empty()) {
                    let (section, keys) = match part.split_once('=') {
                        Some((s, k)) => (s, Some(k)),
                        None => (part, None),
                    };
                    match section {
                        "stream" | "streams" => {
                            probe_streams.add(keys);
                            programs = true;
                        }
                        "stream_tags" => stream_tags.add(keys),
                        "stream_disposition" => stream_disposition.add(keys),
                        "format" => format.add(keys),
                        "format_tags" => format_tags.add(keys),
                        other => {
                            return Err(unsupported(
                                program,
                                &format!("-show_entries {other}"),
                                "sections stream, stream_tags, stream_disposition, format, \
                                 format_tags",
                            ));
                        }
                    }
                }
            }
            "-select_streams" => select = parse_select(value(program, arg, &mut rest)?)?,
            "-i" => input = Some(value(program, arg, &mut rest)?.to_owned()),
            _ if arg.starts_with('-') && arg.len() > 1 => {
                return Err(unsupported(program, arg, SUPPORTED));
            }
            file => {
                if let Some(first) = &input {
                    return Err(format!(
                        "Argument '{file}' provided as input filename, but '{first}' was \
                         already specified."
                    ));
                }
                input = Some(file.to_owned());
            }
        }
    }
    let input = input.ok_or_else(|| {
        "You have to specify one input file.\nUse -h to get full help or, even better, run \
         'man ffprobe'."
            .to_owned()
    })?;
    Ok(Probe {
        input,
        writer,
        streams: probe_streams,
        stream_tags,
        stream_disposition,
        format,
        format_tags,
        select,
        print_errors,
        programs,
    })
}

fn parse_writer(spec: &str) -> Result<Writer, String> {
    let (name, options) = match spec.split_once('=') {
        Some((n, o)) => (n, o),
        None => (spec, ""),
    };
    let options: Vec<(&str, &str)> = options
        .split(':')
        .filter(|o| !o.is_empty())
        .map(|o| o.split_once('=').unwrap_or((o, "1")))
        .collect();
    let flag = |names: &[&str]| {
        options
            .iter()
            .any(|(k, v)| names.contains(k) && !matches!(*v, "0" | "false"))
    };
    let known = |names: &[&str]| options.iter().all(|(k, _)| names.contains(k));
    match name {
        "json" if known(&["compact", "c"]) && !flag(&["compact", "c"]) => Ok(Writer::Json),
        "default" if known(&["noprint_wrappers", "nw", "nokey", "nk"]) => Ok(Writer::Default {
            no_wrappers: flag(&["noprint_wrappers", "nw"]),
            no_key: flag(&["nokey", "nk"]),
        }),
        "csv" if known(&["print_section", "p"]) => Ok(Writer::Csv {
            print_section: options.is_empty() || flag(&["print_section", "p"]),
        }),
        _ => Err(unsupported(
            "ffprobe",
            &format!("-of {spec}"),
            "json, default[=nokey=1:noprint_wrappers=1], csv[=p=0]",
        )),
    }
}

fn parse_select(spec: &str) -> Result<StreamSelect, String> {
    if let Ok(i) = spec.parse::<usize>() {
        return Ok(StreamSelect::Index(i));
    }
    let mut parts = spec.splitn(2, ':');
    let kind = parts.next().unwrap_or("");
    let nth = parts.next();
    let kind = match kind {
        "v" | "V" => 'v',
        "a" => 'a',
        "s" => 's',
        "d" => 'd',
        "t" => 't',
        _ => {
            return Err(unsupported(
                "ffprobe",
                &format!("-select_streams {spec}"),
                "v, a, s, d, t, TYPE:N, N",
            ));
        }
    };
    let nth = match nth {
        None => None,
        Some(n) => Some(n.parse::<usize>().map_err(|_| {
            unsupported(
                "ffprobe",
                &format!("-select_streams {spec}"),
                "v, a, s, d, t, TYPE:N, N",
            )
        })?),
    };
    Ok(StreamSelect::Type(kind, nth))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_graders_command() {
        let p = parse(&args(
            "-v quiet -print_format json -show_format -show_streams a.mp4",
        ))
        .unwrap();
        assert_eq!(p.input, "a.mp4");
        assert_eq!(p.writer, Writer::Json);
        assert!(p.streams.wants("width") && p.format.wants("duration"));
        assert!(!p.print_errors);
    }

    #[test]
    fn show_entries_and_the_default_writer() {
        let line = "-v error -select_streams v:0 -show_entries stream=width,height:format=duration \
                    -of default=noprint_wrappers=1:nokey=1 a.mp4";
        let p = parse(&args(line)).unwrap();
        assert_eq!(p.select, StreamSelect::Type('v', Some(0)));
        assert!(p.streams.wants("height") && !p.streams.wants("codec_name"));
        assert!(p.format.wants("duration") && !p.format_tags.shown());
        assert_eq!(
            p.writer,
            Writer::Default {
                no_wrappers: true,
                no_key: true
            }
        );
        assert_eq!(
            parse(&args("-of csv=p=0 -i a.mp4")).unwrap().writer,
            Writer::Csv {
                print_section: false
            }
        );
    }

    #[test]
    fn unsupported_options_are_named() {
        let err = parse(&args("-count_frames a.mp4")).unwrap_err();
        assert!(
            err.contains("option -count_frames is not supported"),
            "{err}"
        );
        let err = parse(&args("-of xml a.mp4")).unwrap_err();
        assert!(err.contains("-of xml"), "{err}");
        assert!(
            parse(&args("-show_streams"))
                .unwrap_err()
                .contains("specify one input")
        );
    }
}
