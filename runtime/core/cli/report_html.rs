//! The HTML report of a run: one self-contained page for short runs; for long ones a page
//! holding an index of the trials and their scripts beside it, 64 trials per file. Both are
//! written with memory that does not grow with the run: the trial list and data are spilled to
//! a file in journal order and copied into the page in viewer order.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clawrun_report::render::html::viewer::{self, Facets};
use clawrun_report::render::html::{page_between_list_and_data, page_end, report_page_start};
use clawrun_report::{Sourced, Summary, Timings, TrialView};

use super::report::{latest_records, views};

/// Runs with more trials than this get an HTML report that does not embed them: each trial is
/// a script in a folder beside the page (`report.trials/` for `report.html`), loaded when
/// shown, so writing the report and opening it take memory for an index, not for every trace.
pub const EMBEDDED_TRIALS: usize = 1_000;

/// Trials per script file of a long run (in journal order): the viewer loads a trial's file
/// when the trial is shown, and with it the others in the file. One file per trial made
/// writing the report of a long run mostly file creation.
const TRIALS_PER_SCRIPT: usize = 64;

/// Trials rendered at once for a page that embeds them (each kept whole until it is spilled).
const EMBEDDED_BATCH: usize = 16;

/// Writes the HTML report of `summary` over `runs` to `html`: self-contained up to
/// [`EMBEDDED_TRIALS`] trials, else with the trials in a folder beside it.
pub fn write_html(
    html: &Path,
    summary: &Summary,
    runs: &[PathBuf],
    timings: &Timings,
) -> Result<()> {
    let folder_name = format!(
        "{}.trials",
        html.file_stem()
            .map_or("report".into(), |s| s.to_string_lossy())
    );
    let folder = html.with_file_name(&folder_name);
    // A long run's trial scripts are written into a staging folder of this process's own and
    // put in place with the page at the end: a report being rewritten (by several shards of
    // one folder, say) never shows a half-written or another process's folder.
    let staging = html.with_file_name(format!(".{folder_name}.{}.tmp", std::process::id()));
    let _staging = RemovedOnDrop(staging.clone());
    let mut facets = Facets::default();
    for r in latest_records(runs)? {
        let (_, s) = r?;
        facets.add(&s.record.task_id, &s.record.category, None);
    }
    // A short run's page embeds every trial; a long run's gets a script per trial beside it.
    // Either way the list and index go through a spill file, so memory does not grow with
    // the trials.
    let embedded = facets.count <= EMBEDDED_TRIALS;
    let spill_path = if embedded {
        let name = html
            .file_name()
            .map_or("report.html".into(), |n| n.to_string_lossy());
        html.with_file_name(format!(".{name}.{}.index.tmp", std::process::id()))
    } else {
        std::fs::create_dir_all(&staging)
            .with_context(|| format!("creating {}", staging.display()))?;
        staging.join(".index.tmp")
    };
    let mut index = SpilledIndex::create(&spill_path)?;
    // Removed however this ends (a missing trace stops the report).
    let _spill = RemovedOnDrop(spill_path);
    // Trials are read in chunks (a script file's worth for a long run) and rendered by one
    // worker per core, started once: threads started per batch would leave a heap each
    // behind in the allocator.
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let chunk_size = if embedded {
        EMBEDDED_BATCH
    } else {
        TRIALS_PER_SCRIPT
    };
    let render = |chunk: &[Numbered]| -> Result<Vec<TrialView>> {
        if embedded {
            chunk
                .iter()
                .map(|(_, trial)| full_view(trial, timings))
                .collect()
        } else {
            write_trial_scripts(&staging, &folder_name, chunk, timings)
        }
    };
    let records = latest_records(runs)?.enumerate();
    let mut chunks = Chunks {
        records,
        size: chunk_size,
    };
    in_order_on_workers(cores, &mut chunks, render, |views| {
        views.iter().try_for_each(|view| index.push(view))
    })?;
    let page = index.write_page(html, &report_page_start(summary, &facets))?;
    drop(_spill);
    // The old folder is renamed away whole (atomic, unlike removing it while another writer
    // puts its own in place) and removed; the new one takes its place, then the page. A folder
    // another writer put in place meanwhile is set aside once more.
    let publish = || -> std::io::Result<()> {
        let mut attempt = 0;
        loop {
            let aside = html.with_file_name(format!(
                ".{folder_name}.{}.{attempt}.old",
                std::process::id()
            ));
            match std::fs::rename(&folder, &aside) {
                Ok(()) => std::fs::remove_dir_all(&aside)?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            if embedded {
                return Ok(());
            }
            match std::fs::rename(&staging, &folder) {
                Ok(()) => return Ok(()),
                Err(_) if folder.exists() && attempt < 8 => attempt += 1,
                Err(e) => return Err(e),
            }
        }
    };
    publish()
        .and_then(|()| std::fs::rename(&page, html))
        .with_context(|| {
            format!(
                "putting {} and {} in place",
                folder.display(),
                html.display()
            )
        })
}

/// A trial's record (with its run folder), numbered by its place in journal order.
type Numbered = (usize, (PathBuf, Sourced));

/// Records in journal order, numbered, in chunks of `size` (the first error ends them).
struct Chunks<I> {
    records: I,
    size: usize,
}

impl<I: Iterator<Item = (usize, Result<(PathBuf, Sourced)>)>> Chunks<I> {
    /// The next chunk (`None` after the last).
    fn next_chunk(&mut self) -> Result<Option<Vec<Numbered>>> {
        let mut chunk = Vec::with_capacity(self.size);
        for (n, r) in self.records.by_ref() {
            chunk.push((n, r?));
            if chunk.len() == self.size {
                break;
            }
        }
        Ok((!chunk.is_empty()).then_some(chunk))
    }
}

/// Renders `chunks` on `workers` threads (started once) with `render` and hands each result
/// to `take` in chunk order, holding at most two chunks per worker at a time.
fn in_order_on_workers<I, R, T>(
    workers: usize,
    chunks: &mut Chunks<I>,
    render: R,
    mut take: impl FnMut(T) -> Result<()>,
) -> Result<()>
where
    I: Iterator<Item = (usize, Result<(PathBuf, Sourced)>)>,
    R: Fn(&[Numbered]) -> Result<T> + Sync,
    T: Send,
{
    use std::sync::mpsc::{channel, sync_channel};
    use std::sync::{Arc, Mutex};
    std::thread::scope(|scope| {
        let (job_tx, job_rx) = sync_channel::<(u64, Vec<Numbered>)>(workers);
        let job_rx = Arc::new(Mutex::new(job_rx));
        let (done_tx, done_rx) = channel::<(u64, Result<T>)>();
        for _ in 0..workers {
            let (job_rx, done_tx, render) = (Arc::clone(&job_rx), done_tx.clone(), &render);
            scope.spawn(move || {
                loop {
                    let job = job_rx.lock().expect("a report worker panicked").recv();
                    let Ok((seq, chunk)) = job else { break };
                    if done_tx.send((seq, render(&chunk))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        // Results that arrived before their turn, by chunk number.
        let mut early: BTreeMap<u64, Result<T>> = BTreeMap::new();
        let (mut sent, mut taken) = (0u64, 0u64);
        let mut take_ready = |early: &mut BTreeMap<u64, Result<T>>, taken: &mut u64| {
            while let Some(result) = early.remove(taken) {
                take(result?)?;
                *taken += 1;
            }
            Ok::<(), anyhow::Error>(())
        };
        let read = loop {
            // At most 2 × workers chunks in flight: wait for the oldest before reading on.
            while sent - taken >= 2 * workers as u64 {
                let (seq, result) = done_rx.recv().expect("workers outlive the jobs");
                early.insert(seq, result);
                take_ready(&mut early, &mut taken)?;
            }
            match chunks.next_chunk() {
                Ok(Some(chunk)) => {
                    job_tx
                        .send((sent, chunk))
                        .expect("workers outlive the jobs");
                    sent += 1;
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        drop(job_tx);
        for (seq, result) in done_rx {
            early.insert(seq, result);
            take_ready(&mut early, &mut taken)?;
        }
        read
    })
}

/// A file removed when this is dropped.
struct RemovedOnDrop(PathBuf);

impl Drop for RemovedOnDrop {
    fn drop(&mut self) {
        // A file, or a staging folder that was not put in place.
        if std::fs::remove_file(&self.0).is_err() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A trial's whole view (embedded in a short run's page).
fn full_view(trial: &(PathBuf, Sourced), timings: &Timings) -> Result<TrialView> {
    Ok(views(std::slice::from_ref(trial), timings, None)?
        .pop()
        .expect("one view per record"))
}

/// Writes the scripts of `trials` (each with its place `n` in journal order; whole script
/// files of [`TRIALS_PER_SCRIPT`] trials) into `folder` (named `folder_name` beside the page)
/// and returns their index entries. Trial `n` is in file `n / TRIALS_PER_SCRIPT`, and its
/// `src` is `FOLDER/FILE.js#n`: the file to load, and the key its script hands the trial over
/// with.
fn write_trial_scripts(
    folder: &Path,
    folder_name: &str,
    trials: &[Numbered],
    timings: &Timings,
) -> Result<Vec<TrialView>> {
    let mut views = Vec::with_capacity(trials.len());
    // The open script file: its path and writer.
    let mut script: Option<(PathBuf, BufWriter<File>)> = None;
    for (i, (n, trial)) in trials.iter().enumerate() {
        let file_number = n / TRIALS_PER_SCRIPT;
        let mut view = full_view(trial, timings)?;
        let src = format!("{folder_name}/{file_number}.js#{n}");
        if script.is_none() {
            let path = folder.join(format!("{file_number}.js"));
            let file =
                File::create(&path).with_context(|| format!("creating {}", path.display()))?;
            script = Some((path, BufWriter::new(file)));
        }
        let (path, out) = script.as_mut().expect("opened above");
        out.write_all(clawrun_report::trial_script(&src, &view).as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        view.events = Vec::new();
        view.diff = None;
        view.record = view.record.for_summary();
        view.src = Some(src);
        views.push(view);
        let last_of_file = trials
            .get(i + 1)
            .is_none_or(|(next, _)| next / TRIALS_PER_SCRIPT != file_number);
        if last_of_file {
            let (path, out) = script.take().expect("opened above");
            out.into_inner()
                .map_err(|e| e.into_error())
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(views)
}

/// The page's trial list and index, spilled to a file as trials arrive (in journal order) and
/// copied into the page in viewer order (task, then trial): what stays in memory is 24 bytes
/// per trial.
struct SpilledIndex {
    /// The spill file: each trial's list item body, then its data entry.
    file: BufWriter<File>,
    /// Its path, for errors.
    path: PathBuf,
    /// Bytes written so far.
    len: u64,
    /// Each trial's place in the viewer order and in the file.
    entries: Vec<Spilled>,
    /// The task ids seen, each with its number in `entries`.
    tasks: BTreeMap<String, u32>,
}

/// Where one trial's index entry is in the spill file.
struct Spilled {
    /// Its task (a number in [`SpilledIndex::tasks`]).
    task: u32,
    /// Its trial index.
    trial: u32,
    /// Where its list item body starts.
    offset: u64,
    /// The item body's length, then the data entry's.
    item_len: u32,
    data_len: u32,
}

impl SpilledIndex {
    /// A new spill file at `path`.
    fn create(path: &Path) -> Result<SpilledIndex> {
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .with_context(|| format!("creating {}", path.display()))?;
        Ok(SpilledIndex {
            file: BufWriter::new(file),
            path: path.to_path_buf(),
            len: 0,
            entries: Vec::new(),
            tasks: BTreeMap::new(),
        })
    }

    /// Spills `view`'s list item and data entry.
    fn push(&mut self, view: &TrialView) -> Result<()> {
        let item = viewer::list_item_body(view);
        let data = viewer::data_entry(view);
        let next = self.tasks.len() as u32;
        let task = match self.tasks.get(&view.record.task_id) {
            Some(&task) => task,
            None => *self
                .tasks
                .entry(view.record.task_id.clone())
                .or_insert(next),
        };
        self.file
            .write_all(item.as_bytes())
            .and_then(|()| self.file.write_all(data.as_bytes()))
            .with_context(|| format!("writing {}", self.path.display()))?;
        self.entries.push(Spilled {
            task,
            trial: view.record.trial,
            offset: self.len,
            item_len: u32::try_from(item.len()).context("a trial's list item over 4 GiB")?,
            data_len: u32::try_from(data.len()).context("a trial's index entry over 4 GiB")?,
        });
        self.len += (item.len() + data.len()) as u64;
        Ok(())
    }

    /// Writes the page for `html` (to a temporary file beside it, whose path is returned, for
    /// the caller to rename into place): `start`, the list items and the data entries in
    /// viewer order, and the page's end.
    fn write_page(mut self, html: &Path, start: &str) -> Result<PathBuf> {
        // Viewer order: task ids as strings, then trial numbers (the journal's order is
        // arrival order).
        let mut rank = vec![0u32; self.tasks.len()];
        for (position, &task) in self.tasks.values().enumerate() {
            rank[task as usize] = position as u32;
        }
        self.entries
            .sort_by_key(|e| (rank[e.task as usize], e.trial));
        let mut spill = self
            .file
            .into_inner()
            .map_err(|e| e.into_error())
            .with_context(|| format!("writing {}", self.path.display()))?;
        // Written beside the page and renamed over it at the end, so that a crash meanwhile
        // leaves the old page or the new one, never a torn one.
        let tmp = super::report::temporary_beside(html);
        let page = File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
        let mut page = BufWriter::new(page);
        let mut buf = Vec::new();
        // Copies one spilled range into the page.
        let mut copy = |page: &mut BufWriter<File>, offset: u64, len: u32| {
            buf.resize(len as usize, 0);
            spill.seek(SeekFrom::Start(offset))?;
            spill.read_exact(&mut buf)?;
            page.write_all(&buf)
        };
        let mut written = || -> std::io::Result<()> {
            page.write_all(start.as_bytes())?;
            for (i, e) in self.entries.iter().enumerate() {
                page.write_all(viewer::list_item_start(i).as_bytes())?;
                copy(&mut page, e.offset, e.item_len)?;
            }
            page.write_all(page_between_list_and_data().as_bytes())?;
            for (i, e) in self.entries.iter().enumerate() {
                if i > 0 {
                    page.write_all(b",")?;
                }
                copy(&mut page, e.offset + u64::from(e.item_len), e.data_len)?;
            }
            page.write_all(page_end().as_bytes())?;
            page.flush()
        };
        written()
            .with_context(|| format!("writing {} from {}", tmp.display(), self.path.display()))?;
        Ok(tmp)
    }
}
