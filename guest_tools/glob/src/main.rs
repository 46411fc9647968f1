//! The `Glob` tool as a WASI command: one JSON request on stdin, one JSON response on stdout.

fn main() {
    clawrun_tool_protocol::run("Glob", clawrun_tool_glob::glob);
}
