//! The agent's system tools (`Bash`, `Read`, `Write`, `Edit`, `Glob`, `Grep`, `ReadMedia`): WASI
//! components built from `guest_tools/` and embedded in the binary, run by the sandbox over a
//! VFS with the whole tree preopened at `/` and `/workspace` as the working root; and
//! `Download`, answered by the host ([`download`]: it decodes nothing).
//!
//! The host/guest contract is `guest_tools/PROTOCOL.md`: one JSON request on stdin, one JSON
//! response on stdout (text, and images for the model: `Read` on a picture).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use anyhow::{Result, bail};
use base64::Engine as _;
use clawrun_vfs::Vfs;
use serde::{Deserialize, Serialize};

use crate::clock::VirtualClock;
use crate::fault::NoFaults;
use crate::http::{GuestNetwork, NoNetwork};
use crate::python::JudgeImports;
use crate::{DEFAULT_FUEL, Mount, Program, RunConfig, Sandbox, Status};
use clawrun_faults::{Call, FaultKind, SharedInjector};

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/guest_tools.rs"));
}

/// The working root of every tool call.
pub const WORKSPACE: &str = "/workspace";

pub mod download;

/// The tool the host answers itself.
pub const DOWNLOAD: &str = "Download";

/// The names of the tools, in presentation order (the embedded ones, then `Download`).
pub fn names() -> impl Iterator<Item = &'static str> {
    embedded::EMBEDDED
        .iter()
        .map(|(name, _)| *name)
        .chain([DOWNLOAD])
}

/// Whether `name` is one of the tools ([`names`]).
pub fn is_tool(name: &str) -> bool {
    names().any(|n| n == name)
}

/// The component bytes of tool `name`.
pub fn component(name: &str) -> Option<&'static [u8]> {
    embedded::EMBEDDED
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, wasm)| *wasm)
}

/// The media component (`guest_tools/media`): `ReadMedia`, and `ffprobe`/`ffmpeg` in Bash.
pub fn media_component() -> &'static [u8] {
    component("ReadMedia").expect("the media component is embedded")
}

/// State carried from one tool call to the next within a trial (Bash's cwd and exports).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolState {
    /// Working directory.
    pub cwd: String,
    /// Exported environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

impl Default for ToolState {
    fn default() -> Self {
        Self {
            cwd: WORKSPACE.to_string(),
            env: BTreeMap::new(),
        }
    }
}

/// One tool call as the agent made it.
#[derive(Clone, Copy, Debug)]
pub struct ToolCall<'a> {
    /// The tool's name (`Bash`, `Read`, ...).
    pub name: &'a str,
    /// The arguments exactly as the model sent them.
    pub args: &'a serde_json::Value,
    /// State left by the previous call of the trial.
    pub state: &'a ToolState,
}

/// What every tool call of a trial runs with.
#[derive(Clone, Debug, Default)]
pub struct ToolEnv {
    /// Seed of every random byte the tool sees.
    pub seed: u64,
    /// The trial's virtual clock.
    pub clock: VirtualClock,
    /// The trial's fault plan: asked at `tool:<Name>` before each call, and at every
    /// filesystem operation of the tool.
    pub faults: Option<SharedInjector>,
    /// What the tool reaches over wasi:http (`curl` in Bash): none when `None`.
    pub network: Option<GuestNetwork>,
    /// The Judge phase's import rule for `python3` (only the standard library and these
    /// sealed grader files); `None` during Execution.
    pub judge_imports: Option<Arc<JudgeImports>>,
}

/// Media types a tool may return images in.
pub const IMAGE_MEDIA_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Fuel of one Bash call: room for `python3` work (importing pandas alone takes ~5e9).
pub const BASH_FUEL: u64 = 40_000_000_000;

/// Bytes of a tool's stdout kept: room for one image of 5 MiB in base64 plus its envelope.
const TOOL_STDOUT_CAP: usize = 8 << 20;

/// Bytes of `ReadMedia`'s stdout kept: 64 frames shown as JPEG (long edge 1280) in base64.
const READ_MEDIA_STDOUT_CAP: usize = 64 << 20;

/// `ReadMedia`'s fuel before its frames: probing, opening the decoder, the answer.
pub const READ_MEDIA_BASE_FUEL: u64 = 10_000_000_000;

