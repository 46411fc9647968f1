//! Data and attribute operations on individual inodes.

use crate::{
    content::{FileContent, MAX_FILE_SIZE},
    error::{Result, VfsError},
    node::{Ino, MODE_MASK, NodeData, Timestamp},
    tree::Vfs,
};

impl Vfs {
    /// Reads from `offset` into `buf`; returns the byte count (0 at or after EOF).
    pub fn read(&self, file: Ino, offset: u64, buf: &mut [u8]) -> Result<usize> {
        Ok(self.content(file)?.read(offset, buf))
    }

    /// Reads up to `max` bytes from `offset`.
    pub fn read_to_vec(&self, file: Ino, offset: u64, max: usize) -> Result<Vec<u8>> {
        let content = self.content(file)?;
        let left = content.len().saturating_sub(offset);
        let n = usize::try_from(left).map_or(max, |left| left.min(max));
        let mut buf = vec![0; n];
        let read = content.read(offset, &mut buf);
        buf.truncate(read);
        Ok(buf)
    }

    /// Writes `data` at `offset`, zero-filling any gap past EOF.
    pub fn write(&mut self, file: Ino, offset: u64, data: &[u8]) -> Result<()> {
        let old = self.content(file)?.len();
        if data.is_empty() {
            return Ok(());
        }
        let end = offset
            .checked_add(data.len() as u64)
            .filter(|&end| end <= MAX_FILE_SIZE)
            .ok_or(VfsError::NoSpace)?;
        let new = old.max(end);
        self.check_bytes(old, new)?;
        self.modify_content(file, |c| c.write(offset, data));
        self.account_bytes(old, new);
        Ok(())
    }

    /// Appends `data` at EOF; returns the new length.
    pub fn append(&mut self, file: Ino, data: &[u8]) -> Result<u64> {
        let len = self.content(file)?.len();
        self.write(file, len, data)?;
        Ok(len + data.len() as u64)
    }

    /// Truncates or zero-extends `file` to `len` bytes.
    pub fn set_len(&mut self, file: Ino, len: u64) -> Result<()> {
        let old = self.content(file)?.len();
        if len > MAX_FILE_SIZE {
            return Err(VfsError::NoSpace);
        }
        self.check_bytes(old, len)?;
        self.modify_content(file, |c| c.set_len(len));
        self.account_bytes(old, len);
        Ok(())
    }

    /// Sets the given access and/or modification times (and stamps ctime).
    pub fn set_times(
        &mut self,
        ino: Ino,
        atime: Option<Timestamp>,
        mtime: Option<Timestamp>,
    ) -> Result<()> {
        self.node(ino)?;
        let now = self.now;
        let node = self.node_mut(ino);
        if let Some(atime) = atime {
            node.atime = atime;
        }
        if let Some(mtime) = mtime {
            node.mtime = mtime;
        }
        node.ctime = now;
        Ok(())
    }

    /// Sets the permission bits (masked to `0o7777`).
    pub fn set_mode(&mut self, ino: Ino, mode: u32) -> Result<()> {
        self.node(ino)?;
        let mode = mode & MODE_MASK;
        let now = self.now;
        let node = self.node_mut(ino);
        node.mode = mode;
        node.ctime = now;
        // The mode is hashed in the parents' entries, not in the node's own hash.
        for (parent, name) in self.parent_links(ino) {
            if let Some(entry) = self.dir_mut(parent).entries.get_mut(&name) {
                entry.mode = mode;
            }
            self.invalidate(parent);
        }
        Ok(())
    }

    /// The target of symlink `link` (`InvalidArgument` for other kinds).
    pub fn readlink(&self, link: Ino) -> Result<String> {
        match &self.node(link)?.data {
            NodeData::Symlink(target) => Ok(target.to_string()),
            _ => Err(VfsError::InvalidArgument("not a symbolic link")),
        }
    }

    /// The content of regular file `file` (`IsDir` for dirs, `InvalidArgument` for symlinks).
    pub(crate) fn content(&self, file: Ino) -> Result<&FileContent> {
        match &self.node(file)?.data {
            NodeData::File(content) => Ok(content),
            NodeData::Dir(_) => Err(VfsError::IsDir),
            NodeData::Symlink(_) => Err(VfsError::InvalidArgument("not a regular file")),
        }
    }

    /// Replaces the whole content of regular file `file` with `data`.
    pub(crate) fn replace_content(&mut self, file: Ino, data: &[u8]) -> Result<()> {
        let old = self.content(file)?.len();
        let new = data.len() as u64;
        if new > MAX_FILE_SIZE {
            return Err(VfsError::NoSpace);
        }
        self.check_bytes(old, new)?;
        self.modify_content(file, |c| *c = FileContent::from_bytes(data));
        self.account_bytes(old, new);
        Ok(())
    }

    /// Applies `f` to the content of an existing regular file, stamping and invalidating it.
    fn modify_content(&mut self, file: Ino, f: impl FnOnce(&mut FileContent)) {
        let now = self.now;
        let node = self.node_mut(file);
        if let NodeData::File(content) = &mut node.data {
            f(content);
        }
        node.mtime = now;
        node.ctime = now;
        self.invalidate(file);
    }
}
