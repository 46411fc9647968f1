//! Agent-tool benchmarks (DESIGN §10): a `Read` and a `Write` call on the VFS (target p50 <=
//! 150 us) and a 3-stage `Bash` pipeline (target p50 <= 400 us), each a full tool call: fork
//! the workspace, instantiate the component, run it, parse its answer. Also printed: each
//! embedded component's size and the cold start of a fresh sandbox with the compile cache warm.
//! With native `ffmpeg` installed: `ReadMedia` taking 8 frames of a 720p H.264 clip (made
//! here), and the media component's one-off compile (an empty cache).

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Instant;

use clawrun::sandbox::{Sandbox, SandboxConfig};
use clawrun::tools::{self, ToolCall, ToolEnv, ToolState, Toolbox};
use clawrun::vfs::Vfs;
use criterion::Criterion;
use serde_json::json;

fn workspace() -> Vfs {
    let mut vfs = Vfs::new();
    vfs.create_dir_all("/workspace/data").unwrap();
    let mut csv = String::from("id,name,city\n");
    for i in 0..200 {
        csv.push_str(&format!(
            "{i},user{i},{}\n",
            ["Paris", "Berlin", "Madrid"][i % 3]
        ));
    }
    vfs.write_file("/workspace/data/users.csv", csv.as_bytes())
        .unwrap();
    vfs.write_file("/workspace/notes.txt", b"hello\nworld\n")
        .unwrap();
    vfs
}

fn bench_calls(c: &mut Criterion) {
    let sandbox = &*common::SANDBOX;
    let toolbox = Toolbox::new();
    let base = workspace();
    let state = ToolState::default();
    let env = ToolEnv::default();
    let calls = [
        (
            "tool/read",
            "Read",
            json!({"file_path": "/workspace/data/users.csv", "limit": 50}),
        ),
        (
            "tool/write",
            "Write",
            json!({"file_path": "/workspace/out/report.txt", "content": "done\n"}),
        ),
        (
            "tool/bash_3_stage_pipeline",
            "Bash",
            json!({"command": "cat data/users.csv | grep Paris | wc -l"}),
        ),
    ];
    for (id, name, args) in &calls {
        let first = toolbox
            .call(
                sandbox,
                ToolCall {
                    name,
                    args,
                    state: &state,
                },
                base.fork(),
                &env,
            )
            .unwrap();
        assert!(!first.is_error, "{name}: {}", first.output);
        c.bench_function(id, |b| {
            b.iter(|| {
                let out = toolbox
                    .call(
                        sandbox,
                        ToolCall {
                            name,
                            args,
                            state: &state,
                        },
                        base.fork(),
                        &env,
                    )
                    .unwrap();
                black_box(out.output)
            })
        });
    }
}

/// `ReadMedia` on 8 frames (fps 1) of a 10 s 1280x720 H.264 clip, and the media component's
/// first-use compile; skipped without native `ffmpeg` to make the clip.
fn bench_read_media(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("clip.mp4");
    let made = std::process::Command::new("ffmpeg")
        .args(["-nostdin", "-v", "error", "-f", "lavfi", "-i"])
        .arg("testsrc2=duration=10:size=1280x720:rate=30")
        .args(["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        .arg(&clip)
        .status();
    if !made.is_ok_and(|s| s.success()) {
        println!("read_media: skipped (native ffmpeg is not installed)");
        return;
    }
    let sandbox = &*common::SANDBOX;
    let toolbox = Toolbox::new();
    let mut base = Vfs::new();
    base.create_dir_all("/workspace").unwrap();
    base.write_file("/workspace/clip.mp4", &std::fs::read(&clip).unwrap())
        .unwrap();
    let args = json!({"path": "clip.mp4", "max_frames": 8, "fps": 1});
    let state = ToolState::default();
    let env = ToolEnv::default();
    let call = || {
        toolbox
            .call(
                sandbox,
                ToolCall {
                    name: "ReadMedia",
                    args: &args,
                    state: &state,
                },
                base.fork(),
                &env,
            )
            .unwrap()
    };
    let first = call();
    assert_eq!(first.images.len(), 8, "{}", first.output);
    println!("read_media 8 frames 720p: fuel {}", first.fuel_used);
    let mut group = c.benchmark_group("tool");
    group.sample_size(10);
    group.bench_function("read_media_8_frames_720p", |b| {
        b.iter(|| black_box(call().output))
    });
    group.finish();

    let empty = tempfile::tempdir().unwrap();
    let fresh = Sandbox::new(SandboxConfig {
        cache_dir: Some(empty.path().to_path_buf()),
        ..SandboxConfig::default()
    })
    .unwrap();
    let started = Instant::now();
    fresh.load(tools::media_component()).unwrap();
    println!(
        "media component ({} MB): first-use compile {:.1} s",
        tools::media_component().len() >> 20,
        started.elapsed().as_secs_f64()
    );
}

/// A fresh sandbox (new engine, disk cache warm) up to the answer of its first tool call.
fn bash<'a>(args: &'a serde_json::Value, state: &'a ToolState) -> ToolCall<'a> {
    ToolCall {
        name: "Bash",
        args,
        state,
    }
}

fn cold_start_ms() -> f64 {
    let dir = common::target_dir().join("clawrun-test-cache");
    let config = SandboxConfig {
        cache_dir: Some(dir),
        pooling: true,
    };
    let state = ToolState::default();
    let ready = json!({"command": "echo ready"});
    // Warm the disk cache.
    {
        let sandbox = Sandbox::new(config.clone()).unwrap();
        Toolbox::new()
            .call(
                &sandbox,
                bash(&json!({"command": "true"}), &state),
                workspace(),
                &ToolEnv::default(),
            )
            .unwrap();
    }
    let start = Instant::now();
    let sandbox = Sandbox::new(config).unwrap();
    let out = Toolbox::new()
        .call(
            &sandbox,
            bash(&ready, &state),
            workspace(),
            &ToolEnv::default(),
        )
        .unwrap();
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(out.output.trim(), "ready");
    ms
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_calls(&mut c);
    bench_read_media(&mut c);
    c.final_summary();
    println!("\nembedded components:");
    for name in tools::names() {
        if let Some(wasm) = tools::component(name) {
            println!("  {name:<9} {:>9} bytes", wasm.len());
        }
    }
    println!(
        "cold start (new engine, compile cache warm) to first Bash answer: {:.1} ms",
        cold_start_ms()
    );
}
