//! Every built-in's annotations, with the reason for each, in one table: a wrong hint is a
//! visible diff here. The hints decide what `--approve destructive` asks about, so a tool
//! marked read-only that changes state (as `wait_for_signal`, which consumes the signal, once
//! was) would run unasked.

use cy_tools::ToolRegistry;
use cy_tools::prelude::Definition;
use cy_tools_builtin::tools::{delegate, workflow};

/// The crates whose tools are the built-ins, as their tools' origins (module paths) begin.
const BUILTIN_CRATES: [&str; 2] = ["cy_tools_sandbox::", "cy_tools_session::"];

/// One row: the tool's name, its hints as `read_only destructive idempotent open_world`
/// (each `-` when false), and why each hint is right.
struct Row {
    name: &'static str,
    hints: &'static str,
    reason: &'static str,
}

const TABLE: &[Row] = &[
    Row {
        name: "delegate",
        hints: "- destructive - open_world",
        reason: "a subagent may do anything its profile's tools do, reaching what they reach",
    },
    Row {
        name: "edit_file",
        hints: "- destructive - -",
        reason: "replaces text in a workspace file; a second identical edit finds the text changed; workspace only",
    },
    Row {
        name: "execute_code",
        hints: "- destructive - open_world",
        reason: "code runs commands and may call every tool the session exposes, network included",
    },
    Row {
        name: "find_files",
        hints: "read_only - idempotent -",
        reason: "lists names in the workspace and changes nothing",
    },
    Row {
        name: "list_directory",
        hints: "read_only - idempotent -",
        reason: "lists one directory of the workspace and changes nothing",
    },
    Row {
        name: "process",
        hints: "- destructive - open_world",
        reason: "starts, writes to and kills processes, which may reach the network",
    },
    Row {
        name: "read_file",
        hints: "read_only - idempotent -",
        reason: "reads a workspace file and changes nothing",
    },
    Row {
        name: "search_text",
        hints: "read_only - idempotent -",
        reason: "reads workspace files and changes nothing",
    },
    Row {
        name: "send_message",
        hints: "- - - open_world",
        reason: "posts to the people the session works for (outside the workspace); it adds a message, never removes or overwrites one",
    },
    Row {
        name: "signal",
        hints: "- - - -",
        reason: "adds a pending signal for a session of this tenant (a closed world); overwrites nothing, and an add is not idempotent",
    },
    Row {
        name: "terminal",
        hints: "- destructive - open_world",
        reason: "runs any shell command, which may delete files or reach the network",
    },
    Row {
        name: "wait_for_signal",
        hints: "- destructive - -",
        reason: "consumes the signal it returns, so another waiter for that name no longer gets it",
    },
    Row {
        name: "workflow",
        hints: "- destructive - open_world",
        reason: "runs subagents, which may do anything their profiles' tools do",
    },
    Row {
        name: "write_file",
        hints: "- destructive idempotent -",
        reason: "overwrites a workspace file; writing the same content twice changes nothing more",
    },
];

/// The unregistered stand-ins sessions use where no subagents run; they only answer that.
const STAND_INS: &[Row] = &[
    Row {
        name: "delegate",
        hints: "read_only - - -",
        reason: "the stand-in only answers that delegation is unavailable",
    },
    Row {
        name: "workflow",
        hints: "read_only - - -",
        reason: "the stand-in only answers that workflows are unavailable",
    },
];

fn hints(definition: &dyn Definition) -> String {
    let a = definition.annotations();
    let flag = |on: bool, name: &'static str| if on { name } else { "-" };
    [
        flag(a.read_only, "read_only"),
        flag(a.destructive, "destructive"),
        flag(a.idempotent, "idempotent"),
        flag(a.open_world, "open_world"),
    ]
    .join(" ")
}

fn render(rows: &[(&str, String)], table: &[Row]) -> String {
    rows.iter()
        .map(|(name, hints)| {
            let reason = table
                .iter()
                .find(|row| row.name == *name)
                .map_or("(no reason given: add a row)", |row| row.reason);
            format!("{name:16} {hints:40} {reason}\n")
        })
        .collect()
}

fn expected(table: &[Row]) -> String {
    let rows: Vec<(&str, String)> = table
        .iter()
        .map(|row| (row.name, row.hints.to_string()))
        .collect();
    render(&rows, table)
}

#[test]
fn every_builtin_has_the_annotations_its_table_row_gives() {
    let registry = ToolRegistry::linked().unwrap();
    // Tools this test binary defines for its own tests are not built-ins.
    let actual: Vec<(&str, String)> = registry
        .definitions()
        .filter(|(name, _)| {
            registry
                .origin(name)
                .is_some_and(|origin| BUILTIN_CRATES.iter().any(|c| origin.starts_with(c)))
        })
        .map(|(name, definition)| (name, hints(definition)))
        .collect();
    assert_eq!(
        render(&actual, TABLE),
        expected(TABLE),
        "a built-in's annotations differ from the table (left: the tools, right: the table)"
    );
}

#[test]
fn the_unavailable_stand_ins_have_the_annotations_their_table_row_gives() {
    let actual: Vec<(&str, String)> = [
        &delegate::DELEGATE_UNAVAILABLE as &dyn Definition,
        &workflow::WORKFLOW_UNAVAILABLE,
    ]
    .into_iter()
    .map(|definition| (definition.name(), hints(definition)))
    .collect();
    assert_eq!(render(&actual, STAND_INS), expected(STAND_INS));
}
