//! The scenarios. Each check prints one line via `util::rep`.
//!
//! Rules: never print inode numbers, times, host paths, raw OS error codes or
//! error messages; directory listings are printed sorted (plus a separate
//! `sorted=` line that reports the order the platform returned).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::plat;
use crate::util::{
    fnv1a, kind, kind_name, list_kinds, list_raw, list_sorted, q, read_restq, readq, rep, unit,
};

fn write_file(p: &Path, data: &[u8]) -> io::Result<()> {
    fs::write(p, data)
}

fn ok_if(cond: bool) -> io::Result<bool> {
    Ok(cond)
}

// ---------------------------------------------------------------- create

pub fn create(d: &Path) {
    let a = d.join("a.txt");
    let dir = d.join("sub");
    let _ = fs::create_dir(&dir);

    rep(
        "create_new",
        unit((|| {
            let mut f = OpenOptions::new().write(true).create_new(true).open(&a)?;
            f.write_all(b"hello")
        })()),
    );
    rep(
        "create_new_twice",
        unit(OpenOptions::new().write(true).create_new(true).open(&a)),
    );
    rep("read_back", readq(&a));

    rep(
        "create_existing_no_truncate",
        (|| {
            // Deliberately no truncate: create(true) on an existing file keeps it.
            #[allow(clippy::suspicious_open_options)]
            let mut f = OpenOptions::new().write(true).create(true).open(&a)?;
            f.write_all(b"J")?;
            drop(f);
            readq(&a)
        })(),
    );
    rep(
        "write_existing_no_truncate",
        (|| {
            let mut f = OpenOptions::new().write(true).open(&a)?;
            f.seek(SeekFrom::Start(4))?;
            f.write_all(b"y")?;
            drop(f);
            readq(&a)
        })(),
    );
    rep(
        "file_create_truncates",
        (|| {
            let mut f = File::create(&a)?;
            let len0 = f.metadata()?.len();
            f.write_all(b"hi")?;
            drop(f);
            Ok(format!("len_at_open={len0} {}", readq(&a)?))
        })(),
    );
    rep(
        "truncate_without_create",
        (|| {
            let f = OpenOptions::new().write(true).truncate(true).open(&a)?;
            let n = f.metadata()?.len();
            drop(f);
            write_file(&a, b"hi")?;
            Ok(format!("len={n}"))
        })(),
    );
    rep(
        "append",
        (|| {
            let mut f = OpenOptions::new().append(true).open(&a)?;
            f.write_all(b" there")?;
            drop(f);
            readq(&a)
        })(),
    );
    rep(
        "append_ignores_seek",
        (|| {
            let mut f = OpenOptions::new().append(true).open(&a)?;
            f.seek(SeekFrom::Start(0))?;
            f.write_all(b"!")?;
            let pos = f.stream_position()?;
            drop(f);
            Ok(format!("pos={pos} {}", readq(&a)?))
        })(),
    );
    rep(
        "append_read_handle",
        (|| {
            let mut f = OpenOptions::new().read(true).append(true).open(&a)?;
            let first = read_restq(&mut f)?;
            f.write_all(b"?")?;
            f.seek(SeekFrom::Start(0))?;
            Ok(format!("{first} then {}", read_restq(&mut f)?))
        })(),
    );
    rep(
        "append_create_missing",
        (|| {
            let p = d.join("appended.txt");
            let mut f = OpenOptions::new().append(true).create(true).open(&p)?;
            f.write_all(b"x")?;
            drop(f);
            readq(&p)
        })(),
    );
    rep(
        "create_new_then_read",
        (|| {
            let p = d.join("rw_new.txt");
            let mut f = OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(&p)?;
            f.write_all(b"abc")?;
            f.seek(SeekFrom::Start(1))?;
            read_restq(&mut f)
        })(),
    );
    rep("open_missing", unit(File::open(d.join("missing.txt"))));
    rep(
        "open_missing_write_nocreate",
        unit(OpenOptions::new().write(true).open(d.join("missing.txt"))),
    );
    rep(
        "create_in_missing_dir",
        unit(File::create(d.join("nodir").join("x.txt"))),
    );
    rep("missing_still_missing", d.join("missing.txt").try_exists());
    rep(
        "open_dir_write",
        unit(OpenOptions::new().write(true).open(&dir)),
    );
    rep(
        "open_dir_append",
        unit(OpenOptions::new().append(true).open(&dir)),
    );
    rep("file_create_over_dir", unit(File::create(&dir)));
    rep("open_dir_readonly", unit(File::open(&dir)));
    rep(
        "read_from_dir_handle",
        (|| {
            let mut f = File::open(&dir)?;
            let mut buf = [0u8; 8];
            f.read(&mut buf)
        })(),
    );
    rep(
        "write_via_readonly_handle",
        (|| {
            let mut f = File::open(&a)?;
            f.write(b"zz")
        })(),
    );
    rep(
        "read_via_writeonly_handle",
        (|| {
            let mut f = OpenOptions::new().write(true).open(&a)?;
            let mut buf = [0u8; 8];
            f.read(&mut buf)
        })(),
    );
    rep("content_unchanged", readq(&a));
    rep("final_listing", list_kinds(d));
}

