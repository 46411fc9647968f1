//! Byte streams standing in for file descriptors: there are no processes, so a command's
//! stdin is a shared in-memory cursor and its stdout/stderr are shared sinks.

use std::cell::RefCell;
use std::fs::File;
use std::io::Write;
use std::rc::Rc;

/// Where a command's output goes. Cloning a stream duplicates the descriptor (`2>&1`): both
/// clones write to the same place, in order of writes.
#[derive(Clone, Default)]
pub enum Stream {
    /// An in-memory buffer: the terminal the model reads, a pipe, or a command substitution.
    Mem(Rc<RefCell<Vec<u8>>>),
    /// An open file (a redirection target).
    File(Rc<RefCell<File>>),
    /// `/dev/null`.
    #[default]
    Null,
}

impl Stream {
    /// A new, empty in-memory stream.
    pub fn buffer() -> Self {
        Stream::Mem(Rc::new(RefCell::new(Vec::new())))
    }

    /// Writes all of `data`. A failed write to a file (a full disk) is kept for the command
    /// that made it: [`take_write_error`] reports it once the command is done.
    pub fn write(&self, data: &[u8]) {
        match self {
            Stream::Mem(buf) => buf.borrow_mut().extend_from_slice(data),
            Stream::File(file) => {
                if let Err(e) = file.borrow_mut().write_all(data) {
                    WRITE_ERROR.with(|w| {
                        w.borrow_mut().get_or_insert(e);
                    });
                }
            }
            Stream::Null => {}
        }
    }

    /// Writes a string.
    pub fn write_str(&self, s: &str) {
        self.write(s.as_bytes());
    }

    /// Takes the bytes written so far out of an in-memory stream (empty for other kinds).
    pub fn take(&self) -> Vec<u8> {
        match self {
            Stream::Mem(buf) => std::mem::take(&mut *buf.borrow_mut()),
            _ => Vec::new(),
        }
    }

    /// Number of bytes held by an in-memory stream.
    pub fn len(&self) -> usize {
        match self {
            Stream::Mem(buf) => buf.borrow().len(),
            _ => 0,
        }
    }

    /// Whether an in-memory stream holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

thread_local! {
    /// The first failed write to a redirected file since the last [`take_write_error`].
    static WRITE_ERROR: RefCell<Option<std::io::Error>> = const { RefCell::new(None) };
}

/// The first write to a redirected file that failed since the last call, if any.
pub fn take_write_error() -> Option<std::io::Error> {
    WRITE_ERROR.with(|w| w.borrow_mut().take())
}

#[derive(Default)]
struct InputData {
    data: Vec<u8>,
    pos: usize,
}

/// A readable stdin shared by every command that inherits it, so `read` in a loop and `cat`
/// afterwards consume the same bytes in turn.
#[derive(Clone, Default)]
pub struct Input(Rc<RefCell<InputData>>);

impl Input {
    /// An input holding `data`.
    pub fn from_bytes(data: Vec<u8>) -> Self {
        Input(Rc::new(RefCell::new(InputData { data, pos: 0 })))
    }

    /// An input that is immediately at end of file.
    pub fn empty() -> Self {
        Self::default()
    }

    /// Reads everything that is left.
    pub fn read_all(&self) -> Vec<u8> {
        let mut d = self.0.borrow_mut();
        let pos = d.pos;
        d.pos = d.data.len();
        d.data[pos..].to_vec()
    }

    /// Puts `rest` back as the unread remainder of the input.
    pub fn unread(&self, rest: Vec<u8>) {
        let mut d = self.0.borrow_mut();
        d.data = rest;
        d.pos = 0;
    }

    /// Reads one line including its `\n` (if any); `None` at end of file.
    pub fn read_line(&self) -> Option<Vec<u8>> {
        let mut d = self.0.borrow_mut();
        if d.pos >= d.data.len() {
            return None;
        }
        let rest = &d.data[d.pos..];
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        let line = rest[..end].to_vec();
        d.pos += end;
        Some(line)
    }
}

/// The three standard descriptors of a running command.
#[derive(Clone, Default)]
pub struct Io {
    /// Descriptor 0.
    pub stdin: Input,
    /// Descriptor 1.
    pub stdout: Stream,
    /// Descriptor 2.
    pub stderr: Stream,
}

impl Io {
    /// Writes to stdout.
    pub fn out(&self, data: impl AsRef<[u8]>) {
        self.stdout.write(data.as_ref());
    }

    /// Writes to stderr.
    pub fn err(&self, data: impl AsRef<[u8]>) {
        self.stderr.write(data.as_ref());
    }

    /// Writes `msg` followed by a newline to stderr.
    pub fn errln(&self, msg: impl AsRef<str>) {
        self.stderr.write(msg.as_ref().as_bytes());
        self.stderr.write(b"\n");
    }
}
