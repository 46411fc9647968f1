//! Resource limits and usage counters.

/// Limits on the size of a [`crate::Vfs`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Quota {
    /// Maximum sum of file lengths and symlink target lengths.
    pub max_bytes: u64,
    /// Maximum number of live inodes, including the root and open orphans.
    pub max_inodes: u64,
}

impl Default for Quota {
    fn default() -> Self {
        Self {
            max_bytes: u64::MAX,
            max_inodes: u64::MAX,
        }
    }
}

/// Resources currently used by a [`crate::Vfs`] (or added by an import).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Usage {
    /// Sum of file lengths and symlink target lengths.
    pub bytes: u64,
    /// Number of live inodes, including the root and open orphans.
    pub inodes: u64,
}
