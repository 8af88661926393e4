//! Tool names follow MCP's rule (`.` allowed, up to 128 characters); a provider whose rule is
//! stricter gets a tool either refused, with the rule named, or under a mapped name that maps
//! back, and every declaration passes that provider's checker.

use cy_tools::dialect::{Dialect, NameMap};
use cy_tools::prelude::*;
use cy_tools::{Toolset, binding::bind_tool};

use crate::support::conformance;

/// Create an issue.
#[tool(name = "github.create_issue", register = false)]
async fn create_issue(
    /** The title. */
    title: String,
) -> String {
    title
}

/// Check a one-time code.
#[tool(name = "2fa.check", register = false)]
async fn check_code(
    /** The code. */
    code: String,
) -> String {
    code
}

/// Create an issue, the name every provider takes.
#[tool(name = "github_create_issue", register = false)]
async fn create_issue_plain(
    /** The title. */
    title: String,
) -> String {
    title
}

fn toolset() -> Toolset {
    let context = ToolContext::local();
    Toolset::new(vec![
        bind_tool(&CREATE_ISSUE, context.clone()).unwrap(),
        bind_tool(&CHECK_CODE, context.clone()).unwrap(),
        bind_tool(&CREATE_ISSUE_PLAIN, context).unwrap(),
    ])
}

#[test]
fn each_dialect_refuses_a_name_its_rule_does_not_take_naming_the_rule() {
    let tools = toolset();
    let refused = |dialect: Dialect, name: &str| {
        let tool = tools.get(name).unwrap();
        dialect.export(tool).err().map(|err| err.to_string())
    };
    for dialect in [
        Dialect::OpenAi,
        Dialect::OpenAiStrict,
        Dialect::Anthropic,
        Dialect::AnthropicStrict,
    ] {
        let err = refused(dialect, "github.create_issue").expect("refused");
        assert_eq!(
            err,
            format!(
                "tool `github.create_issue` cannot be declared for {dialect}: field `(name)`: the name breaks {dialect}'s rule for tool names, `^[a-zA-Z0-9_-]{{1,64}}$`; rename the tool, or declare the toolset with `Dialect::export_toolset_mapped`, which maps names into the rule and back"
            )
        );
    }
    // Gemini takes dots, but wants a letter or `_` first.
    assert_eq!(refused(Dialect::Gemini, "github.create_issue"), None);
    assert!(
        refused(Dialect::Gemini, "2fa.check")
            .unwrap()
            .contains("^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$")
    );
    for name in ["github.create_issue", "2fa.check", "github_create_issue"] {
        let decl = Dialect::Mcp.export(tools.get(name).unwrap()).unwrap();
        assert_eq!(decl["name"], name);
        assert!(conformance::check(Dialect::Mcp, &decl).is_empty(), "{decl}");
    }
}

#[test]
fn a_mapped_toolset_passes_every_dialects_checker_and_maps_back() {
    let tools = toolset();
    for dialect in Dialect::ALL {
        let (declared, names) = dialect.export_toolset_mapped(&tools).unwrap();
        for (tool, decl) in tools.iter().zip(&declared) {
            let problems = conformance::check(dialect, decl);
            assert!(problems.is_empty(), "{dialect}: {problems:?}");
            let shown = decl
                .get("name")
                .or_else(|| decl["function"].get("name"))
                .and_then(|n| n.as_str())
                .unwrap();
            assert_eq!(names.to_tool(shown), Some(tool.name()), "{dialect}");
        }
    }
    // A name the provider takes never moves, even when another tool's mapping would want it.
    let names = NameMap::new(Dialect::OpenAi, tools.iter().map(|t| t.name()));
    assert_eq!(
        names.to_dialect("github_create_issue"),
        Some("github_create_issue")
    );
    assert_ne!(
        names.to_dialect("github.create_issue"),
        Some("github_create_issue")
    );
    assert_eq!(names.to_dialect("2fa.check"), Some("2fa_check"));
}
