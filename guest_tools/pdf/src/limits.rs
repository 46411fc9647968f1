//! What reading one PDF may cost, and the meter that charges a file's costs against it. The
//! costs are counted, not timed, so a file is refused (or not) the same way on every machine.

use std::cell::Cell;
use std::fmt;

const MIB: usize = 1 << 20;

/// What reading one PDF may cost; a file that needs more is refused with
/// [`PdfError::TooLarge`](crate::PdfError::TooLarge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The largest file read.
    pub max_file_bytes: usize,
    /// The most bytes one stream may decode to (after each of its filters).
    pub max_stream_bytes: usize,
    /// The most bytes all decoding together may produce while the file is read: decoded
    /// streams (each time one is decoded), font maps, and the extracted text.
    pub max_total_bytes: usize,
    /// The most objects held: the file's objects and the page dictionaries copied from them
    /// (every value, array item and dictionary entry counts one).
    pub max_objects: usize,
    /// The most steps of work: about one per byte scanned, decoded or interpreted, and per
    /// table lookup while showing text.
    pub max_work: u64,
}

impl Limits {
    /// The limits [`Pdf::parse`](crate::Pdf::parse) uses: 64 MiB files, 32 MiB per decoded
    /// stream, 128 MiB decoded in all, a million objects, 400 million steps of work (a few
    /// seconds).
    pub const DEFAULT: Limits = Limits {
        max_file_bytes: 64 * MIB,
        max_stream_bytes: 32 * MIB,
        max_total_bytes: 128 * MIB,
        max_objects: 1_000_000,
        max_work: 400_000_000,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The limit a PDF exceeded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exceeded {
    /// The file is larger than [`Limits::max_file_bytes`].
    File {
        /// The file's size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A stream decodes to more than this many bytes ([`Limits::max_stream_bytes`]).
    Stream(usize),
    /// Decoding produces more than this many bytes in all ([`Limits::max_total_bytes`]).
    Total(usize),
    /// The file holds more than this many objects ([`Limits::max_objects`]).
    Objects(usize),
    /// A content stream or font map piles up more than this many operands.
    Operands(usize),
    /// Reading takes more than this many steps of work ([`Limits::max_work`]).
    Work(u64),
}

/// `n` bytes, in MiB when that is exact.
fn size(n: usize) -> String {
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else {
        format!("{n} bytes")
    }
}

impl fmt::Display for Exceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Exceeded::File { bytes, limit } => write!(
                f,
                "the file is {} bytes, more than the {} limit",
                bytes,
                size(*limit)
            ),
            Exceeded::Stream(limit) => {
                write!(f, "a stream decompresses to more than {}", size(*limit))
            }
            Exceeded::Total(limit) => write!(
                f,
                "its streams and text come to more than {} in all",
                size(*limit)
            ),
            Exceeded::Objects(limit) => write!(f, "it holds more than {limit} objects"),
            Exceeded::Operands(limit) => {
                write!(f, "a content stream piles up more than {limit} operands")
            }
            Exceeded::Work(limit) => {
                write!(f, "reading it takes more than {limit} steps of work")
            }
        }
    }
}

/// The costs of reading one file so far. The first limit passed is kept, and from then on
/// every charge fails, so readers stop at once.
#[derive(Debug)]
pub(crate) struct Meter {
    pub limits: Limits,
    total: Cell<usize>,
    objects: Cell<usize>,
    work: Cell<u64>,
    hit: Cell<Option<Exceeded>>,
}

impl Meter {
    /// A meter with nothing charged.
    pub fn new(limits: Limits) -> Self {
        Self {
            limits,
            total: Cell::new(0),
            objects: Cell::new(0),
            work: Cell::new(0),
            hit: Cell::new(None),
        }
    }

    /// The limit passed, if any.
    pub fn hit(&self) -> Option<Exceeded> {
        self.hit.get()
    }

    /// Whether no limit has been passed.
    pub fn ok(&self) -> bool {
        self.hit.get().is_none()
    }

    /// Records that `limit` was passed (unless another was first); always `false`.
    pub fn trip(&self, limit: Exceeded) -> bool {
        if self.hit.get().is_none() {
            self.hit.set(Some(limit));
        }
        false
    }

    /// Charges `steps` of work; `false` once past the limit.
    pub fn work(&self, steps: u64) -> bool {
        let w = self.work.get().saturating_add(steps);
        self.work.set(w);
        if w > self.limits.max_work {
            return self.trip(Exceeded::Work(self.limits.max_work));
        }
        self.ok()
    }

    /// Charges `n` produced bytes; `false` once past the limit.
    pub fn bytes(&self, n: usize) -> bool {
        let t = self.total.get().saturating_add(n);
        self.total.set(t);
        if t > self.limits.max_total_bytes {
            return self.trip(Exceeded::Total(self.limits.max_total_bytes));
        }
        self.ok()
    }

    /// How many more bytes may be produced.
    pub fn bytes_left(&self) -> usize {
        self.limits.max_total_bytes.saturating_sub(self.total.get())
    }

    /// Charges `n` objects held; `false` once past the limit.
    pub fn objects(&self, n: usize) -> bool {
        let o = self.objects.get().saturating_add(n);
        self.objects.set(o);
        if o > self.limits.max_objects {
            return self.trip(Exceeded::Objects(self.limits.max_objects));
        }
        self.ok()
    }

    /// How many more objects may be held.
    pub fn objects_left(&self) -> usize {
        self.limits.max_objects.saturating_sub(self.objects.get())
    }
}