/// `ReadMedia`'s fuel per frame asked (`max_frames`): decoding the second of video up to the
/// frame at 1 fps and encoding it; 8 frames of a 720p H.264 clip take about 3e10 in all.
pub const READ_MEDIA_FUEL_PER_FRAME: u64 = 4_000_000_000;

/// The fuel of one call of tool `name` with `args`: Bash's room for `python3`; ReadMedia's
/// scaled with the frames it is asked for, bounded at 64 frames (the most shown per call).
pub fn fuel_for(name: &str, args: &serde_json::Value) -> u64 {
    match name {
        "Bash" => BASH_FUEL,
        "ReadMedia" => {
            let frames = args
                .get("max_frames")
                .and_then(|v| v.as_f64().or_else(|| v.as_str()?.trim().parse().ok()))
                .unwrap_or(8.0)
                .clamp(1.0, 64.0) as u64;
            READ_MEDIA_BASE_FUEL + frames * READ_MEDIA_FUEL_PER_FRAME
        }
        _ => DEFAULT_FUEL,
    }
}

/// An image a tool returned for the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolImage {
    /// One of [`IMAGE_MEDIA_TYPES`].
    pub media_type: String,
    /// The image's bytes.
    pub bytes: Vec<u8>,
}

impl ToolImage {
    /// The bytes in base64 (standard alphabet, padded), as the model receives them.
    pub fn base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.bytes)
    }
}

/// What a tool call returns to the model, plus the filesystem after it.
pub struct ToolOutcome {
    /// The text the model sees.
    pub output: String,
    /// Images the model sees after the text.
    pub images: Vec<ToolImage>,
    /// Whether it is a tool error.
    pub is_error: bool,
    /// The exit status of the command the tool ran (Bash), or of the tool itself when it died
    /// (137 out of fuel, 134 other traps); `None` for other tools and injected failures.
    pub exit_code: Option<i32>,
    /// Characters of output the 30,000-character cap cut (0 when none).
    pub truncated: u64,
    /// The sandbox limit that stopped the tool, if one did (see [`Status::limit`]).
    pub limit_hit: Option<&'static str>,
    /// State for the next call.
    pub state: ToolState,
    /// The filesystem after the call.
    pub vfs: Vfs,
    /// Fuel the call consumed.
    pub fuel_used: u64,
}

#[derive(Serialize)]
struct Request<'a> {
    args: &'a serde_json::Value,
    state: &'a ToolState,
}

#[derive(Deserialize)]
struct Response {
    output: String,
    is_error: bool,
    state: ToolState,
    #[serde(default)]
    images: Vec<WireImage>,
    #[serde(default)]
    exit_code: Option<i32>,
    #[serde(default)]
    truncated: u64,
}

/// An image in the response envelope: base64 data.
#[derive(Deserialize)]
struct WireImage {
    media_type: String,
    data: String,
}

/// Decodes the envelope's images; `None` if one has an unknown media type or bad base64.
fn decode_images(images: Vec<WireImage>) -> Option<Vec<ToolImage>> {
    images
        .into_iter()
        .map(|i| {
            IMAGE_MEDIA_TYPES
                .contains(&i.media_type.as_str())
                .then_some(())?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(i.data.as_bytes())
                .ok()?;
            Some(ToolImage {
                media_type: i.media_type,
                bytes,
            })
        })
        .collect()
}

/// A failure of the clawrun installation itself (a tool that does not load): it stops a run,
/// unlike anything an agent or a task's content causes, which ends as that trial's record.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InstallationError(pub String);

impl InstallationError {
    /// Whether `e` (or an error it wraps) is an installation failure.
    pub fn is(e: &anyhow::Error) -> bool {
        e.chain().any(|c| c.is::<InstallationError>())
    }

    /// The installation failure `e` carries, with `e`'s whole message (its context kept).
    pub fn of(e: &anyhow::Error) -> Option<InstallationError> {
        Self::is(e).then(|| InstallationError(format!("{e:#}")))
    }
}

