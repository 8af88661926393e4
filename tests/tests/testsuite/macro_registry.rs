//! `#[tool]` functions of this application register themselves at link time, beside the tools
//! of every other linked crate; `register = false` keeps one out.

use cy_tools::ToolRegistry;
use cy_tools::definition::Definition;
use cy_tools_tests::misc;

const OURS: [&str; 8] = [
    "add_numbers",
    "count_chars",
    "find_lines",
    "notify",
    "ping",
    "read_lines",
    "save_text",
    "wait_for_cancel",
];

#[test]
fn application_tools_are_linked_beside_the_built_ins() {
    let registry = ToolRegistry::linked().expect("no duplicate or invalid names");
    let names = registry.names();
    for name in OURS {
        assert!(names.contains(&name), "`{name}` missing from {names:?}");
    }
    // `read_file` is a built-in (this crate's file tools are named otherwise), linked through
    // `use cy_tools_builtin as _`.
    assert!(
        names.contains(&"read_file"),
        "built-ins missing from {names:?}"
    );
    assert!(registry.len() > OURS.len());
}

#[test]
fn register_false_stays_out_until_registered_by_hand() {
    let mut registry = ToolRegistry::linked().expect("linked");
    assert!(registry.definition("echo").is_none());
    let before = registry.len();
    registry
        .register("say_back", &misc::ECHO)
        .expect("free name");
    assert_eq!(registry.len(), before + 1);
    assert_eq!(
        registry.definition("say_back").map(|d| d.name()),
        Some("echo")
    );
}

#[test]
fn linked_definition_is_the_generated_static() {
    let registry = ToolRegistry::linked().expect("linked");
    let linked: *const dyn Definition = registry
        .definition("add_numbers")
        .expect("registered under `name = ...`");
    let generated: *const dyn Definition = &misc::ADD;
    assert!(std::ptr::addr_eq(linked, generated));
}

#[test]
fn linked_registry_lists_only_valid_sorted_names() {
    let registry = ToolRegistry::linked().expect("linked");
    let names = registry.names();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
    assert!(
        names
            .iter()
            .all(|n| cy_tools::definition::is_valid_tool_name(n))
    );
}
