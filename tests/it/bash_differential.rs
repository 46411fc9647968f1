//! Differential test of the `Bash` tool as the agent gets it: every command of
//! `guest_tools/bash/tests/corpus.txt` runs (a) through [`Toolbox::call`] — the WASI component
//! in the sandbox — on a VFS holding the fixture tree `guest_tools/bash/tests/fixture/` at
//! `/workspace`, and (b) through the host's `/bin/bash -c` with `LC_ALL=C TZ=UTC` in a temporary
//! copy of the same tree. The text the model would see (stdout and stderr interleaved, then
//! `[exit code: N]` when the status is not 0), the exit status and the resulting files must be
//! identical, after replacing each run's directory with `<DIR>` and normalising `ls -l` owners
//! and times (as the native `guest_tools/bash/tests/differential.rs` does).
//!
//! Set `DIFF_FILTER=substring` to run only matching commands, `DIFF_VERBOSE=1` to print all.

use crate::common;
#[path = "../../guest_tools/bash/tests/host_bash/mod.rs"]
mod host_bash;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use cap_std::ambient_authority;
use cap_std::fs::Dir;
use clawrun::tools::{ToolCall, ToolEnv, ToolState, Toolbox, WORKSPACE};
use clawrun::vfs::{NodeKind, Vfs};
use common::SANDBOX;
use host_bash::{Outcome, compare_corpus, copy_tree, differences, normalise, snapshot};

/// Corpus commands that cannot match in the sandbox, each with the reason. Every entry must
/// still be in the corpus (checked), so the list cannot go stale silently.
const EXCLUDED: &[(&str, &str)] = &[
    (
        "echo 'not json' | jq .; echo \"status $?\"",
        "jq's parse-error message (stderr) differs: jq 1.6 reports `column 4`, ours `column 0`",
    ),
    (
        "echo )",
        "bash follows a syntax error with a second stderr line quoting the source line \
         (`echo )'); ours prints only the first",
    ),
];

/// The tool's output cap (`guest_tools/protocol`), applied to the host's text too.
const OUTPUT_LIMIT: usize = 30_000;

static TOOLBOX: LazyLock<Toolbox> = LazyLock::new(Toolbox::new);

fn bash_crate() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("guest_tools/bash/tests")
}

/// The VFS every command starts from (forked per command): the fixture at `/workspace`.
fn base_vfs() -> Vfs {
    let mut vfs = Vfs::new();
    let at = vfs.create_dir_all(WORKSPACE).unwrap();
    let dir = Dir::open_ambient_dir(bash_crate().join("fixture"), ambient_authority()).unwrap();
    vfs.import_dir(at, &dir).unwrap();
    vfs
}

/// What the tool shows for `output` and `status` (`guest_tools/bash/src/lib.rs`
/// `format_output`, then the protocol's 30,000-character cap).
fn tool_text(output: &str, status: i32) -> String {
    let mut text = output.to_string();
    if status != 0 {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!("[exit code: {status}]"));
    }
    let total = text.chars().count();
    if total > OUTPUT_LIMIT {
        text = text.chars().take(OUTPUT_LIMIT).collect();
        text.push_str(&format!(
            "\n... [output truncated: {} more characters]",
            total - OUTPUT_LIMIT
        ));
    }
    text
}

/// The status in the tool's `[exit code: N]` marker (0 without one).
fn status_of(text: &str) -> i32 {
    text.rsplit_once("[exit code: ")
        .filter(|(before, _)| before.is_empty() || before.ends_with('\n'))
        .and_then(|(_, n)| n.strip_suffix(']')?.parse().ok())
        .unwrap_or(0)
}

/// What the tool left, and whether it reported a tool error.
fn run_ours(base: &Vfs, cmd: &str) -> (Outcome, bool) {
    let out = TOOLBOX
        .call(
            &SANDBOX,
            ToolCall {
                name: "Bash",
                args: &serde_json::json!({ "command": cmd }),
                state: &ToolState::default(),
            },
            base.fork(),
            &ToolEnv::default(),
        )
        .expect("Bash tool call");
    let mut files = BTreeMap::new();
    let prefix = format!("{WORKSPACE}/");
    for (path, ino, kind) in out.vfs.walk(WORKSPACE).unwrap() {
        let rel = path.strip_prefix(&prefix).unwrap().to_string();
        let value = match kind {
            NodeKind::Directory => "<dir>".to_string(),
            NodeKind::Symlink => format!("<link {}>", out.vfs.readlink(ino).unwrap()),
            _ => String::from_utf8_lossy(&out.vfs.read_file(&path).unwrap()).into_owned(),
        };
        files.insert(rel, normalise(&value, WORKSPACE));
    }
    let outcome = Outcome {
        status: status_of(&out.output),
        text: normalise(&out.output, WORKSPACE),
        files,
    };
    (outcome, out.is_error)
}

fn run_host(cmd: &str) -> Outcome {
    // The run's directory is named `workspace` like the tool's, so `basename "$(pwd)"` agrees.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("workspace");
    std::fs::create_dir(&dir).unwrap();
    copy_tree(&bash_crate().join("fixture"), &dir);
    let dir_str = dir.to_string_lossy().into_owned();
    // stdout and stderr share one pipe, so they interleave in write order as in the tool.
    let (mut reader, writer) = std::io::pipe().unwrap();
    let mut child = host_bash::host_bash(cmd, &dir)
        .stdout(writer.try_clone().unwrap())
        .stderr(writer)
        .spawn()
        .unwrap();
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).unwrap();
    let status = child.wait().unwrap().code().unwrap_or(-1);
    let text = tool_text(&String::from_utf8_lossy(&bytes), status);
    let files = snapshot(&dir);
    Outcome {
        text: normalise(&text, &dir_str),
        status,
        files,
    }
}

#[test]
fn corpus_matches_host_bash_on_the_vfs() {
    assert!(
        Path::new("/bin/bash").exists(),
        "this test needs the host's /bin/bash"
    );
    let cmds = host_bash::corpus(&bash_crate());
    for (cmd, why) in EXCLUDED {
        assert!(
            cmds.iter().any(|c| c == cmd),
            "excluded command is not in the corpus: {cmd:?} ({why})"
        );
    }
    let base = base_vfs();
    // Both sides start from the whole fixture (18 files in 5 directories), odd names included.
    let ((ours, _), host) = (run_ours(&base, "true"), run_host("true"));
    assert_eq!(ours.files, host.files);
    assert_eq!(host.files.len(), 23, "{:?}", host.files.keys());
    for special in ["dir with space/file one.txt", ".hidden", "empty.txt"] {
        assert!(host.files.contains_key(special), "fixture lacks {special}");
    }
    let skip = |cmd: &str| EXCLUDED.iter().any(|(c, _)| *c == cmd);
    let (compared, failures) = compare_corpus(&cmds, skip, |cmd| {
        let (ours, is_error) = run_ours(&base, cmd);
        let mut problems = differences(&run_host(cmd), &ours);
        if is_error {
            problems.insert(0, "the tool reported a tool error".to_string());
        }
        problems
    });
    eprintln!(
        "bash differential on the VFS: {} commands compared, {} matched, {} excluded",
        compared,
        compared - failures.len(),
        EXCLUDED.len()
    );
    assert!(
        failures.is_empty(),
        "{} failing commands:\n{}",
        failures.len(),
        failures.join("\n")
    );
    if std::env::var_os("DIFF_FILTER").is_none() {
        assert!(compared >= 150, "only {compared} commands compared");
    }
}
