//! Judge-time recordings: Claw-Eval's `take_recording.py` (the same script in every browser
//! task's `fixtures/`; a copy in `claw_eval/take_recording.py`, MIT like the rest of
//! Claw-Eval, `third_party/claw-eval/LICENSE`) runs Playwright in the task's
//! container; in clawrun the Judge phase recognises its command line and does the same on the
//! host with `clawrun-browser`, writing `frame_000.png`, ... into the trial's VFS and printing
//! the script's own JSON line.
//!
//! Recognised only when the command is `python`/`python3` on a file whose bytes are exactly
//! that script (so a task that ships another script, or an agent that replaced it, runs it
//! through Bash as written) and the line has no shell syntax beyond the arguments. A host door
//! rather than a Python stand-in: the script imports Playwright's sync API, which would need
//! a Python module speaking to the host for each call; recognising the command keeps the
//! grader's inputs identical with one function.

use std::time::Duration;

use anyhow::Result;
use clawrun_browser::{BrowserError, Capture};
use clawrun_sandbox::tools::{InstallationError, WORKSPACE};
use clawrun_vfs::Vfs;

use super::page_web::TrialWeb;
use super::setup::Harness;
use clawrun_web::WebSession;

/// Claw-Eval's script, byte for byte.
const SCRIPT: &[u8] = include_bytes!("claw_eval/take_recording.py");

/// A recognised recording: the script's arguments, with its defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// The page.
    pub url: String,
    /// `--frames`.
    pub frames: u32,
    /// `--interval`, seconds.
    pub interval: f64,
    /// `--width`, `--height`.
    pub size: (u32, u32),
    /// `--output-dir`, absolute.
    pub output_dir: String,
    /// `--wait-before`, seconds.
    pub wait_before: f64,
    /// `--auto-click`.
    pub auto_click: Option<String>,
}

/// What a recognised command printed and its exit status.
pub struct Recorded {
    /// Its stdout.
    pub output: String,
    /// Its exit status.
    pub exit_code: i32,
}

/// The recording `command` asks for, when it runs Claw-Eval's script as it is in `vfs`;
/// `Some(Err(usage))` for the script with arguments its parser refuses.
pub fn recognise(command: &str, vfs: &Vfs) -> Option<Result<Recording, String>> {
    if command.contains(['|', '&', ';', '<', '>', '$', '`', '\n']) {
        return None;
    }
    let argv = shlex::split(command)?;
    let (program, rest) = argv.split_first()?;
    if !matches!(
        program.as_str(),
        "python" | "python3" | "/usr/bin/python3" | "/usr/bin/python"
    ) {
        return None;
    }
    let (script, args) = rest.split_first()?;
    let path = absolute(script);
    if vfs.read_file(&path).ok()?.as_slice() != SCRIPT {
        return None;
    }
    Some(parse_args(args))
}

/// `path` against /workspace when relative.
fn absolute(path: &str) -> String {
    if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{WORKSPACE}/{path}")
    }
}

/// The script's `argparse` over `args`.
fn parse_args(args: &[String]) -> Result<Recording, String> {
    let mut r = Recording {
        url: "file:///workspace/output.html".into(),
        frames: 10,
        interval: 0.5,
        size: (1080, 720),
        output_dir: "/workspace/grading_frames/".into(),
        wait_before: 2.0,
        auto_click: None,
    };
    let mut positional = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if !arg.starts_with("--") {
            if positional {
                return Err(format!("unrecognized arguments: {arg}"));
            }
            positional = true;
            r.url = arg.clone();
            continue;
        }
        let (name, value) = match arg.split_once('=') {
            Some((n, v)) => (n.to_string(), v.to_string()),
            None => {
                let v = args
                    .get(i)
                    .ok_or(format!("argument {arg}: expected one argument"))?;
                i += 1;
                (arg.clone(), v.clone())
            }
        };
        let int = |v: &str| {
            v.parse::<i64>()
                .map_err(|_| format!("argument {name}: invalid int value: '{v}'"))
        };
        let float = |v: &str| {
            v.parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .ok_or(format!("argument {name}: invalid float value: '{v}'"))
        };
        match name.as_str() {
            "--frames" => r.frames = u32::try_from(int(&value)?.max(0)).unwrap_or(u32::MAX),
            "--interval" => r.interval = float(&value)?,
            "--width" => r.size.0 = u32::try_from(int(&value)?).unwrap_or(0),
            "--height" => r.size.1 = u32::try_from(int(&value)?).unwrap_or(0),
            "--output-dir" => r.output_dir = absolute(&value),
            "--wait-before" => r.wait_before = float(&value)?,
            "--auto-click" => r.auto_click = Some(value),
            _ => return Err(format!("unrecognized arguments: {arg}")),
        }
    }
    Ok(r)
}

/// The script's failure line, as it prints it.
fn failed(message: &str) -> Recorded {
    let mut o = clawrun_services::json::Obj::new();
    o.push("ok", false);
    o.push("error", message);
    Recorded {
        output: clawrun_services::json::to_python(&clawrun_services::json::Json::Object(o)) + "\n",
        exit_code: 1,
    }
}

