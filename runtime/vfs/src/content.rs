//! Chunked, copy-on-write file content.
//!
//! Content is a persistent vector of shared 64 KiB chunks. Every chunk is exactly
//! [`CHUNK_SIZE`] bytes except the last, which holds 1..=`CHUNK_SIZE` bytes; an empty file has
//! no chunks. This layout is restored after every mutation, so equal contents always have equal
//! chunk lists (and equal hashes). Mutating a chunk clones it only if it is shared.

use std::{
    fmt,
    sync::{Arc, LazyLock, OnceLock},
};

use imbl::Vector;

/// Size of a file content chunk in bytes.
pub const CHUNK_SIZE: usize = 65536;

/// Largest supported file length (1 TiB); longer files fail with [`crate::VfsError::NoSpace`].
pub const MAX_FILE_SIZE: u64 = 1 << 40;

const CHUNK: u64 = CHUNK_SIZE as u64;

/// One chunk of file data with its lazily computed blake3 hash.
pub(crate) struct Chunk {
    data: Vec<u8>,
    hash: OnceLock<blake3::Hash>,
}

impl Chunk {
    fn new(data: Vec<u8>) -> Self {
        Self {
            data,
            hash: OnceLock::new(),
        }
    }

    /// The chunk bytes.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// blake3 of the chunk bytes (computed once).
    fn hash(&self) -> blake3::Hash {
        *self.hash.get_or_init(|| blake3::hash(&self.data))
    }

    /// Mutable access to the bytes; forgets the cached hash.
    fn data_mut(&mut self) -> &mut Vec<u8> {
        self.hash = OnceLock::new();
        &mut self.data
    }
}

impl Clone for Chunk {
    fn clone(&self) -> Self {
        Self {
            data: self.data.clone(),
            hash: self.hash.clone(),
        }
    }
}

impl fmt::Debug for Chunk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Chunk")
            .field("len", &self.data.len())
            .finish()
    }
}

/// A full chunk of zeros shared by every sparse extension.
static ZERO_CHUNK: LazyLock<Arc<Chunk>> =
    LazyLock::new(|| Arc::new(Chunk::new(vec![0; CHUNK_SIZE])));

/// The content of a regular file.
#[derive(Clone, Default)]
pub(crate) struct FileContent {
    chunks: Vector<Arc<Chunk>>,
    len: u64,
}

impl fmt::Debug for FileContent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileContent")
            .field("len", &self.len)
            .field("chunks", &self.chunks.len())
            .finish()
    }
}

