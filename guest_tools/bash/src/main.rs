//! The `Bash` tool as a WASI command: one JSON request on stdin, one JSON response on stdout.

fn main() {
    clawrun_tool_protocol::run_mut("Bash", clawrun_tool_bash::bash_tool);
}
