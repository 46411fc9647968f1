//! Turning search results into Grep's three output forms.

use clawrun_tool_protocol::text::clip_line;

use crate::OutputMode;
use crate::search::Found;

/// Formatting options of `content` mode.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Prefix lines with their 1-based number.
    pub line_numbers: bool,
    /// Context lines before a match.
    pub before: usize,
    /// Context lines after a match.
    pub after: usize,
}

/// Output being accumulated file by file.
pub struct Output {
    mode: OutputMode,
    options: Options,
    head_limit: Option<usize>,
    lines: Vec<String>,
}

impl Output {
    /// An empty output.
    pub fn new(mode: OutputMode, options: Options, head_limit: Option<usize>) -> Self {
        Output {
            mode,
            options,
            head_limit,
            lines: Vec::new(),
        }
    }

    /// Whether `head_limit` is reached, so further files need not be searched.
    pub fn is_full(&self) -> bool {
        self.head_limit
            .is_some_and(|limit| self.lines.len() >= limit)
    }

    /// Adds the results of one file (which has at least one match).
    pub fn add_file(&mut self, path: &str, found: &Found<'_>) {
        match self.mode {
            OutputMode::FilesWithMatches => self.lines.push(path.to_owned()),
            OutputMode::Count => self.lines.push(format!("{path}:{}", found.count())),
            OutputMode::Content => self.add_content(path, found),
        }
    }

    fn add_content(&mut self, path: &str, found: &Found<'_>) {
        let Options {
            line_numbers,
            before,
            after,
        } = self.options;
        let with_context = before > 0 || after > 0;
        let mut shown = vec![false; found.len()];
        for (index, _) in found.matched.iter().enumerate().filter(|(_, m)| **m) {
            let last = (index + after).min(found.len() - 1);
            for flag in &mut shown[index.saturating_sub(before)..=last] {
                *flag = true;
            }
        }
        let mut previous: Option<usize> = None;
        for index in (0..found.len()).filter(|&i| shown[i]) {
            let gap = match previous {
                Some(p) => index > p + 1,
                None => !self.lines.is_empty(),
            };
            if with_context && gap {
                self.lines.push("--".into());
            }
            let sep = if found.matched[index] { ':' } else { '-' };
            let line = clip_line(found.line(index));
            self.lines.push(if line_numbers {
                format!("{path}{sep}{}{sep}{line}", index + 1)
            } else {
                format!("{path}{sep}{line}")
            });
            previous = Some(index);
        }
    }

    /// The final text: `No matches found`, or the lines cut to `head_limit`.
    pub fn finish(mut self) -> String {
        if self.lines.is_empty() {
            return "No matches found".into();
        }
        if let Some(limit) = self.head_limit {
            self.lines.truncate(limit);
        }
        let body = self.lines.join("\n");
        match self.mode {
            OutputMode::FilesWithMatches => {
                let n = self.lines.len();
                let files = if n == 1 { "file" } else { "files" };
                format!("Found {n} {files}\n{body}")
            }
            OutputMode::Content | OutputMode::Count => body,
        }
    }
}
