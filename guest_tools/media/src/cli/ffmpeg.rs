//! The `ffmpeg` subset: one video input, still images out (`-ss T -i f -frames:v 1 out.png`,
//! `-vf fps=...,scale=...,crop=...`, `-t`/`-to`, image sequences `frame_%04d.jpg`).
//!
//! Options keep FFmpeg's placement rules: those before `-i` apply to the input (`-ss` seeks,
//! `-t`/`-to` limit what is read), those after it to the output. Anything else fails with a
//! message naming the option, never silently.

use super::{unsupported, value};
use crate::sync::Mode;
use crate::time::parse_duration;

const SUPPORTED: &str = "-y, -n, -hide_banner, -nostdin, -nostats, -v/-loglevel, -ss, -t, -to, \
    -i, -vf/-filter:v, -frames:v/-vframes, -r (output), -vsync/-fps_mode, -q:v/-qscale:v, \
    -update, -f image2, -an, -sn, -dn, \
    -c:v/-vcodec png|mjpeg, and one .png/.jpg/.jpeg output (a %d pattern for sequences)";

/// Still-image formats the subset writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    /// PNG (FFmpeg's `png` encoder: RGB24).
    Png,
    /// JPEG (FFmpeg's `mjpeg` encoder).
    Jpeg,
}

impl ImageKind {
    /// The format of an output named `path`, by its extension.
    pub fn of_path(path: &str) -> Option<ImageKind> {
        let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
        match ext.as_str() {
            "png" => Some(ImageKind::Png),
            "jpg" | "jpeg" => Some(ImageKind::Jpeg),
            _ => None,
        }
    }
}

/// Time limits on one side (input or output) of the pipeline, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    /// `-ss`: where to start.
    pub start: Option<i64>,
    /// `-t`, or `-to` minus the start: how much to keep.
    pub duration: Option<i64>,
}

/// One `ffmpeg` run, as parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// `-y` given: overwrite outputs without asking.
    pub overwrite: bool,
    /// The input file.
    pub input: String,
    /// The input's window (`-ss` seeks the file).
    pub input_window: Window,
    /// The output's window (frames outside are dropped after filtering).
    pub output_window: Window,
    /// The `-vf` filter chain (the last one given).
    pub filters: Option<String>,
    /// `-frames:v`: the most frames written.
    pub max_frames: Option<u64>,
    /// `-q:v`: JPEG quality scale (2 best .. 31 worst).
    pub quality: Option<u32>,
    /// `-update 1`: rewrite the one output file for each frame.
    pub update: bool,
    /// The output file name (may hold a `%d` pattern).
    pub output: String,
    /// The output's image format.
    pub kind: ImageKind,
    /// `-r` after the input: the output frame rate, as written (FFmpeg parses it).
    pub rate: Option<String>,
    /// `-vsync`/`-fps_mode` (automatic when `None`).
    pub sync: Option<Mode>,
    /// Warnings FFmpeg prints for this command line (a repeated `-vf`, ...).
    pub warnings: Vec<String>,
}

#[derive(Default)]
struct Side {
    start: Option<i64>,
    duration: Option<i64>,
    to: Option<i64>,
}

impl Side {
    fn window(self, warnings: &mut Vec<String>) -> Result<Window, String> {
        let duration = match (self.duration, self.to) {
            (Some(d), Some(_)) => {
                warnings.push("-t and -to cannot be used together; using -t.".into());
                Some(d)
            }
            (Some(d), None) => Some(d),
            (None, Some(to)) => {
                let start = self.start.unwrap_or(0);
                if to <= start {
                    return Err("-to value smaller than -ss; aborting.".into());
                }
                Some(to - start)
            }
            (None, None) => None,
        };
        Ok(Window {
            start: self.start,
            duration,
        })
    }
}