/// A tool's program (or a program it started) passed the real-time backstop
/// ([`crate::trial_backstop`]): how far it got depends on how busy the machine
/// was, so nothing of the call may become evidence. Its trial ends as an infrastructure error
/// (kept out of scores, re-run by `--resume`).
#[derive(Debug, thiserror::Error)]
#[error(
    "{tool} passed the real-time backstop of {} s (a busy machine, or work that fuel does not \
     meter): an infrastructure error, not the trial's result; `--resume` runs the trial again",
    limit.as_secs_f64()
)]
pub struct RealTimeBackstop {
    /// The tool.
    pub tool: String,
    /// The backstop.
    pub limit: std::time::Duration,
}

impl RealTimeBackstop {
    /// Whether `e` (or an error it wraps) is a backstop that fired.
    pub fn is(e: &anyhow::Error) -> bool {
        e.chain().any(|c| c.is::<RealTimeBackstop>())
    }
}

/// The embedded tools, each loaded into the sandbox (compiled or read from the compile cache)
/// on its first call.
#[derive(Default)]
pub struct Toolbox {
    programs: Mutex<BTreeMap<&'static str, Program>>,
}

impl Toolbox {
    /// An empty toolbox; tools load on first use.
    pub fn new() -> Self {
        Self::default()
    }

    /// The loaded program of tool `name`.
    fn program(&self, sandbox: &Sandbox, name: &str) -> Result<Program> {
        let Some((name, wasm)) = embedded::EMBEDDED.iter().find(|(n, _)| *n == name) else {
            bail!(
                "unknown tool '{name}' (known: {})",
                names().collect::<Vec<_>>().join(", ")
            );
        };
        let mut programs = self.programs.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = programs.get(name) {
            return Ok(p.clone());
        }
        let program = sandbox.load(wasm).map_err(|e| {
            InstallationError(format!(
                "loading the {name} tool: {e:#} (the clawrun installation is broken: rebuild it)"
            ))
        })?;
        programs.insert(name, program.clone());
        Ok(program)
    }

    /// Runs `call` over `vfs`. Bad arguments and tool failures come back as tool errors for
    /// the model; `Err` only for an unknown tool or a host fault.
    pub fn call(
        &self,
        sandbox: &Sandbox,
        call: ToolCall<'_>,
        vfs: Vfs,
        env: &ToolEnv,
    ) -> Result<ToolOutcome> {
        let ToolCall { name, args, state } = call;
        let program = match name {
            DOWNLOAD => None,
            _ => Some(self.program(sandbox, name)?),
        };
        let fault = env.faults.as_ref().and_then(|faults| {
            let point = clawrun_faults::point::tool(name);
            faults.decide(&Call::new(&point))
        });
        if let Some(failed) = fault.as_ref().and_then(|f| injected_failure(name, &f.kind)) {
            return Ok(ToolOutcome {
                output: failed,
                images: Vec::new(),
                is_error: true,
                exit_code: None,
                truncated: 0,
                limit_hit: None,
                state: state.clone(),
                vfs,
                fuel_used: 0,
            });
        }
        let Some(program) = program else {
            let answer = download::answer(args, &state.cwd, &vfs);
            return Ok(ToolOutcome {
                output: match fault.and_then(|f| f.kind.transform_body(answer.text.as_bytes())) {
                    Some(damaged) => String::from_utf8_lossy(&damaged).into_owned(),
                    None => answer.text,
                },
                images: Vec::new(),
                is_error: answer.is_error,
                exit_code: None,
                truncated: 0,
                limit_hit: None,
                state: state.clone(),
                vfs,
                fuel_used: 0,
            });
        };
        let refused = vfs.refusals();
        let stdin = serde_json::to_vec(&Request { args, state })?;
        let run = sandbox.run(
            &program,
            vfs,
            RunConfig {
                args: vec![name.to_string()],
                stdin,
                mounts: vec![Mount {
                    guest_path: "/".into(),
                    writable: true,
                }],
                seed: env.seed,
                fuel: fuel_for(name, args),
                stdout_cap: if name == "ReadMedia" {
                    READ_MEDIA_STDOUT_CAP
                } else {
                    TOOL_STDOUT_CAP
                },
                python: Some(match &env.judge_imports {
                    Some(rule) => crate::python::judge_launcher(rule.clone()),
                    None => crate::python::launcher(),
                }),
                clock: env.clock.clone(),
                fs_hook: match &env.faults {
                    Some(faults) => faults.fs_hook(),
                    None => Box::new(NoFaults),
                },
                http: match &env.network {
                    Some(network) => network.router(),
                    None => Box::new(NoNetwork),
                },
                deadline: Some(crate::trial_backstop()),
                ..RunConfig::default()
            },
        )?;
        if let Status::Deadline { limit } = run.status {
            return Err(RealTimeBackstop {
                tool: name.to_string(),
                limit,
            }
            .into());
        }
        let quota_note = quota_note(&run.vfs, refused);
        let parsed = match &run.status {
            Status::Exited(0) => serde_json::from_slice::<Response>(&run.stdout).ok(),
            _ => None,
        };
        let parsed = parsed.map(|mut r| match decode_images(std::mem::take(&mut r.images)) {
            Some(images) => Ok((images, r)),
            None => Err(format!(
                "{name} failed: it returned an image that is not base64 PNG, JPEG, GIF or WebP"
            )),
        });
        Ok(match parsed {
            Some(Err(bad)) => ToolOutcome {
                output: bad,
                images: Vec::new(),
                is_error: true,
                exit_code: None,
                truncated: 0,
                limit_hit: None,
                state: state.clone(),
                vfs: run.vfs,
                fuel_used: run.fuel_used,
            },
            Some(Ok((images, r))) => ToolOutcome {
                output: match fault.and_then(|f| f.kind.transform_body(r.output.as_bytes())) {
                    Some(damaged) => String::from_utf8_lossy(&damaged).into_owned(),
                    None => r.output,
                } + &quota_note,
                images,
                is_error: r.is_error,
                exit_code: r.exit_code,
                truncated: r.truncated,
                limit_hit: None,
                state: r.state,
                vfs: run.vfs,
                fuel_used: run.fuel_used,
            },
            None => ToolOutcome {
                output: crash_report(name, &run.status, &run.stderr),
                images: Vec::new(),
                is_error: true,
                exit_code: Some(match run.status {
                    // A command tool that exited without answering: a failed command.
                    Status::Exited(0) => 1,
                    ref other => other.exit_code(),
                }),
                truncated: 0,
                limit_hit: run.status.limit(),
                state: state.clone(),
                vfs: run.vfs,
                fuel_used: run.fuel_used,
            },
        })
    }
}

