//! Starting Chromium: which executable, which flags (each one pinned for determinism or
//! isolation, see README.md), a pinned font set, the pipe on fds 3 and 4.

use std::io::{PipeReader, PipeWriter};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::error::BrowserError;

/// Where Chromium is looked for when `CLAWRUN_CHROMIUM` is not set.
const CANDIDATES: [&str; 3] = [
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
];

/// The font folders the browser may use: Debian's DejaVu and Liberation (`fonts-dejavu-core`,
/// `fonts-liberation`); nothing else installed on the machine is seen.
pub const FONT_DIRS: [&str; 2] = [
    "/usr/share/fonts/truetype/dejavu",
    "/usr/share/fonts/truetype/liberation",
];

/// The flags of every browser clawrun starts, besides the profile folder.
pub const FLAGS: &[&str] = &[
    "--headless",
    "--remote-debugging-pipe",
    // Root in CI and containers; the page is confined by request interception and the
    // closed proxy below, not by Chromium's own sandbox.
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--disable-breakpad",
    "--disable-domain-reliability",
    "--metrics-recording-only",
    "--mute-audio",
    "--hide-scrollbars",
    // Pixels: no hinting, no subpixel text, sRGB, scale 1.
    "--font-render-hinting=none",
    "--disable-font-subpixel-positioning",
    "--disable-lcd-text",
    "--force-color-profile=srgb",
    "--force-device-scale-factor=1",
    // Frames: everything drawn on the main thread, in step with virtual time.
    "--run-all-compositor-stages-before-draw",
    "--disable-threaded-animation",
    "--disable-threaded-scrolling",
    "--disable-checker-imaging",
    "--disable-image-animation-resync",
    "--disable-new-content-rendering-timeout",
    "--disable-features=PaintHolding,Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,InterestFeedContentSuggestions,CalculateNativeWinOcclusion,BackForwardCache",
    // Belt and braces under request interception: whatever escapes it (a WebSocket, a
    // prefetch) goes to a proxy on a closed loopback port, loopback included, and WebRTC
    // sends nothing unproxied.
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--host-resolver-rules=MAP * ~NOTFOUND",
];

/// The Chromium to start: `CLAWRUN_CHROMIUM`, else the first of the usual paths that exists.
pub fn find_chromium() -> Result<PathBuf, BrowserError> {
    if let Some(p) = std::env::var_os("CLAWRUN_CHROMIUM") {
        return Ok(PathBuf::from(p));
    }
    CANDIDATES
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .ok_or_else(|| BrowserError::NotFound {
            tried: CANDIDATES.join(", "),
        })
}

/// The fontconfig file that limits the browser to [`FONT_DIRS`], unhinted, greyscale (its
/// cache in `cache`).
pub fn fontconfig(cache: &Path) -> String {
    let dirs: String = FONT_DIRS
        .iter()
        .map(|d| format!("  <dir>{d}</dir>\n"))
        .collect();
    format!(
        "<?xml version=\"1.0\"?>\n<!DOCTYPE fontconfig SYSTEM \"fonts.dtd\">\n<fontconfig>\n{dirs}  \
         <cachedir>{}</cachedir>\n  <match target=\"font\">\n    \
         <edit name=\"hinting\" mode=\"assign\"><bool>false</bool></edit>\n    \
         <edit name=\"antialias\" mode=\"assign\"><bool>true</bool></edit>\n    \
         <edit name=\"rgba\" mode=\"assign\"><const>none</const></edit>\n    \
         <edit name=\"embeddedbitmap\" mode=\"assign\"><bool>false</bool></edit>\n  \
         </match>\n</fontconfig>\n",
        cache.display()
    )
}

/// A started browser: the process, and the two ends of its pipe.
pub(crate) struct Launched {
    pub child: Child,
    pub to_browser: PipeWriter,
    pub from_browser: PipeReader,
}

/// Starts `exe` headless with its profile under `dir`, the pipe on its fds 3 and 4, the script
/// heap of each page limited to `heap_mib`.
pub(crate) fn launch(exe: &Path, dir: &Path, heap_mib: u64) -> Result<Launched, BrowserError> {
    let io = |source| BrowserError::Launch {
        exe: exe.display().to_string(),
        source,
    };
    let fonts = dir.join("fonts.conf");
    std::fs::create_dir_all(dir.join("fontcache")).map_err(io)?;
    std::fs::write(&fonts, fontconfig(&dir.join("fontcache"))).map_err(io)?;
    let (browser_reads, to_browser) = std::io::pipe().map_err(io)?;
    let (from_browser, browser_writes) = std::io::pipe().map_err(io)?;
    // Above 4, so that dup2 onto 3 and 4 never meets one of them (std's pipes are CLOEXEC;
    // dup2 clears it on the copy).
    let high = |fd: OwnedFd| -> std::io::Result<OwnedFd> { high_fd(fd) };
    let browser_reads = high(browser_reads.into()).map_err(io)?;
    let browser_writes = high(browser_writes.into()).map_err(io)?;
    let (r, w) = (browser_reads.as_raw_fd(), browser_writes.as_raw_fd());
    let mut cmd = Command::new(exe);
    cmd.args(FLAGS)
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--js-flags=--max-old-space-size={heap_mib}"))
        .arg("about:blank")
        .env("FONTCONFIG_FILE", &fonts)
        .env("TZ", "UTC")
        .env("LANG", "en_US.UTF-8")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: only dup2, async-signal-safe, between fork and exec. (No PR_SET_PDEATHSIG: it
    // follows the thread that started the browser, not the process; the browser ends by
    // itself when its pipe closes, which the kernel does when this process dies.)
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd.spawn().map_err(io)?;
    drop(browser_reads);
    drop(browser_writes);
    Ok(Launched {
        child,
        to_browser,
        from_browser,
    })
}

/// `fd` moved to a number above 4, close-on-exec.
fn high_fd(fd: OwnedFd) -> std::io::Result<OwnedFd> {
    use std::os::fd::FromRawFd;
    // SAFETY: fcntl on a descriptor we own; the new one is owned by the returned value.
    let new = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
    if new < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `new` is a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(new) })
}
