//! Which files of a directory search Grep looks at (`glob` and `type` arguments).

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

use crate::types::{FILE_TYPES, globs_for};

/// A file filter built from Grep's `glob` and `type` arguments.
pub struct FileFilter {
    include: Vec<PathGlob>,
    exclude: Vec<PathGlob>,
    file_type: Option<GlobSet>,
}

/// One `glob` argument: slash-less globs match the file name at any depth (like ripgrep's
/// `--glob`), globs with a slash match the path relative to the search root.
struct PathGlob {
    matcher: GlobMatcher,
    whole_path: bool,
}

impl PathGlob {
    fn new(glob: &str) -> Result<Self, String> {
        let trimmed = glob.strip_prefix('/').unwrap_or(glob);
        let matcher = GlobBuilder::new(trimmed)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|err| format!("Invalid glob \"{glob}\": {}", err.kind()))?
            .compile_matcher();
        Ok(PathGlob {
            matcher,
            whole_path: glob.contains('/'),
        })
    }

    fn matches(&self, relative: &str) -> bool {
        if self.whole_path {
            self.matcher.is_match(relative)
        } else {
            self.matcher.is_match(file_name(relative))
        }
    }
}

impl FileFilter {
    /// Builds the filter; `globs` may hold several whitespace-separated globs, `!` negates one.
    pub fn new(globs: Option<&str>, file_type: Option<&str>) -> Result<Self, String> {
        let mut include = Vec::new();
        let mut exclude = Vec::new();
        for glob in globs.unwrap_or("").split_whitespace() {
            match glob.strip_prefix('!') {
                Some(negated) => exclude.push(PathGlob::new(negated)?),
                None => include.push(PathGlob::new(glob)?),
            }
        }
        let file_type = match file_type.map(str::trim).filter(|t| !t.is_empty()) {
            None => None,
            Some(name) => Some(type_set(name)?),
        };
        Ok(FileFilter {
            include,
            exclude,
            file_type,
        })
    }

    /// Whether the file at `relative` (relative to the search root) is searched.
    pub fn accepts(&self, relative: &str) -> bool {
        (self.include.is_empty() || self.include.iter().any(|g| g.matches(relative)))
            && !self.exclude.iter().any(|g| g.matches(relative))
            && self
                .file_type
                .as_ref()
                .is_none_or(|set| set.is_match(file_name(relative)))
    }
}

fn type_set(name: &str) -> Result<GlobSet, String> {
    let globs = globs_for(name).ok_or_else(|| {
        let known: Vec<&str> = FILE_TYPES.iter().map(|(n, _)| *n).collect();
        format!(
            "Unknown file type \"{name}\". Known types: {}",
            known.join(", ")
        )
    })?;
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(globset::Glob::new(glob).map_err(|err| err.to_string())?);
    }
    builder.build().map_err(|err| err.to_string())
}

fn file_name(relative: &str) -> &str {
    relative.rsplit('/').next().unwrap_or(relative)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slashless_globs_match_names_at_any_depth() {
        let f = FileFilter::new(Some("*.rs"), None).unwrap();
        assert!(f.accepts("a.rs"));
        assert!(f.accepts("src/deep/a.rs"));
        assert!(!f.accepts("a.rs.bak"));
    }

    #[test]
    fn globs_with_slash_match_relative_paths() {
        let f = FileFilter::new(Some("src/*.rs"), None).unwrap();
        assert!(f.accepts("src/a.rs"));
        assert!(!f.accepts("src/deep/a.rs"));
        assert!(!f.accepts("other/src/a.rs"));
    }

    #[test]
    fn negation_braces_and_types() {
        let f = FileFilter::new(Some("*.{ts,tsx} !*.d.ts"), None).unwrap();
        assert!(f.accepts("a.ts") && f.accepts("b.tsx"));
        assert!(!f.accepts("a.d.ts"));
        let f = FileFilter::new(None, Some("rust")).unwrap();
        assert!(f.accepts("x/y.rs") && !f.accepts("y.py"));
    }

    #[test]
    fn unknown_type_is_an_error() {
        let err = FileFilter::new(None, Some("cobol")).err().unwrap();
        assert!(
            err.starts_with("Unknown file type \"cobol\". Known types: c, cpp,"),
            "{err}"
        );
    }
}