/// Parses `ffmpeg`'s arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Job, String> {
    let program = "ffmpeg";
    let mut overwrite = false;
    let mut input: Option<String> = None;
    let mut input_side = Side::default();
    let mut output_side = Side::default();
    let mut filters: Option<String> = None;
    let mut max_frames = None;
    let mut quality = None;
    let mut update = false;
    let mut codec: Option<ImageKind> = None;
    let mut output: Option<String> = None;
    let mut warnings = Vec::new();
    let mut rate = None;
    let mut sync = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let arg = arg.as_str();
        let side = if input.is_some() {
            &mut output_side
        } else {
            &mut input_side
        };
        match arg {
            "-y" => overwrite = true,
            "-n" => overwrite = false,
            "-hide_banner" | "-nostdin" | "-nostats" | "-stats" | "-an" | "-sn" | "-dn" => {}
            "-v" | "-loglevel" => {
                value(program, arg, &mut rest)?;
            }
            "-ss" => side.start = Some(parse_duration(arg, value(program, arg, &mut rest)?)?),
            "-t" => side.duration = Some(parse_duration(arg, value(program, arg, &mut rest)?)?),
            "-to" => side.to = Some(parse_duration(arg, value(program, arg, &mut rest)?)?),
            "-i" => {
                let file = value(program, arg, &mut rest)?;
                if input.is_some() {
                    return Err(format!(
                        "{program}: a second input (-i {file}) is not supported by clawrun's \
                         {program}: one input per command"
                    ));
                }
                input = Some(file.to_owned());
            }
            _ if input.is_none() && !arg.starts_with('-') => {
                return Err(format!(
                    "{program}: output file {arg} given before any input (-i FILE comes first)"
                ));
            }
            "-vf" | "-filter:v" | "-filter" => {
                let chain = value(program, arg, &mut rest)?;
                if let Some(previous) = filters.replace(chain.to_owned()) {
                    warnings.push(format!(
                        "Multiple -filter/-af/-vf options specified for stream 0, only the last \
                         option '-filter:v {chain}' will be used (dropped: {previous})."
                    ));
                }
            }
            "-frames:v" | "-vframes" | "-frames" => {
                let n = value(program, arg, &mut rest)?;
                let n: i64 = n
                    .parse()
                    .map_err(|_| format!("{program}: invalid value '{n}' for option {arg}"))?;
                max_frames = Some(u64::try_from(n).unwrap_or(0));
            }
            "-q:v" | "-qscale:v" | "-q" | "-qscale" => {
                let q = value(program, arg, &mut rest)?;
                let q: f64 = q
                    .parse()
                    .map_err(|_| format!("{program}: invalid value '{q}' for option {arg}"))?;
                quality = Some(q.clamp(1.0, 31.0) as u32);
            }
            "-r" | "-r:v" if input.is_some() => {
                rate = Some(value(program, arg, &mut rest)?.to_owned())
            }
            "-vsync" | "-fps_mode" | "-fps_mode:v" => {
                sync = Mode::parse(value(program, arg, &mut rest)?)?
            }
            "-update" => {
                let v = value(program, arg, &mut rest)?;
                update = !matches!(v, "0" | "false");
            }
            "-f" => {
                let format = value(program, arg, &mut rest)?;
                if format != "image2" {
                    return Err(unsupported(program, &format!("-f {format}"), SUPPORTED));
                }
            }
            "-c:v" | "-vcodec" | "-codec:v" => {
                let name = value(program, arg, &mut rest)?;
                codec = Some(match name {
                    "png" => ImageKind::Png,
                    "mjpeg" => ImageKind::Jpeg,
                    _ => {
                        return Err(unsupported(program, &format!("{arg} {name}"), SUPPORTED));
                    }
                });
            }
            _ if arg.starts_with('-') && arg.len() > 1 => {
                return Err(unsupported(program, arg, SUPPORTED));
            }
            file => {
                if let Some(first) = &output {
                    return Err(format!(
                        "{program}: a second output ({file} after {first}) is not supported by \
                         clawrun's {program}: one output per command"
                    ));
                }
                output = Some(file.to_owned());
            }
        }
    }
    let Some(input) = input else {
        return Err(format!("{program}: no input given (use -i FILE)"));
    };
    let Some(output) = output else {
        return Err("At least one output file must be specified".into());
    };
    let kind = match (codec, ImageKind::of_path(&output)) {
        (Some(kind), _) | (None, Some(kind)) => kind,
        (None, None) => {
            return Err(format!(
                "{program}: writing {output} is not supported by clawrun's {program}: it writes \
                 still images only (.png, .jpg, .jpeg); video and audio outputs (cuts, \
                 concatenation, re-encoding) are not available yet"
            ));
        }
    };
    let input_window = input_side.window(&mut warnings)?;
    let output_window = output_side.window(&mut warnings)?;
    for (name, d) in [
        ("-t", input_window.duration),
        ("-t", output_window.duration),
    ] {
        if d.is_some_and(|d| d < 0) {
            return Err(format!(
                "{program}: invalid {name} {}: a duration is never negative",
                crate::time::seconds_text(d.unwrap_or(0))
            ));
        }
    }
    Ok(Job {
        overwrite,
        input,
        input_window,
        output_window,
        filters,
        max_frames,
        quality,
        update,
        output,
        kind,
        rate,
        sync,
        warnings,
    })
}