/// What the model reads for an injected fault that stops a tool call before it runs; `None`
/// for faults that let it run (latency, damaged output).
pub fn injected_failure(name: &str, kind: &FaultKind) -> Option<String> {
    if let Some(response) = kind.response() {
        return Some(format!(
            "{name} failed (HTTP {}): {}",
            response.status, response.body
        ));
    }
    match kind {
        FaultKind::Timeout => Some(format!("{name} failed: the call timed out")),
        FaultKind::ConnectionReset => Some(format!("{name} failed: the connection was reset")),
        _ => None,
    }
}

/// The sandbox's note when the call was refused by the filesystem quota (`refused` counted
/// before it): the guest's libc may report such a refusal only as an I/O error.
fn quota_note(vfs: &Vfs, refused: clawrun_vfs::Refusals) -> String {
    let now = vfs.refusals();
    let quota = vfs.quota();
    let mut notes = Vec::new();
    if now.bytes > refused.bytes {
        notes.push(format!(
            "no space left on device (the sandbox's disk quota of {} bytes is full)",
            quota.max_bytes
        ));
    }
    if now.inodes > refused.inodes {
        notes.push(format!(
            "disk quota exceeded (at most {} files, folders and links)",
            quota.max_inodes
        ));
    }
    if now.depth > refused.depth {
        notes.push(format!(
            "file name too long (folders nest at most {} levels)",
            quota.max_depth
        ));
    }
    notes.iter().map(|n| format!("\n[sandbox: {n}]")).collect()
}

/// What the model reads when a tool died instead of answering.
fn crash_report(name: &str, status: &Status, stderr: &[u8]) -> String {
    let why = status.message().unwrap_or_else(|| {
        format!(
            "it exited with status {} without a result",
            status.exit_code()
        )
    });
    let mut text = format!("{name} failed: {why}");
    let stderr = String::from_utf8_lossy(stderr);
    let stderr = stderr.trim();
    if !stderr.is_empty() {
        text.push('\n');
        text.extend(stderr.chars().take(2000));
    }
    text
}
