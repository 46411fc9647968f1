//! Persistent, copy-on-write, in-memory filesystem for clawrun sandboxes.
//!
//! A [`Vfs`] is a table of inodes stored in persistent maps, so [`Vfs::fork`] is O(1) and a fork
//! shares every unchanged directory, file chunk and symlink with its origin. Everything observable
//! (inode numbers, listings, hashes, diffs) is a pure function of the operation sequence: no wall
//! clock, randomness, hash-map order or host path leaks in. Time is virtual and set by the host
//! through [`Vfs::set_now`].
//!
//! # Content hash (stable format)
//!
//! Every node has a blake3 content hash; [`Vfs::root_hash`] is the hash of the root directory.
//! Timestamps, inode numbers and link counts are not hashed, so equal trees (same names, kinds,
//! contents and modes) have equal hashes regardless of history. The encoding is:
//!
//! * file: `blake3("clawrun-vfs/file\0" || len as u64 LE || H(chunk_0) || H(chunk_1) || ...)`
//!   where the content is split into chunks of exactly [`CHUNK_SIZE`] bytes except the last
//!   (an empty file has no chunks) and `H(chunk)` is the 32-byte blake3 hash of the chunk bytes;
//! * symlink: `blake3("clawrun-vfs/symlink\0" || target bytes)`;
//! * directory: `blake3("clawrun-vfs/dir\0" || entry...)` with, for each entry in ascending
//!   byte order of names: `name len as u32 LE || name bytes || kind byte (0 file, 1 directory,
//!   2 symlink) || mode as u32 LE || child hash (32 bytes)`.
//!
//! The mode of a node is hashed in its parent's entry, so the mode of the root is not part of
//! [`Vfs::root_hash`] (it is still reported by [`Vfs::diff`]).
//!
//! Hashes are cached per inode and invalidated along every parent chain on mutation, so
//! re-hashing after a small change only recomputes the changed paths.

#![warn(missing_docs)]

mod content;
mod diff;
mod error;
mod file;
mod hash;
mod host;
mod node;
mod path;
mod quota;
mod tree;

pub use blake3::Hash;
pub use content::{CHUNK_SIZE, MAX_FILE_SIZE};
pub use diff::{Change, ChangeKind};
pub use error::{Result, VfsError};
pub use node::{Ino, Metadata, NodeKind, Timestamp};
pub use quota::{Quota, Refusals, Usage};
pub use tree::Vfs;