impl FileContent {
    /// Content holding exactly `data`.
    pub fn from_bytes(data: &[u8]) -> Self {
        let chunks = data
            .chunks(CHUNK_SIZE)
            .map(|c| Arc::new(Chunk::new(c.to_vec())))
            .collect();
        Self {
            chunks,
            len: data.len() as u64,
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The chunks in order.
    pub fn chunks(&self) -> impl Iterator<Item = &Arc<Chunk>> {
        self.chunks.iter()
    }

    /// Copies bytes from `offset` into `buf`; returns how many (0 at or after EOF).
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> usize {
        if offset >= self.len {
            return 0;
        }
        let n = usize::try_from(self.len - offset).map_or(buf.len(), |left| left.min(buf.len()));
        let mut done = 0;
        while done < n {
            let pos = offset + done as u64;
            let chunk = &self.chunks[(pos / CHUNK) as usize].data;
            let within = (pos % CHUNK) as usize;
            let take = (n - done).min(chunk.len() - within);
            buf[done..done + take].copy_from_slice(&chunk[within..within + take]);
            done += take;
        }
        n
    }

    /// Truncates or zero-extends to `len` bytes.
    pub fn set_len(&mut self, len: u64) {
        if len < self.len {
            self.chunks.truncate(len.div_ceil(CHUNK) as usize);
            let rem = (len % CHUNK) as usize;
            if rem != 0
                && let Some(last) = self.chunks.back_mut()
            {
                Arc::make_mut(last).data_mut().truncate(rem);
            }
        } else if len > self.len {
            let mut filled = self.len;
            let rem = (self.len % CHUNK) as usize;
            if rem != 0
                && let Some(last) = self.chunks.back_mut()
            {
                let add = (CHUNK_SIZE - rem).min((len - self.len) as usize);
                Arc::make_mut(last).data_mut().resize(rem + add, 0);
                filled += add as u64;
            }
            for _ in 0..(len - filled) / CHUNK {
                self.chunks.push_back(Arc::clone(&ZERO_CHUNK));
            }
            let tail = ((len - filled) % CHUNK) as usize;
            if tail != 0 {
                self.chunks.push_back(Arc::new(Chunk::new(vec![0; tail])));
            }
        }
        self.len = len;
    }

    /// Writes `data` at `offset`, zero-filling any gap past EOF. Copies only touched chunks.
    pub fn write(&mut self, offset: u64, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        let end = offset + data.len() as u64;
        if end > self.len {
            self.set_len(end);
        }
        let mut pos = offset;
        let mut src = data;
        while !src.is_empty() {
            let index = (pos / CHUNK) as usize;
            let within = (pos % CHUNK) as usize;
            let Some(slot) = self.chunks.get_mut(index) else {
                unreachable!("chunk {index} exists after extension");
            };
            let chunk_len = slot.data.len();
            let take = src.len().min(chunk_len - within);
            if within == 0 && take == chunk_len {
                *slot = Arc::new(Chunk::new(src[..take].to_vec()));
            } else {
                Arc::make_mut(slot).data_mut()[within..within + take].copy_from_slice(&src[..take]);
            }
            pos += take as u64;
            src = &src[take..];
        }
    }

    /// The file hash (see the crate docs for the encoding).
    pub fn hash(&self) -> blake3::Hash {
        const PREFIX: &[u8] = b"clawrun-vfs/file\0";
        let mut buf = Vec::with_capacity(PREFIX.len() + 8 + 32 * self.chunks.len());
        buf.extend_from_slice(PREFIX);
        buf.extend_from_slice(&self.len.to_le_bytes());
        for chunk in &self.chunks {
            buf.extend_from_slice(chunk.hash().as_bytes());
        }
        blake3::hash(&buf)
    }

    /// The chunk vector, for sharing checks in tests.
    #[cfg(test)]
    pub(crate) fn chunk_vec(&self) -> &Vector<Arc<Chunk>> {
        &self.chunks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_layout(c: &FileContent) {
        let lens: Vec<usize> = c.chunks.iter().map(|c| c.data.len()).collect();
        assert_eq!(lens.iter().sum::<usize>() as u64, c.len);
        if let Some((last, init)) = lens.split_last() {
            assert!(init.iter().all(|&l| l == CHUNK_SIZE));
            assert!((1..=CHUNK_SIZE).contains(last));
        }
    }

    fn contents(c: &FileContent) -> Vec<u8> {
        let mut buf = vec![0; c.len as usize + 3];
        let n = c.read(0, &mut buf);
        buf.truncate(n);
        buf
    }

    #[test]
    fn layout_is_normalised() {
        let mut model = Vec::new();
        let mut c = FileContent::default();
        let steps: [(u64, usize); 6] = [
            (CHUNK - 3, 10),
            (3 * CHUNK + 7, 1),
            (0, CHUNK_SIZE + 2),
            (5, 0),
            (2 * CHUNK, CHUNK_SIZE),
            (10, 3),
        ];
        for (i, (offset, len)) in steps.into_iter().enumerate() {
            let data: Vec<u8> = (0..len).map(|j| (i * 31 + j) as u8).collect();
            c.write(offset, &data);
            if !data.is_empty() {
                let end = offset as usize + len;
                if model.len() < end {
                    model.resize(end, 0);
                }
                model[offset as usize..end].copy_from_slice(&data);
            }
            check_layout(&c);
            assert_eq!(contents(&c), model);
            assert_eq!(c.hash(), FileContent::from_bytes(&model).hash());
        }
        for len in [2 * CHUNK + 1, 2 * CHUNK, CHUNK - 1, 0, CHUNK + 9, 5 * CHUNK] {
            c.set_len(len);
            model.resize(len as usize, 0);
            check_layout(&c);
            assert_eq!(contents(&c), model);
            assert_eq!(c.hash(), FileContent::from_bytes(&model).hash());
        }
    }

    #[test]
    fn partial_reads() {
        let data: Vec<u8> = (0..CHUNK_SIZE * 2 + 5).map(|i| i as u8).collect();
        let c = FileContent::from_bytes(&data);
        let mut buf = [0u8; 10];
        assert_eq!(c.read(CHUNK - 4, &mut buf), 10);
        assert_eq!(&buf, &data[CHUNK_SIZE - 4..CHUNK_SIZE + 6]);
        assert_eq!(c.read(data.len() as u64 - 3, &mut buf), 3);
        assert_eq!(c.read(data.len() as u64, &mut buf), 0);
        assert_eq!(c.read(u64::MAX, &mut buf), 0);
    }

    #[test]
    fn write_copies_only_touched_chunks() {
        let mut a = FileContent::default();
        a.set_len(100 * CHUNK + 17);
        a.write(0, &vec![7; CHUNK_SIZE * 100 + 17]);
        let mut b = a.clone();
        b.write(42 * CHUNK + 5, b"x");
        let (ca, cb) = (a.chunk_vec(), b.chunk_vec());
        assert_eq!(ca.len(), cb.len());
        let shared = ca
            .iter()
            .zip(cb.iter())
            .filter(|(x, y)| Arc::ptr_eq(x, y))
            .count();
        assert_eq!(shared, ca.len() - 1);
        assert!(!Arc::ptr_eq(&ca[42], &cb[42]));
        assert_eq!(
            a.hash(),
            FileContent::from_bytes(&vec![7; CHUNK_SIZE * 100 + 17]).hash()
        );
        assert_ne!(a.hash(), b.hash());
    }

    #[test]
    fn sparse_extension_shares_zero_chunks() {
        let mut c = FileContent::default();
        c.write(10 * CHUNK + 1, b"z");
        assert_eq!(c.len(), 10 * CHUNK + 2);
        assert!(
            c.chunks
                .iter()
                .take(10)
                .all(|ch| Arc::ptr_eq(ch, &ZERO_CHUNK))
        );
        check_layout(&c);
    }
}
