//! The tool search switches of `mcp` and `agent` (`--tool-search`, `--always`): the tools kept
//! declared are checked against those the session serves, and a session in code-only mode,
//! which serves `execute_code` alone, is refused (there is nothing to search).

use cy_tools::Session;

use super::error::CliError;
use super::session::listed;

/// The name tool search gives its own tool (the MCP server's and the model loop's).
const SEARCH_TOOLS: &str = "search_tools";

/// `--always` names no `search_tools`, which tool search declares anyway (checked before
/// anything starts).
pub(super) fn check_always_names(always: &[String]) -> Result<(), CliError> {
    if always.iter().any(|name| name == SEARCH_TOOLS) {
        return Err(CliError::new(format!(
            "`--always {SEARCH_TOOLS}`: `{SEARCH_TOOLS}` is listed with `--tool-search` anyway; name the tools to list beside it"
        )));
    }
    Ok(())
}

/// Tool search can serve `session`: it is not in code-only mode (`code_only`, from the spec
/// file or a stored session: the flags themselves conflict), and every `--always` name is one
/// of its tools (`more` says how to give it more).
pub(super) fn check_served(
    always: &[String],
    session: &Session,
    code_only: bool,
    more: &str,
) -> Result<(), CliError> {
    if code_only {
        let why = match session.spec() {
            Some(_) => format!(
                "stored session `{}` was created in it, and keeps its settings",
                session.id()
            ),
            None => "the session spec's `code_only`".to_string(),
        };
        return Err(CliError::new(format!(
            "`--tool-search` was given for a session in code-only mode ({why}), which serves `execute_code` alone: there is nothing to search; leave out `--tool-search`"
        )));
    }
    let served = session.tools();
    if let Some(name) = always.iter().find(|name| served.get(name).is_none()) {
        return Err(CliError::new(format!(
            "`--always {name}`: `{name}` is not one of the tools served ({}); name tools served, or {more}",
            listed(&served.names())
        )));
    }
    Ok(())
}
