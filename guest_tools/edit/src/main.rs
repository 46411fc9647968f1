//! The `Edit` tool as a WASI command: one JSON request on stdin, one JSON response on stdout.

fn main() {
    clawrun_tool_protocol::run("Edit", clawrun_tool_edit::edit);
}
