//! `cy-tools`: list, inspect and run the linked tools, or serve them to an MCP client.
//! See `cy-tools --help`; the work is in `cy_tools_builtin::cli`.

fn main() -> std::process::ExitCode {
    cy_tools_builtin::cli::main()
}