/// The file name of frame `number` (1-based) for output `pattern`: FFmpeg's image2 rule
/// (`%d`, `%0Nd`, `%%`); `None` when the name has no number pattern.
pub fn frame_name(pattern: &str, number: u64) -> Option<String> {
    let mut out = String::new();
    let mut found = false;
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            out.push('%');
            continue;
        }
        let mut width = String::new();
        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            width.push(*d);
            chars.next();
        }
        if chars.next() != Some('d') || found {
            return None;
        }
        let width: usize = if width.is_empty() {
            0
        } else {
            width.parse().ok()?
        };
        out.push_str(&format!("{number:0width$}"));
        found = true;
    }
    found.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn a_frame_grab() {
        let job = parse(&args("-y -ss 5 -i in.mp4 -frames:v 1 out.png")).unwrap();
        assert!(job.overwrite);
        assert_eq!(job.input, "in.mp4");
        assert_eq!(job.input_window.start, Some(5_000_000));
        assert_eq!(job.output_window, Window::default());
        assert_eq!(job.max_frames, Some(1));
        assert_eq!(job.kind, ImageKind::Png);
    }

    #[test]
    fn claw_evals_extraction_command() {
        let line = "-y -ss 2.0 -i v.webm -t 10.0 -vf fps=1.0 -vf fps=1.0,scale=640:-1 \
                    -frames:v 8 /tmp/frame_%04d.jpg";
        let job = parse(&args(line)).unwrap();
        assert_eq!(job.input_window.start, Some(2_000_000));
        assert_eq!(job.output_window.duration, Some(10_000_000));
        assert_eq!(job.filters.as_deref(), Some("fps=1.0,scale=640:-1"));
        assert_eq!(job.warnings.len(), 1);
        assert_eq!(job.kind, ImageKind::Jpeg);
    }

    #[test]
    fn to_becomes_a_duration_after_the_start() {
        let job = parse(&args("-i a.mp4 -ss 3 -to 5 f%d.png")).unwrap();
        assert_eq!(job.output_window.start, Some(3_000_000));
        assert_eq!(job.output_window.duration, Some(2_000_000));
        let err = parse(&args("-ss 5 -to 3 -i a.mp4 f%d.png")).unwrap_err();
        assert!(err.contains("-to value smaller than -ss"), "{err}");
    }

    #[test]
    fn unsupported_options_are_named() {
        let err = parse(&args("-i a.mp4 -c copy out.png")).unwrap_err();
        assert!(err.contains("option -c is not supported"), "{err}");
        let err = parse(&args("-i a.mp4 -filter_complex x out.png")).unwrap_err();
        assert!(err.contains("-filter_complex"), "{err}");
        let err = parse(&args("-i a.mp4 -c:v libx264 out.mp4")).unwrap_err();
        assert!(err.contains("-c:v libx264"), "{err}");
        let err = parse(&args("-i a.mp4 cut.mp4")).unwrap_err();
        assert!(err.contains("still images only"), "{err}");
        let err = parse(&args("-i a.mp4 -i b.mp4 out.png")).unwrap_err();
        assert!(err.contains("second input"), "{err}");
        let err = parse(&args("-r 5 -i a.mp4 out%d.png")).unwrap_err();
        assert!(err.contains("option -r is not supported"), "{err}");
        let job = parse(&args("-i a.mp4 -r 1 -vsync vfr out%d.png")).unwrap();
        assert_eq!(
            (job.rate.as_deref(), job.sync),
            (Some("1"), Some(Mode::Vfr))
        );
        let err = parse(&args("-i a.mp4 -t -2 out.png")).unwrap_err();
        assert!(err.contains("never negative"), "{err}");
    }

    #[test]
    fn image2_patterns() {
        assert_eq!(frame_name("f_%04d.jpg", 7).as_deref(), Some("f_0007.jpg"));
        assert_eq!(frame_name("f%d.png", 12).as_deref(), Some("f12.png"));
        assert_eq!(frame_name("100%%_%d.png", 1).as_deref(), Some("100%_1.png"));
        assert_eq!(frame_name("out.png", 1), None);
        assert_eq!(frame_name("a%d%d.png", 1), None);
    }
}
