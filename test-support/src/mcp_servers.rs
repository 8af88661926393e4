//! The MCP servers the client's tests start: where `.ci/run` installed the real ones, and the
//! fault server written for the tests (`mcp/fault_server.py`, standard library only).

use std::path::PathBuf;

/// A folder from the environment variable `var`, set by `.ci/run`: `None` (the test skips, and
/// says so) when it is unset, unless `CY_MCP_SERVERS_REQUIRE` is set (then it fails).
pub fn installed(var: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(path) => Some(PathBuf::from(path)),
        None if std::env::var_os("CY_MCP_SERVERS_REQUIRE").is_some() => {
            panic!("{var} is not set: `.ci/run` installs the MCP servers these tests use")
        }
        None => {
            eprintln!("skipped: {var} is not set (`.ci/run` sets it)");
            None
        }
    }
}

/// The fault server's script and the folder holding it (to be readable by the server).
pub fn fault_server() -> (String, String) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("mcp");
    (
        dir.join("fault_server.py").to_string_lossy().into_owned(),
        dir.to_string_lossy().into_owned(),
    )
}

/// The HTTP fault server's script (`mcp/http_fault_server.py`): it prints the port it listens
/// on as its first line.
pub fn http_fault_server() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("mcp/http_fault_server.py")
        .to_string_lossy()
        .into_owned()
}
