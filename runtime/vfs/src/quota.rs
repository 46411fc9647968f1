//! Resource limits and usage counters.

/// Limits on the size of a [`crate::Vfs`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Quota {
    /// Maximum sum of file lengths and symlink target lengths.
    pub max_bytes: u64,
    /// Maximum number of live inodes, including the root and open orphans.
    pub max_inodes: u64,
    /// Maximum nesting of directories below the root (the root's children are at depth 1).
    pub max_depth: u32,
}

impl Default for Quota {
    fn default() -> Self {
        Self {
            max_bytes: u64::MAX,
            max_inodes: u64::MAX,
            max_depth: u32::MAX,
        }
    }
}

/// How many operations each limit of the [`Quota`] refused (not hashed; carried by forks).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Refusals {
    /// Growths refused by the byte quota or the maximum file size.
    pub bytes: u64,
    /// Creations refused by the inode quota.
    pub inodes: u64,
    /// Directory creations or moves refused by the depth limit.
    pub depth: u64,
}

/// Resources currently used by a [`crate::Vfs`] (or added by an import).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Usage {
    /// Sum of file lengths and symlink target lengths.
    pub bytes: u64,
    /// Number of live inodes, including the root and open orphans.
    pub inodes: u64,
}
