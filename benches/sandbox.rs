//! Sandbox-core benchmarks (DESIGN §10), all in one run:
//! - VFS fork of a task-sized tree;
//! - root hash after a 1-file change in a 10k-file tree;
//! - the same small read-modify-write program run (a) on our VFS, (b) on a tmpfs preopen through
//!   stock wasmtime-wasi, (c) as a native process in a temp dir.
//!
//! After criterion finishes, the ratios between the three `rmw` variants are printed from
//! criterion's own estimates.

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clawrun::sandbox::{RunConfig, Status};
use clawrun::vfs::Vfs;
use criterion::{BatchSize, Criterion};
use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{Engine, Store};
use wasmtime_wasi::p2::bindings::sync::CommandPre;
use wasmtime_wasi::{FsPerms, WasiCtx, WasiCtxView, WasiView};

const INPUT: &[u8] = include_bytes!("../README.md");

/// A 10k-file tree: 100 directories of 100 small files.
fn tree_10k() -> Vfs {
    let mut vfs = Vfs::new();
    for d in 0..100 {
        vfs.create_dir_all(&format!("/workspace/d{d:03}")).unwrap();
        for f in 0..100 {
            vfs.write_file(
                &format!("/workspace/d{d:03}/f{f:03}.txt"),
                format!("file {d} {f}\n").as_bytes(),
            )
            .unwrap();
        }
    }
    vfs
}

fn bench_vfs(c: &mut Criterion) {
    let mut base = tree_10k();
    base.root_hash();
    c.bench_function("vfs/fork_10k_files", |b| b.iter(|| black_box(base.fork())));
    let mut i = 0u64;
    c.bench_function("vfs/root_hash_after_1_file_change_10k", |b| {
        b.iter_batched(
            || {
                let mut v = base.fork();
                i += 1;
                v.write_file("/workspace/d042/f042.txt", &i.to_le_bytes())
                    .unwrap();
                v
            },
            |mut v| black_box(v.root_hash()),
            BatchSize::SmallInput,
        )
    });
}

struct StockData {
    ctx: WasiCtx,
    table: ResourceTable,
}

impl WasiView for StockData {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.ctx,
            table: &mut self.table,
        }
    }
}

fn tmpfs_dir() -> PathBuf {
    let shm = Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!("clawrun-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn bench_rmw(c: &mut Criterion) {
    let mut group = c.benchmark_group("rmw");
    group.measurement_time(Duration::from_secs(5));

    // (a) our VFS: fork the base snapshot, run, keep the new state; the component, the
    // wasip1 build on our preview 1 host, and the wasip1 build wrapped in the official
    // preview1 component adapter (what clawrun ran wasip1 modules with before).
    let mut base = Vfs::new();
    base.create_dir_all("/data").unwrap();
    base.write_file("/data/input.txt", INPUT).unwrap();
    let p1 = common::guest("rmw", common::Target::P1);
    let adapted = adapt_wasip1(&p1);
    let variants = [
        ("clawrun_vfs", common::program("rmw", common::Target::P2)),
        ("clawrun_vfs_wasip1", common::SANDBOX.load(&p1).unwrap()),
        (
            "clawrun_vfs_wasip1_adapter",
            common::SANDBOX.load(&adapted).unwrap(),
        ),
    ];
    for (name, program) in &variants {
        let check = common::run(program, base.fork(), &[("/data", true)], &["/data"]);
        assert_eq!(
            check.status,
            Status::Exited(0),
            "{name}: {}",
            common::stderr(&check)
        );
        group.bench_function(*name, |b| {
            b.iter(|| {
                let out = common::SANDBOX
                    .run(
                        program,
                        base.fork(),
                        RunConfig {
                            args: vec!["rmw".into(), "/data".into()],
                            mounts: vec![clawrun::sandbox::Mount {
                                guest_path: "/data".into(),
                                writable: true,
                            }],
                            ..RunConfig::default()
                        },
                    )
                    .unwrap();
                black_box(out.vfs)
            })
        });
    }

    // (b) stock wasmtime-wasi on a tmpfs preopen (same engine settings as clawrun's).
    let engine: &Engine = common::SANDBOX.engine();
    let mut linker: Linker<StockData> = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker).unwrap();
    let component =
        Component::from_binary(engine, &common::guest("rmw", common::Target::P2)).unwrap();
    let pre = CommandPre::new(linker.instantiate_pre(&component).unwrap()).unwrap();
    let dir = tmpfs_dir();
    std::fs::write(dir.join("input.txt"), INPUT).unwrap();
    group.bench_function("stock_wasi_tmpfs", |b| {
        b.iter(|| {
            let mut ctx = WasiCtx::builder();
            ctx.allow_blocking_current_thread(true)
                .args(&["rmw", "/data"])
                .preopened_dir(&dir, "/data", FsPerms::ReadWrite)
                .unwrap();
            let mut store = Store::new(
                engine,
                StockData {
                    ctx: ctx.build(),
                    table: ResourceTable::new(),
                },
            );
            store.set_fuel(u64::MAX).unwrap();
            // The engine interrupts at epoch deadlines (the sandbox's ticker runs): none here.
            store.set_epoch_deadline(u64::MAX / 2);
            let cmd = pre.instantiate(&mut store).unwrap();
            black_box(cmd.wasi_cli_run().call_run(&mut store).unwrap().is_ok())
        })
    });

    // (c) a native process in a temp dir.
    let native = common::native_guest("rmw");
    group.bench_function("native_process", |b| {
        b.iter(|| {
            let status = std::process::Command::new(&native)
                .arg(&dir)
                .stdout(std::process::Stdio::null())
                .status()
                .unwrap();
            black_box(status.success())
        })
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Wraps a wasip1 command module into a WASI p2 command component with the official preview1
/// adapter: how clawrun ran wasip1 modules before its own preview 1 host.
fn adapt_wasip1(module: &[u8]) -> Vec<u8> {
    let adapter = wasi_preview1_component_adapter_provider::WASI_SNAPSHOT_PREVIEW1_COMMAND_ADAPTER;
    wit_component::ComponentEncoder::default()
        .module(module)
        .unwrap()
        .adapter("wasi_snapshot_preview1", adapter)
        .unwrap()
        .validate(true)
        .encode()
        .unwrap()
}

/// Reads criterion's point estimate (ns) of one benchmark's mean.
fn estimate_ns(group: &str, name: &str) -> Option<f64> {
    let path = common::target_dir()
        .join("criterion")
        .join(group)
        .join(name)
        .join("new/estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let key = "\"median\":{\"confidence_interval\":";
    let rest = &text[text.find(key)?..];
    let pe = &rest[rest.find("\"point_estimate\":")? + 17..];
    pe[..pe.find(',')?].parse().ok()
}

fn print_ratios() {
    let names = [
        "clawrun_vfs",
        "clawrun_vfs_wasip1",
        "clawrun_vfs_wasip1_adapter",
        "stock_wasi_tmpfs",
        "native_process",
    ];
    let ests: Vec<Option<f64>> = names.iter().map(|n| estimate_ns("rmw", n)).collect();
    if let Some(ours) = ests[0] {
        println!("\nrmw medians (ratio to clawrun_vfs):");
        for (name, est) in names.iter().zip(&ests) {
            if let Some(ns) = est {
                println!("  {name:<26} {:>10.1} us  x{:.2}", ns / 1000.0, ns / ours);
            }
        }
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench_vfs(&mut c);
    bench_rmw(&mut c);
    c.final_summary();
    print_ratios();
}
