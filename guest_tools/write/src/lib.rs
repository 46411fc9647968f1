//! The `Write` tool: create or overwrite a file, creating missing parent directories.

#![warn(missing_docs)]

use std::fs;

use clawrun_tool_protocol::State;
use clawrun_tool_protocol::fsutil::describe_io_error;
use serde::Deserialize;

/// Arguments of `Write`.
#[derive(Debug, Deserialize)]
pub struct WriteArgs {
    /// File to write (absolute, or relative to the working directory).
    pub file_path: String,
    /// The complete new contents of the file.
    pub content: String,
}

/// Runs `Write`.
pub fn write(args: WriteArgs, state: &State) -> Result<String, String> {
    if args.file_path.is_empty() {
        return Err("Write: \"file_path\" must not be empty".into());
    }
    let path = state.resolve(&args.file_path);
    let existed = match fs::metadata(&path.fs) {
        Ok(meta) if meta.is_dir() => return Err(format!("{path} is a directory")),
        Ok(_) => true,
        Err(_) => false,
    };
    if let Some(parent) = path.fs.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|err| {
            format!(
                "Cannot create parent directories of {path}: {}",
                describe_io_error(&err)
            )
        })?;
    }
    fs::write(&path.fs, &args.content)
        .map_err(|err| format!("Cannot write {path}: {}", describe_io_error(&err)))?;
    let verb = if existed { "overwritten" } else { "created" };
    Ok(format!(
        "File {verb}: {path} ({} bytes)",
        args.content.len()
    ))
}
