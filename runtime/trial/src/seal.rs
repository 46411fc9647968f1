//! The Judge phase's seal: judge files enter through paths the agent cannot have shaped, and
//! links the agent planted towards them are reported as tampering.
//!
//! The rule (documented in the README):
//! - `/judge` belongs to the judge. Whatever the agent left there (files, folders, symlinks, a
//!   file named `judge`) is removed before the judge folder is placed.
//! - Every judge file (the judge folder, `sandbox_grader_files`) is written without following
//!   any symlink: a file or symlink on its path is replaced by a folder, whatever sits at its
//!   name is replaced by the file. Folders the agent made on the way are kept.
//! - The agent's quota does not apply: judge files always fit.
//! - A symlink anywhere outside `/judge` that leads to a judge file or into `/judge` once they
//!   are placed (a link planted during Execution so that a judge command or file check reads the
//!   judge's own file) is tampering: the trial's integrity gate fails and the score is 0.

use std::collections::BTreeSet;

use clawrun_vfs::{Ino, NodeKind, Quota, Vfs};

/// The folder reserved for the judge.
pub const JUDGE_ROOT: &str = "/judge";

/// Places `files` (absolute guest paths) into `vfs` by the seal's rule; returns the placed
/// files' inodes. An error means a task's file cannot be placed at all (a bad name): the task's
/// fault, never the agent's.
pub fn place_judge_files(
    vfs: &mut Vfs,
    files: &[(String, std::sync::Arc<[u8]>)],
) -> clawrun_vfs::Result<BTreeSet<Ino>> {
    vfs.set_quota(Quota::default());
    let root = vfs.root();
    let judge_name = JUDGE_ROOT.trim_start_matches('/');
    if vfs.lookup(root, judge_name).is_ok() {
        vfs.remove_entry(root, judge_name)?;
    }
    let mut placed = BTreeSet::new();
    for (path, bytes) in files {
        placed.insert(vfs.replace_file(path, bytes)?);
    }
    Ok(placed)
}

/// Path components the tampering check may visit over all of the agent's symlinks: far above
/// any honest workspace (50,000 links of 200 components), far below a slow Judge phase.
pub const LINK_CHECK_BUDGET: u64 = 10_000_000;

/// The symlinks outside `/judge` that resolve to one of `judge_files` or into `/judge`, each
/// described as `link -> target`, sorted by path. Links too tangled to check within
/// [`LINK_CHECK_BUDGET`] are tampering too.
pub fn links_into_judge(vfs: &Vfs, judge_files: &BTreeSet<Ino>) -> Vec<String> {
    let judge_dir = vfs
        .resolve_nofollow(JUDGE_ROOT)
        .ok()
        .filter(|&ino| vfs.kind(ino).ok() == Some(NodeKind::Directory));
    // Most tasks bring no judge files: then there is nothing to lead to, and no walk.
    if judge_files.is_empty() && judge_dir.is_none() {
        return Vec::new();
    }
    let Ok(entries) = vfs.walk("/") else {
        return Vec::new();
    };
    let inside = format!("{JUDGE_ROOT}/");
    let mut budget = LINK_CHECK_BUDGET;
    let mut found: Vec<String> = entries
        .into_iter()
        .filter(|(path, _, kind)| *kind == NodeKind::Symlink && !path.starts_with(&inside))
        .filter_map(|(path, link, _)| {
            if budget == 0 {
                return None;
            }
            let target = vfs.resolve_metered(&path, &mut budget).ok()?;
            let hits_file = judge_files.contains(&target);
            // Every file under /judge is a judge file, so a folder is the other way in.
            let hits_dir = judge_dir.is_some_and(|dir| {
                vfs.kind(target).ok() == Some(NodeKind::Directory) && vfs.is_ancestor(dir, target)
            });
            (hits_file || hits_dir).then(|| {
                let to = vfs.readlink(link).unwrap_or_default();
                format!("{path} -> {to}")
            })
        })
        .collect();
    if budget == 0 {
        found.push(format!(
            "the agent's symlinks are too tangled to check ({LINK_CHECK_BUDGET} path steps)"
        ));
    }
    found
}
