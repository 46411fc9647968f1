//! The media tool as a WASI command: `ReadMedia` (no arguments), `ffprobe ...`, `ffmpeg ...`
//! or `readmedia JSON` (see the library's documentation).

#[cfg(target_family = "wasm")]
fn main() {
    use std::io::Write as _;

    use clawrun_tool_media::{commands, ff, limits, readmedia};

    ff::init(limits::MAX_ALLOC);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cwd = std::env::var("PWD").unwrap_or_else(|_| "/".into());
    let ran = match args.first().map(String::as_str) {
        Some("ffprobe") => commands::ffprobe::run(&args[1..], &cwd),
        Some("ffmpeg") => commands::ffmpeg::run(&args[1..], &cwd),
        Some("readmedia") => readmedia_cli(args.get(1).map_or("", String::as_str), &cwd),
        Some(other) => commands::Ran {
            stderr: format!("media: unknown command '{other}' (ffprobe, ffmpeg, readmedia)\n"),
            status: 2,
            ..commands::Ran::default()
        },
        None => {
            clawrun_tool_protocol::run("ReadMedia", readmedia::run::read_media);
            return;
        }
    };
    let _ = std::io::stdout().write_all(ran.stdout.as_bytes());
    let _ = std::io::stderr().write_all(ran.stderr.as_bytes());
    std::process::exit(ran.status);
}

/// `readmedia JSON`: the server's answer, frames as PNG in base64.
#[cfg(target_family = "wasm")]
fn readmedia_cli(request: &str, cwd: &str) -> clawrun_tool_media::commands::Ran {
    use clawrun_tool_media::pyjson::Json;
    use clawrun_tool_media::readmedia::{Answer, Args, Keep, run};

    let mut ran = clawrun_tool_media::commands::Ran::default();
    let args: Args = match serde_json::from_str(request) {
        Ok(a) => a,
        Err(e) => {
            ran.stderr = format!("readmedia: bad request: {e}\n");
            ran.status = 2;
            return ran;
        }
    };
    let path = clawrun_tool_media::commands::resolve(cwd, &args.path);
    match run::answer(&args, &path, Keep::Png) {
        Ok(Answer { mut body, images }) => {
            for (key, value) in &mut body {
                if let (true, Json::List(frames)) = (key == "frames", value) {
                    for (frame, png) in frames.iter_mut().zip(&images) {
                        if let Json::Object(entries) = frame {
                            let b64 = clawrun_tool_protocol::image::base64(png);
                            entries.insert(2, ("image_b64".into(), Json::Str(b64)));
                        }
                    }
                }
            }
            ran.stdout = Json::Object(body).dumps();
        }
        Err(e) => {
            ran.stdout = Json::Object(vec![("error".into(), Json::Str(e))]).dumps();
            ran.status = 1;
        }
    }
    ran
}

#[cfg(not(target_family = "wasm"))]
fn main() {
    eprintln!("media: this program runs as a WASI component (build it for wasm32-wasip2)");
    std::process::exit(2);
}
