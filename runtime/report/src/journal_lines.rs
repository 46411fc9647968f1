//! Reading a journal (`journal.jsonl`) line by line as a crash may have left it. A run appends
//! whole lines and syncs them in groups, so what a `kill -9` or a power loss leaves is a torn
//! last line (no newline) and, after a power loss, lines that are not JSON where unsynced
//! bytes never reached the disk (zeros, a cut). Every reader (the run's `--resume`, `report`,
//! `replay`, `judge`, `trace`) goes through [`JournalLines`]: it gives the complete lines with
//! their number and byte offset, and says what is damaged instead of stopping at it.

use std::io::{self, BufRead};

/// One complete line of a journal.
#[derive(Debug)]
pub struct Line<'a> {
    /// Its number, from 1.
    pub number: usize,
    /// Where it starts, in bytes from the start of the file.
    pub offset: u64,
    /// Its length in bytes, its newline included.
    pub len: u64,
    /// Its text, without the newline (a line that is not UTF-8 reads as `\u{fffd}`).
    pub text: &'a str,
}

/// A part of a journal that is not a record: a line that does not parse, or the torn tail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// The line's number, from 1.
    pub number: usize,
    /// Where it starts, in bytes.
    pub offset: u64,
    /// Its length in bytes (its newline included, if it has one).
    pub len: u64,
    /// What is wrong with it.
    pub why: String,
}

impl Damage {
    /// The damage for people: `journal.jsonl:12 (bytes 4410..4502): why`.
    pub fn describe(&self, name: &str) -> String {
        format!(
            "{name}:{} (bytes {}..{}): {}",
            self.number,
            self.offset,
            self.offset.saturating_add(self.len),
            self.why
        )
    }
}

/// Reads a journal's lines one at a time, in constant memory.
pub struct JournalLines<R> {
    input: R,
    buf: Vec<u8>,
    number: usize,
    offset: u64,
    /// The torn last line, once reached.
    torn: Option<Damage>,
}

impl<R: BufRead> JournalLines<R> {
    /// Reads `input` from its start.
    pub fn new(input: R) -> Self {
        JournalLines {
            input,
            buf: Vec::new(),
            number: 0,
            offset: 0,
            torn: None,
        }
    }

    /// The next complete, non-blank line (`None` at the end, or at a torn last line, which
    /// [`torn`](Self::torn) then names).
    pub fn next_line(&mut self) -> io::Result<Option<Line<'_>>> {
        loop {
            self.buf.clear();
            let n = self.input.read_until(b'\n', &mut self.buf)?;
            if n == 0 {
                return Ok(None);
            }
            self.number += 1;
            let offset = self.offset;
            self.offset += n as u64;
            if self.buf.last() != Some(&b'\n') {
                self.torn = Some(Damage {
                    number: self.number,
                    offset,
                    len: n as u64,
                    why: "a torn last line (the run stopped while writing it)".into(),
                });
                return Ok(None);
            }
            let blank = self.buf[..n - 1].iter().all(|b| b.is_ascii_whitespace());
            if blank {
                continue;
            }
            let text = match std::str::from_utf8(&self.buf[..n - 1]) {
                Ok(text) => text.trim_end_matches('\r'),
                // Not text: handed on as such, so that the caller's parse names it.
                Err(_) => "\u{fffd}",
            };
            return Ok(Some(Line {
                number: self.number,
                offset,
                len: n as u64,
                text,
            }));
        }
    }

    /// The torn last line, once [`next_line`](Self::next_line) reached it.
    pub fn torn(&self) -> Option<&Damage> {
        self.torn.as_ref()
    }

    /// The byte length of the complete lines read so far: where a torn line starts.
    pub fn complete_len(&self) -> u64 {
        self.torn.as_ref().map_or(self.offset, |t| t.offset)
    }
}

/// The damage of line `line` whose parse failed with `error`.
pub fn unparsable(line: &Line<'_>, error: &impl std::fmt::Display) -> Damage {
    Damage {
        number: line.number,
        offset: line.offset,
        len: line.len,
        why: format!(
            "not a trial record ({error}): damaged, e.g. by a power loss before the line reached \
             the disk"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_come_with_numbers_and_offsets_and_the_torn_tail_is_named() {
        let text = b"{\"a\":1}\n\n\0\0\0\n{\"b\":2}\n{\"c\":";
        let mut lines = JournalLines::new(&text[..]);
        let mut seen = Vec::new();
        while let Some(line) = lines.next_line().unwrap() {
            seen.push((line.number, line.offset, line.text.to_string()));
        }
        assert_eq!(
            seen,
            vec![
                (1, 0, "{\"a\":1}".to_string()),
                (3, 9, "\0\0\0".to_string()),
                (4, 13, "{\"b\":2}".to_string()),
            ]
        );
        let torn = lines.torn().unwrap();
        assert_eq!((torn.number, torn.offset, torn.len), (5, 21, 5));
        assert_eq!(lines.complete_len(), 21);
        assert!(
            torn.describe("j.jsonl")
                .starts_with("j.jsonl:5 (bytes 21..26): a torn")
        );
    }
}
