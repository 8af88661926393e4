//! `cy-tools`: list, inspect and run the linked tools, or serve them to an MCP client.
//! See `cy-tools --help`; the work is in the `cy_tools_cli` library.

fn main() -> std::process::ExitCode {
    cy_tools_cli::main()
}
