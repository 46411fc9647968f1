//! The `Grep` tool as a WASI command: one JSON request on stdin, one JSON response on stdout.

fn main() {
    clawrun_tool_protocol::run("Grep", clawrun_tool_grep::grep);
}
