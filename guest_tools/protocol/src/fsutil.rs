//! Filesystem helpers with platform-independent error messages.

use std::io;

/// A stable, lower-case description of an I/O error.
///
/// `io::Error`'s own `Display` includes OS error numbers that differ between the native test
/// platform and WASI, so tools describe errors by kind instead.
pub fn describe_io_error(err: &io::Error) -> String {
    use io::ErrorKind as K;
    let text = match err.kind() {
        K::NotFound => "no such file or directory",
        K::PermissionDenied => "permission denied",
        K::AlreadyExists => "file exists",
        K::NotADirectory => "not a directory",
        K::IsADirectory => "is a directory",
        K::DirectoryNotEmpty => "directory not empty",
        K::ReadOnlyFilesystem => "read-only file system",
        K::StorageFull => "no space left on device",
        K::FileTooLarge => "file too large",
        K::InvalidFilename => "invalid file name",
        K::InvalidData => "invalid data",
        K::Unsupported => "operation not supported",
        kind => return kind.to_string(),
    };
    text.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_common_kinds() {
        let err = io::Error::from(io::ErrorKind::NotFound);
        assert_eq!(describe_io_error(&err), "no such file or directory");
        let err = io::Error::from(io::ErrorKind::NotADirectory);
        assert_eq!(describe_io_error(&err), "not a directory");
    }
}