/// Runs `recording` over `vfs` (frames written into it; the page's `http(s)` through `web`)
/// with the page's clock at `now`;
/// `Err` only when the browser itself failed.
pub fn run(
    harness: &Harness,
    web: &WebSession,
    vfs: &mut Vfs,
    recording: &Result<Recording, String>,
    now: Duration,
) -> Result<Recorded> {
    let r = match recording {
        Ok(r) => r,
        Err(usage) => {
            return Ok(Recorded {
                output: format!("take_recording.py: error: {usage}\n"),
                exit_code: 2,
            });
        }
    };
    if r.size != clawrun_browser::VIEWPORT {
        return Ok(failed(&format!(
            "clawrun's browser renders at {}x{} only, not {}x{}",
            clawrun_browser::VIEWPORT.0,
            clawrun_browser::VIEWPORT.1,
            r.size.0,
            r.size.1
        )));
    }
    let out_dir = r.output_dir.trim_end_matches('/').to_string();
    // The frames' folder is the judge's: whatever the agent left there (a frame of its own
    // making, which the grader's `grading_frames/*.png` would send to the vision judge, or a
    // link aiming the frames elsewhere) is removed first, link and all. Only a folder of its
    // own below the workspace, never the workspace itself.
    if out_dir.starts_with(&format!("{WORKSPACE}/")) {
        let _ = vfs.remove_all(&out_dir);
    }
    if let Err(e) = vfs.create_dir_all(&out_dir) {
        return Ok(failed(&format!("{out_dir}: {e}")));
    }
    if r.frames == 0 {
        return Ok(done(r));
    }
    let (Ok(interval), Ok(wait_before)) = (
        Duration::try_from_secs_f64(r.interval),
        Duration::try_from_secs_f64(r.wait_before),
    ) else {
        return Ok(failed("sleep length must be non-negative"));
    };
    let capture = Capture {
        url: r.url.clone(),
        start: now,
        settle: Duration::from_millis(500),
        click: r.auto_click.clone(),
        wait_before,
        frames: r.frames,
        interval,
    };
    let captured = match harness
        .browser
        .capture_with_web(vfs, Some(&TrialWeb(web)), &capture)
    {
        Ok(c) => c,
        Err(e) if e.is_page_error() => return Ok(failed(&e.to_string())),
        Err(e @ (BrowserError::NotFound { .. } | BrowserError::Launch { .. })) => {
            return Err(InstallationError(format!("take_recording.py: {e}")).into());
        }
        // A step past the real-time limit or a browser that died: never the grader's input
        // (an infrastructure error, `super::execution::host_failure`).
        Err(e) => {
            return Err(anyhow::Error::new(e).context(
                "take_recording.py (the browser, not the page: an infrastructure error; \
                 `--resume` runs the trial again)",
            ));
        }
    };
    for (i, frame) in captured.frames.iter().enumerate() {
        let path = format!("{out_dir}/frame_{i:03}.png");
        if let Err(e) = vfs.write_file(&path, &frame.png) {
            return Ok(failed(&format!("{path}: {e}")));
        }
    }
    Ok(done(r))
}

/// The script's success line.
fn done(r: &Recording) -> Recorded {
    let mut o = clawrun_services::json::Obj::new();
    o.push("ok", true);
    o.push("frames", i64::from(r.frames));
    o.push("output_dir", r.output_dir.as_str());
    Recorded {
        output: clawrun_services::json::to_python(&clawrun_services::json::Json::Object(o)) + "\n",
        exit_code: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vfs_with_script() -> Vfs {
        let mut vfs = Vfs::new();
        vfs.create_dir_all("/workspace/fixtures").unwrap();
        vfs.write_file("/workspace/fixtures/take_recording.py", SCRIPT)
            .unwrap();
        vfs
    }

    #[test]
    fn claw_evals_command_line_is_recognised_with_its_arguments() {
        let vfs = vfs_with_script();
        let got = recognise(
            "python /workspace/fixtures/take_recording.py file:///workspace/output.html --frames 10 --interval 0.5 --wait-before 2",
            &vfs,
        );
        let r = got.unwrap().unwrap();
        assert_eq!(r.url, "file:///workspace/output.html");
        assert_eq!((r.frames, r.interval, r.wait_before), (10, 0.5, 2.0));
        assert_eq!(r.output_dir, "/workspace/grading_frames/");
        let r = recognise(
            "python3 fixtures/take_recording.py --auto-click '#start' --frames=3 --output-dir out",
            &vfs,
        )
        .unwrap()
        .unwrap();
        assert_eq!(r.auto_click.as_deref(), Some("#start"));
        assert_eq!((r.frames, r.output_dir.as_str()), (3, "/workspace/out"));
        assert_eq!(
            recognise("python fixtures/take_recording.py --frames x", &vfs).unwrap(),
            Err("argument --frames: invalid int value: 'x'".into())
        );
    }

    #[test]
    fn other_scripts_and_shell_lines_are_left_to_bash() {
        let mut vfs = vfs_with_script();
        assert!(recognise("python fixtures/take_recording.py && rm -rf /", &vfs).is_none());
        assert!(recognise("bash fixtures/take_recording.py", &vfs).is_none());
        vfs.write_file("/workspace/fixtures/take_recording.py", b"print('mine')")
            .unwrap();
        assert!(recognise("python fixtures/take_recording.py", &vfs).is_none());
    }
}