// ---------------------------------------------------------------- rw

fn pattern(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) >> 13) as u8 ^ (i / 4099) as u8)
        .collect()
}

pub fn rw(d: &Path) {
    let p = d.join("f.txt");

    rep(
        "stream_write",
        (|| {
            let mut f = File::create(&p)?;
            f.write_all(b"0123")?;
            f.write_all(b"456789")?;
            f.flush()?;
            f.stream_position()
        })(),
    );
    rep(
        "stream_read",
        (|| {
            let mut f = File::open(&p)?;
            let mut a = [0u8; 4];
            f.read_exact(&mut a)?;
            let rest = read_restq(&mut f)?;
            let mut z = [0u8; 4];
            let eof = f.read(&mut z)?;
            Ok(format!("{} {rest} eof_read={eof}", q(&a)))
        })(),
    );

    // One read+write handle, seeking around.
    let h = OpenOptions::new().read(true).write(true).open(&p);
    match h {
        Err(e) => rep::<u8>("open_rw", Err(e)),
        Ok(mut f) => {
            rep("open_rw", Ok(""));
            rep("seek_start_2", f.seek(SeekFrom::Start(2)));
            rep(
                "read_3",
                (|| {
                    let mut b = [0u8; 3];
                    f.read_exact(&mut b)?;
                    Ok(q(&b))
                })(),
            );
            rep("position_after_read", f.stream_position());
            rep("seek_end_minus_2", f.seek(SeekFrom::End(-2)));
            rep("read_to_end", read_restq(&mut f));
            rep("seek_current_minus_5", f.seek(SeekFrom::Current(-5)));
            rep(
                "write_at_cursor",
                (|| {
                    f.write_all(b"ab")?;
                    f.stream_position()
                })(),
            );
            rep("seek_before_start", f.seek(SeekFrom::Current(-100)));
            rep("position_after_bad_seek", f.stream_position());
            rep(
                "content_after_seek_writes",
                (|| {
                    f.seek(SeekFrom::Start(0))?;
                    read_restq(&mut f)
                })(),
            );
            rep("seek_end_plus_10", f.seek(SeekFrom::End(10)));
            rep(
                "write_past_eof",
                (|| {
                    f.write_all(b"Z")?;
                    Ok(f.metadata()?.len())
                })(),
            );
            rep(
                "hole_is_zeros",
                (|| {
                    let data = fs::read(&p)?;
                    Ok(format!(
                        "len={} zeros={} last={}",
                        data.len(),
                        data[10..20].iter().all(|&b| b == 0),
                        q(&data[20..])
                    ))
                })(),
            );
            rep(
                "set_len_shrink",
                (|| {
                    f.set_len(4)?;
                    Ok(format!("len={} {}", f.metadata()?.len(), readq(&p)?))
                })(),
            );
            rep("cursor_after_shrink", f.stream_position());
            rep(
                "set_len_extend",
                (|| {
                    f.set_len(8)?;
                    Ok(format!("len={} {}", f.metadata()?.len(), readq(&p)?))
                })(),
            );
            rep(
                "write_after_shrink_at_old_cursor",
                (|| {
                    // cursor is still 21: writing extends with zeros again.
                    f.write_all(b"E")?;
                    let data = fs::read(&p)?;
                    Ok(format!(
                        "len={} zeros={} last={}",
                        data.len(),
                        data[4..21].iter().all(|&b| b == 0),
                        q(&data[21..])
                    ))
                })(),
            );
            rep("sync_all", unit(f.sync_all()));
            rep("sync_data", unit(f.sync_data()));
        }
    }

    // Positional reads and writes (do not move the cursor).
    let pp = d.join("pos.txt");
    rep("pos_setup", unit(write_file(&pp, b"abcdef")));
    match OpenOptions::new().read(true).write(true).open(&pp) {
        Err(e) => rep::<u8>("pos_open", Err(e)),
        Ok(mut f) => {
            rep("pos_open", Ok(""));
            rep("pos_cursor_set", f.seek(SeekFrom::Start(1)));
            rep("pwrite", plat::pwrite(&f, b"XY", 1));
            rep("pread", plat::pread_exact(&f, 3, 2).map(|b| q(&b)));
            rep("pread_past_eof", plat::pread(&f, &mut [0u8; 4], 100));
            rep(
                "pread_straddling_eof",
                plat::pread_exact(&f, 10, 4).map(|b| q(&b)),
            );
            rep("cursor_unchanged", f.stream_position());
            rep(
                "stream_read_after_pwrite",
                (|| {
                    let mut b = [0u8; 2];
                    f.read_exact(&mut b)?;
                    Ok(q(&b))
                })(),
            );
            rep(
                "pwrite_past_eof",
                (|| {
                    plat::pwrite_all(&f, b"W", 10)?;
                    Ok(format!("len={} {}", f.metadata()?.len(), readq(&pp)?))
                })(),
            );
            rep("cursor_still_unchanged", f.stream_position());
        }
    }

    // Two handles on one file see each other's writes.
    let sp = d.join("shared.txt");
    let handles = (|| {
        let w = File::create(&sp)?;
        let r = File::open(&sp)?;
        Ok::<_, io::Error>((w, r))
    })();
    match handles {
        Err(e) => rep::<u8>("two_handles_open", Err(e)),
        Ok((mut w, mut r)) => {
            rep("two_handles_open", Ok(""));
            rep("h1_write", unit(w.write_all(b"shared")));
            rep("h2_sees", read_restq(&mut r));
            rep("h1_write_more", unit(w.write_all(b" more")));
            rep("h2_continues", read_restq(&mut r));
            rep(
                "h3_overwrite_start",
                (|| {
                    let mut w2 = OpenOptions::new().write(true).open(&sp)?;
                    w2.write_all(b"S")?;
                    Ok("")
                })(),
            );
            rep(
                "h2_rereads",
                (|| {
                    r.seek(SeekFrom::Start(0))?;
                    read_restq(&mut r)
                })(),
            );
            rep(
                "h1_set_len_seen_by_h2",
                (|| {
                    w.set_len(3)?;
                    Ok(format!("len={} {}", r.metadata()?.len(), {
                        r.seek(SeekFrom::Start(0))?;
                        read_restq(&mut r)?
                    }))
                })(),
            );
        }
    }

    // 200 KiB file crossing 64 KiB chunk boundaries.
    const BIG: usize = 200 * 1024;
    let bp = d.join("big.bin");
    let mut expect = pattern(BIG);
    rep(
        "big_write",
        (|| {
            let mut f = File::create(&bp)?;
            // Odd-sized chunks so writes straddle 64 KiB boundaries.
            for c in expect.chunks(10_007) {
                f.write_all(c)?;
            }
            f.stream_position()
        })(),
    );
    rep("big_len", fs::metadata(&bp).map(|m| m.len()));
    rep(
        "big_read_fnv",
        (|| {
            let mut f = File::open(&bp)?;
            let mut got = Vec::new();
            let mut buf = vec![0u8; 65_537];
            loop {
                let n = f.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            Ok(format!(
                "len={} fnv={:016x} match={}",
                got.len(),
                fnv1a(&got),
                got == expect
            ))
        })(),
    );
    rep(
        "big_cross_chunk_pread",
        (|| {
            let f = File::open(&bp)?;
            let got = plat::pread_exact(&f, 16, 65_530)?;
            Ok(got == expect[65_530..65_546])
        })(),
    );
    rep(
        "big_cross_chunk_seek_read",
        (|| {
            let mut f = File::open(&bp)?;
            f.seek(SeekFrom::Start(131_068))?;
            let mut b = [0u8; 9];
            f.read_exact(&mut b)?;
            Ok(b[..] == expect[131_068..131_077])
        })(),
    );
    rep(
        "big_overwrite_across_boundary",
        (|| {
            let mut f = OpenOptions::new().write(true).open(&bp)?;
            f.seek(SeekFrom::Start(131_070))?;
            f.write_all(b"BOUNDARY")?;
            expect[131_070..131_078].copy_from_slice(b"BOUNDARY");
            drop(f);
            let got = fs::read(&bp)?;
            Ok(format!(
                "len={} fnv={:016x} match={}",
                got.len(),
                fnv1a(&got),
                got == expect
            ))
        })(),
    );
    rep(
        "big_shrink_across_boundary",
        (|| {
            let f = OpenOptions::new().write(true).open(&bp)?;
            f.set_len(65_540)?;
            f.set_len(70_000)?;
            drop(f);
            let got = fs::read(&bp)?;
            Ok(format!(
                "len={} head_match={} tail_zeros={}",
                got.len(),
                got[..65_540] == expect[..65_540],
                got[65_540..].iter().all(|&b| b == 0)
            ))
        })(),
    );
}

// ---------------------------------------------------------------- dirs

pub fn dirs(d: &Path) {
    let a = d.join("a");
    rep("create_dir", unit(fs::create_dir(&a)));
    rep("create_dir_existing", unit(fs::create_dir(&a)));
    rep(
        "create_dir_missing_parent",
        unit(fs::create_dir(d.join("x").join("y"))),
    );
    rep(
        "create_dir_all",
        unit(fs::create_dir_all(d.join("b").join("c").join("d"))),
    );
    rep(
        "create_dir_all_again",
        unit(fs::create_dir_all(d.join("b").join("c").join("d"))),
    );
    rep(
        "create_dir_all_existing_prefix",
        unit(fs::create_dir_all(d.join("b").join("c2"))),
    );

    let names = [
        "zeta.txt",
        "alpha.txt",
        "Mid.txt",
        "10.txt",
        "9.txt",
        "_u.txt",
    ];
    rep(
        "populate",
        unit((|| {
            for n in names {
                write_file(&a.join(n), n.as_bytes())?;
            }
            fs::create_dir(a.join("sub"))
        })()),
    );
    // The clawrun VFS returns entries sorted by name; Linux returns them in
    // an on-disk order. Report whether the returned order was sorted, then
    // print the sorted list so the rest of the output matches everywhere.
    rep(
        "read_dir_order",
        list_raw(&a).map(|v| {
            let mut s = v.clone();
            s.sort();
            format!("sorted={}", v == s)
        }),
    );
    rep("read_dir", list_sorted(&a));
    rep("read_dir_kinds", list_kinds(&a));
    rep("read_dir_count", list_raw(&a).map(|v| v.len()));
    rep("read_dir_empty", list_sorted(&a.join("sub")));
    rep("read_dir_on_file", list_sorted(&a.join("alpha.txt")));
    rep("read_dir_missing", list_sorted(&d.join("nope")));
    rep(
        "read_dir_dotdot_inside",
        list_sorted(&a.join("sub").join("..")),
    );
    rep(
        "open_via_dotdot_inside",
        readq(&a.join("sub").join("..").join("alpha.txt")),
    );
    rep("open_via_dot", readq(&a.join(".").join("alpha.txt")));
    rep("open_file_as_dir", readq(&a.join("alpha.txt").join("x")));
    rep("remove_dir_nonempty", unit(fs::remove_dir(&a)));
    rep(
        "remove_dir_on_file",
        unit(fs::remove_dir(a.join("alpha.txt"))),
    );
    rep("remove_dir_missing", unit(fs::remove_dir(a.join("nope"))));
    rep("remove_file_on_dir", unit(fs::remove_file(a.join("sub"))));
    rep("remove_file_missing", unit(fs::remove_file(a.join("nope"))));
    rep(
        "create_dir_over_file",
        unit(fs::create_dir(a.join("alpha.txt"))),
    );
    rep(
        "create_dir_all_through_file",
        unit(fs::create_dir_all(a.join("alpha.txt").join("deeper"))),
    );
    rep(
        "metadata_file",
        fs::metadata(a.join("alpha.txt")).map(|m| {
            format!(
                "is_file={} is_dir={} len={}",
                m.is_file(),
                m.is_dir(),
                m.len()
            )
        }),
    );
    // (directory len is filesystem-specific, so it is not printed)
    rep(
        "metadata_dir",
        fs::metadata(&a).map(|m| format!("is_file={} is_dir={}", m.is_file(), m.is_dir())),
    );
    rep("metadata_missing", unit(fs::metadata(a.join("nope"))));
    rep("remove_dir_empty", unit(fs::remove_dir(a.join("sub"))));
    rep("exists_after_remove", a.join("sub").try_exists());
    rep("remove_file", unit(fs::remove_file(a.join("zeta.txt"))));
    rep("read_dir_after_removes", list_sorted(&a));
    rep("remove_dir_all", unit(fs::remove_dir_all(d.join("b"))));
    rep("exists_after_remove_dir_all", d.join("b").try_exists());
    rep("final_listing", list_kinds(d));
}

// ---------------------------------------------------------------- stat

pub fn stat(d: &Path) {
    let f = d.join("f.txt");
    let sub = d.join("sub");
    let l = d.join("link");
    rep("setup_file", unit(write_file(&f, b"12345")));
    rep("setup_dir", unit(fs::create_dir(&sub)));

    let describe = |m: fs::Metadata| {
        let ft = m.file_type();
        format!(
            "is_file={} is_dir={} is_symlink={} type={} len={}",
            m.is_file(),
            m.is_dir(),
            m.is_symlink(),
            kind(ft),
            if m.is_dir() {
                "-".to_string()
            } else {
                m.len().to_string()
            }
        )
    };
    rep("metadata_file", fs::metadata(&f).map(describe));
    rep("metadata_dir", fs::metadata(&sub).map(describe));
    rep(
        "symlink_metadata_file",
        fs::symlink_metadata(&f).map(describe),
    );
    rep("metadata_missing", unit(fs::metadata(d.join("missing"))));

    if plat::HAS_SYMLINK {
        rep("setup_symlink", unit(plat::symlink("f.txt", &l)));
        rep("metadata_via_symlink", fs::metadata(&l).map(describe));
        rep(
            "symlink_metadata_symlink",
            fs::symlink_metadata(&l).map(|m| {
                format!(
                    "is_file={} is_dir={} is_symlink={} type={}",
                    m.is_file(),
                    m.is_dir(),
                    m.is_symlink(),
                    kind(m.file_type())
                )
            }),
        );
    } else {
        println!("symlink: unsupported");
    }
    rep("entry_file_types", list_kinds(d));

    rep(
        "handle_metadata_tracks_writes",
        (|| {
            let mut h = OpenOptions::new().append(true).open(&f)?;
            h.write_all(b"678")?;
            let by_handle = h.metadata()?.len();
            let by_path = fs::metadata(&f)?.len();
            Ok(format!("handle={by_handle} path={by_path}"))
        })(),
    );
    rep(
        "set_len_updates_len",
        (|| {
            let h = OpenOptions::new().write(true).open(&f)?;
            h.set_len(2)?;
            Ok(fs::metadata(&f)?.len())
        })(),
    );
    rep(
        "mtime",
        fs::metadata(&f).and_then(|m| m.modified()).map(|_| ""),
    );
    rep(
        "mtime_dir",
        fs::metadata(&sub).and_then(|m| m.modified()).map(|_| ""),
    );
    rep(
        "mtime_not_before_after_write",
        (|| {
            let before = fs::metadata(&f)?.modified()?;
            let mut h = OpenOptions::new().append(true).open(&f)?;
            h.write_all(b"x")?;
            drop(h);
            let after = fs::metadata(&f)?.modified()?;
            ok_if(after >= before)
        })(),
    );
}

// ---------------------------------------------------------------- rename

pub fn rename(d: &Path) {
    let a = d.join("a.txt");
    let b = d.join("b.txt");
    let c = d.join("c.txt");
    rep(
        "setup",
        unit((|| {
            write_file(&a, b"A")?;
            write_file(&c, b"C")?;
            fs::create_dir_all(d.join("dir1").join("sub"))?;
            write_file(&d.join("dir1").join("x.txt"), b"X")?;
            write_file(&d.join("dir1").join("sub").join("y.txt"), b"Y")?;
            fs::create_dir(d.join("empty"))?;
            fs::create_dir(d.join("full"))?;
            write_file(&d.join("full").join("keep.txt"), b"K")
        })()),
    );

    rep("rename_file", unit(fs::rename(&a, &b)));
    rep("old_name_gone", unit(fs::metadata(&a)));
    rep("new_name_content", readq(&b));
    rep("rename_over_existing_file", unit(fs::rename(&b, &c)));
    rep("replaced_content", readq(&c));
    rep("source_gone", b.try_exists());
    rep("rename_same_path", unit(fs::rename(&c, &c)));
    rep("same_path_content", readq(&c));

    rep(
        "rename_dir_with_contents",
        unit(fs::rename(d.join("dir1"), d.join("dir2"))),
    );
    rep(
        "moved_nested_file",
        readq(&d.join("dir2").join("sub").join("y.txt")),
    );
    rep("moved_listing", list_kinds(&d.join("dir2")));
    rep("old_dir_gone", d.join("dir1").try_exists());

    rep(
        "rename_dir_over_empty_dir",
        unit(fs::rename(d.join("dir2"), d.join("empty"))),
    );
    rep("over_empty_result", list_sorted(&d.join("empty")));
    rep("over_empty_source_gone", d.join("dir2").try_exists());
    rep(
        "rename_dir_over_nonempty_dir",
        unit(fs::rename(d.join("empty"), d.join("full"))),
    );
    rep("nonempty_target_intact", list_sorted(&d.join("full")));
    rep("source_after_failed_rename", list_sorted(&d.join("empty")));
    rep(
        "rename_dir_into_own_subdir",
        unit(fs::rename(
            d.join("empty"),
            d.join("empty").join("sub").join("inner"),
        )),
    );
    rep("after_into_own_subdir", list_sorted(&d.join("empty")));
    rep("rename_file_over_dir", unit(fs::rename(&c, d.join("full"))));
    rep("rename_dir_over_file", unit(fs::rename(d.join("full"), &c)));
    rep(
        "rename_missing",
        unit(fs::rename(d.join("missing"), d.join("other"))),
    );
    rep(
        "rename_into_missing_parent",
        unit(fs::rename(&c, d.join("nodir").join("c.txt"))),
    );
    rep(
        "rename_file_into_dir",
        unit(fs::rename(&c, d.join("full").join("c.txt"))),
    );
    rep("final_listing", list_kinds(d));
    rep("final_full", list_sorted(&d.join("full")));
}

// ---------------------------------------------------------------- unlink_open

pub fn unlink_open(d: &Path) {
    let p = d.join("f.txt");
    rep("setup", unit(write_file(&p, b"before")));
    match OpenOptions::new().read(true).write(true).open(&p) {
        Err(e) => rep::<u8>("open", Err(e)),
        Ok(mut h) => {
            rep("open", Ok(""));
            rep("remove_file", unit(fs::remove_file(&p)));
            rep("path_gone", unit(fs::metadata(&p)));
            rep("open_path_again", unit(File::open(&p)));
            rep("listing_after_remove", list_sorted(d));
            rep("read_via_handle", read_restq(&mut h));
            rep("write_via_handle", unit(h.write_all(b" after")));
            rep(
                "reread_via_handle",
                (|| {
                    h.seek(SeekFrom::Start(0))?;
                    read_restq(&mut h)
                })(),
            );
            rep("handle_len", h.metadata().map(|m| m.len()));
            rep("handle_set_len", unit(h.set_len(3)));
            rep(
                "pread_via_handle",
                plat::pread_exact(&h, 10, 0).map(|b| q(&b)),
            );
            rep(
                "recreate_same_path",
                (|| {
                    write_file(&p, b"new")?;
                    readq(&p)
                })(),
            );
            rep(
                "old_handle_independent",
                (|| {
                    h.seek(SeekFrom::Start(0))?;
                    read_restq(&mut h)
                })(),
            );
            drop(h);
            rep("new_file_after_close", readq(&p));
        }
    }
}

// ---------------------------------------------------------------- symlinks

pub fn symlinks(d: &Path) {
    if !plat::HAS_SYMLINK {
        println!("symlink: unsupported");
        return;
    }
    let t = d.join("t.txt");
    let l = d.join("l");
    rep("setup_target", unit(write_file(&t, b"target\n")));
    rep("symlink", unit(plat::symlink("t.txt", &l)));
    rep("symlink_existing_name", unit(plat::symlink("t.txt", &l)));
    rep(
        "read_link",
        fs::read_link(&l).map(|p| format!("{:?}", p.to_string_lossy())),
    );
    rep("read_link_on_file", unit(fs::read_link(&t)));
    rep("read_link_missing", unit(fs::read_link(d.join("missing"))));
    rep("read_through", readq(&l));
    rep(
        "append_through",
        (|| {
            let mut f = OpenOptions::new().append(true).open(&l)?;
            f.write_all(b"more\n")?;
            drop(f);
            readq(&t)
        })(),
    );
    rep(
        "is_symlink",
        fs::symlink_metadata(&l).map(|m| m.is_symlink()),
    );
    rep(
        "metadata_follows",
        fs::metadata(&l).map(|m| format!("is_file={} len={}", m.is_file(), m.len())),
    );
    rep("try_exists", l.try_exists());

    rep("chain", unit(plat::symlink("l", d.join("l2"))));
    rep("read_through_chain", readq(&d.join("l2")));

    rep("dangling", unit(plat::symlink("nope.txt", d.join("dang"))));
    rep("dangling_read", readq(&d.join("dang")));
    rep(
        "dangling_read_link",
        fs::read_link(d.join("dang")).map(|p| format!("{:?}", p.to_string_lossy())),
    );
    rep(
        "dangling_is_symlink",
        fs::symlink_metadata(d.join("dang")).map(|m| m.is_symlink()),
    );
    rep("dangling_try_exists", d.join("dang").try_exists());
    rep(
        "create_new_via_dangling",
        unit(
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(d.join("dang")),
        ),
    );
    rep("create_via_dangling", unit(File::create(d.join("dang"))));
    rep("dangling_target_now", d.join("nope.txt").try_exists());

    rep(
        "loop_setup",
        unit((|| {
            plat::symlink("loop2", d.join("loop1"))?;
            plat::symlink("loop1", d.join("loop2"))
        })()),
    );
    rep("loop_read", readq(&d.join("loop1")));
    rep("loop_metadata", unit(fs::metadata(d.join("loop1"))));
    rep(
        "loop_symlink_metadata",
        fs::symlink_metadata(d.join("loop1")).map(|m| m.is_symlink()),
    );
    rep(
        "self_loop_setup",
        unit(plat::symlink("self", d.join("self"))),
    );
    rep("self_loop_read", readq(&d.join("self")));

    rep(
        "dir_symlink",
        unit((|| {
            fs::create_dir(d.join("realdir"))?;
            write_file(&d.join("realdir").join("in.txt"), b"in")?;
            plat::symlink("realdir", d.join("ldir"))
        })()),
    );
    rep("read_dir_through_symlink", list_sorted(&d.join("ldir")));
    rep(
        "read_file_through_dir_symlink",
        readq(&d.join("ldir").join("in.txt")),
    );
    rep(
        "create_through_dir_symlink",
        unit(write_file(&d.join("ldir").join("new.txt"), b"n")),
    );
    rep("realdir_after_create", list_sorted(&d.join("realdir")));
    rep(
        "remove_dir_on_dir_symlink",
        unit(fs::remove_dir(d.join("ldir"))),
    );
    rep(
        "nested_relative_target",
        unit(plat::symlink("../t.txt", d.join("realdir").join("up"))),
    );
    rep("read_nested_relative", readq(&d.join("realdir").join("up")));

    rep("rename_symlink", unit(fs::rename(&l, d.join("l3"))));
    rep(
        "renamed_read_link",
        fs::read_link(d.join("l3")).map(|p| format!("{:?}", p.to_string_lossy())),
    );
    rep("chain_after_rename", readq(&d.join("l2")));
    rep("remove_symlink", unit(fs::remove_file(d.join("l3"))));
    rep(
        "symlink_gone",
        fs::symlink_metadata(d.join("l3")).map(|_| ""),
    );
    rep("target_intact", readq(&t));
    rep("remove_dir_symlink", unit(fs::remove_file(d.join("ldir"))));
    rep("realdir_intact", list_sorted(&d.join("realdir")));
    rep("final_listing", list_kinds(d));
}

// ---------------------------------------------------------------- escape

/// Only meaningful in the sandbox (natively some of these succeed).
pub fn escape(root: &Path) {
    fn first10(p: &Path) -> io::Result<String> {
        let mut f = File::open(p)?;
        let mut buf = [0u8; 10];
        let mut n = 0;
        while n < buf.len() {
            let k = f.read(&mut buf[n..])?;
            if k == 0 {
                break;
            }
            n += k;
        }
        Ok(q(&buf[..n]))
    }
    let up = root.join("..");
    rep("dotdot_outside_txt", first10(&up.join("outside.txt")));
    rep(
        "dotdot2_etc_passwd",
        first10(&up.join("..").join("etc").join("passwd")),
    );
    rep(
        "deep_dotdot_etc_passwd",
        first10(&root.join("a/../../../../../../../../etc/passwd")),
    );
    rep("absolute_etc_passwd", first10(Path::new("/etc/passwd")));
    rep(
        "absolute_proc_self",
        first10(Path::new("/proc/self/status")),
    );

    if plat::HAS_SYMLINK {
        let rel = root.join("esc_rel");
        let abs = root.join("esc_abs");
        let dir = root.join("esc_dir");
        let _ = fs::remove_file(&rel);
        let _ = fs::remove_file(&abs);
        let _ = fs::remove_file(&dir);
        rep(
            "symlink_rel_create",
            unit(plat::symlink("../outside.txt", &rel)),
        );
        rep("symlink_rel_read", first10(&rel));
        rep(
            "symlink_abs_create",
            unit(plat::symlink("/etc/passwd", &abs)),
        );
        rep("symlink_abs_read", first10(&abs));
        rep("symlink_dir_create", unit(plat::symlink("..", &dir)));
        rep("symlink_dir_read", first10(&dir.join("outside.txt")));
        rep("symlink_dir_list", list_raw(&dir).map(|_| ""));
        let _ = fs::remove_file(&rel);
        let _ = fs::remove_file(&abs);
        let _ = fs::remove_file(&dir);
    } else {
        println!("symlink: unsupported");
    }

    let created = up.join("escape_created.txt");
    let r = File::create(&created);
    if r.is_ok() {
        // Natively this really lands outside root: clean it up.
        let _ = fs::remove_file(&created);
    }
    rep("create_outside", unit(r));
    rep("mkdir_outside", {
        let p = up.join("escape_dir");
        let r = fs::create_dir(&p);
        if r.is_ok() {
            let _ = fs::remove_dir(&p);
        }
        unit(r)
    });
    rep("list_parent", list_raw(&up).map(|_| ""));
    rep("list_slash", list_raw(Path::new("/")).map(|_| ""));
}

// ---------------------------------------------------------------- readonly

/// `<root>` is mounted read-only and contains `existing.txt` = "seed\n".
pub fn readonly(root: &Path) {
    let e = root.join("existing.txt");
    rep("read_existing", readq(&e));
    rep("metadata_existing", fs::metadata(&e).map(|m| m.len()));
    rep("list_root", list_sorted(root));
    rep("create_file", unit(File::create(root.join("new.txt"))));
    rep(
        "create_new_file",
        unit(
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(root.join("new2.txt")),
        ),
    );
    rep(
        "open_existing_write",
        unit(OpenOptions::new().write(true).open(&e)),
    );
    rep(
        "open_existing_append",
        unit(OpenOptions::new().append(true).open(&e)),
    );
    rep(
        "open_existing_truncate",
        unit(OpenOptions::new().write(true).truncate(true).open(&e)),
    );
    rep(
        "write_via_read_handle",
        (|| {
            let mut f = File::open(&e)?;
            f.write(b"x")
        })(),
    );
    rep(
        "set_len_via_read_handle",
        unit(File::open(&e).and_then(|f| f.set_len(0))),
    );
    rep("remove_existing", unit(fs::remove_file(&e)));
    rep(
        "rename_existing",
        unit(fs::rename(&e, root.join("renamed.txt"))),
    );
    rep("mkdir", unit(fs::create_dir(root.join("newdir"))));
    if plat::HAS_SYMLINK {
        rep(
            "symlink",
            unit(plat::symlink("existing.txt", root.join("ln"))),
        );
    } else {
        println!("symlink: unsupported");
    }
    rep("read_existing_again", readq(&e));
    rep("list_root_again", list_sorted(root));
}

// ---------------------------------------------------------------- quota

/// Write 1 MiB chunks into `<root>/big.bin` until an error (or `max_mib`).
pub fn quota(root: &Path, max_mib: u64) {
    const MIB: usize = 1 << 20;
    let p = root.join("big.bin");
    let chunk = vec![0xA5u8; MIB];
    let mut f = match File::create(&p) {
        Ok(f) => f,
        Err(e) => {
            rep::<u8>("quota_open", Err(e));
            return;
        }
    };
    let mut done = 0u64;
    let mut err = None;
    while done < max_mib {
        match f.write_all(&chunk) {
            Ok(()) => done += 1,
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    match err {
        Some(e) => println!("quota: err {} after {done} MiB", kind_name(&e)),
        None => println!("quota: ok cap reached after {done} MiB"),
    }
    rep(
        "quota_len_floor_mib",
        f.metadata().map(|m| m.len() / MIB as u64),
    );
    drop(f);
    rep("quota_remove", unit(fs::remove_file(&p)));
    rep(
        "quota_small_write_after_remove",
        unit(write_file(&root.join("small.txt"), b"ok")),
    );
    rep("quota_read_small", readq(&root.join("small.txt")));
    let _ = fs::remove_file(root.join("small.txt"));
}
