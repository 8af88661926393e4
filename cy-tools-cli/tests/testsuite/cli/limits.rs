//! `--cpu-seconds`, `--memory-mb` and `--max-processes` on the `cy-tools` command line: the
//! commands and code a `call` runs get them, and a bad value is one clear line.

use std::process::{Command, Output, Stdio};

fn cy_tools(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cy-tools"))
        .args(args)
        .env_remove("CY_TOOLS_LOG")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The soft and hard columns of `/proc/self/limits` row `name` in `text`.
fn row<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let line = text
        .lines()
        .find(|l| l.starts_with(name))
        .unwrap_or_else(|| panic!("no `{name}` in {text}"));
    line[name.len()..].split_whitespace().take(2).collect()
}

#[test]
fn terminal_and_code_run_under_the_limits_given() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let limits = ["--cpu-seconds", "7", "--memory-mb", "300"];
    let terminal = cy_tools(
        &[
            &[
                "call",
                "terminal",
                r#"{"command":"cat /proc/self/limits"}"#,
                "--root",
                root,
            ][..],
            &limits[..],
        ]
        .concat(),
    );
    let out = String::from_utf8(terminal.stdout).unwrap();
    assert_eq!(terminal.status.code(), Some(0), "{out}");
    assert_eq!(row(&out, "Max cpu time"), ["7", "8"]);
    assert_eq!(row(&out, "Max data size"), ["314572800", "314572800"]);

    let code = r#"{"code":"print(open('/proc/self/limits').read())"}"#;
    let run = cy_tools(
        &[
            &["call", "execute_code", code, "--root", root][..],
            &limits[..],
        ]
        .concat(),
    );
    let out = String::from_utf8(run.stdout).unwrap();
    assert_eq!(run.status.code(), Some(0), "{out}");
    assert_eq!(row(&out, "Max cpu time"), ["7", "8"]);
    assert_eq!(row(&out, "Max data size"), ["314572800", "314572800"]);

    let unlimited = cy_tools(&[
        "call",
        "terminal",
        r#"{"command":"cat /proc/self/limits"}"#,
        "--root",
        root,
        "--cpu-seconds",
        "none",
    ]);
    let out = String::from_utf8(unlimited.stdout).unwrap();
    let host = std::fs::read_to_string("/proc/self/limits").unwrap();
    assert_eq!(row(&out, "Max cpu time"), row(&host, "Max cpu time"));
    // Not given: the default 4 GiB stands.
    assert_eq!(row(&out, "Max data size"), ["4294967296", "4294967296"]);
}

#[test]
fn a_bad_limit_is_one_line_naming_the_fix() {
    for (value, why) in [
        ("0", "0 would stop everything"),
        ("lots", "`lots` is not a whole number"),
    ] {
        let out = cy_tools(&["call", "terminal", "{}", "--max-processes", value]);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(
            err.trim_end(),
            format!(
                "error: invalid value '{value}' for '--max-processes <COUNT|none>': {why}; give a positive number, or `none` for no limit; run `cy-tools --help` for usage"
            )
        );
    }
}

#[test]
fn the_control_server_takes_the_same_limits() {
    let out = cy_tools(&["control-server", "--help"]);
    let help = String::from_utf8(out.stdout).unwrap();
    for option in ["--cpu-seconds", "--memory-mb", "--max-processes"] {
        assert!(help.contains(option), "{help}");
    }
}
