//! The resources and prompts `mcp` serves beside the tools: the spec's `resources` and
//! `prompts` when it names them (each must exist and bind), else every linked one this
//! session can serve.

use std::sync::Arc;

use cy_tools::ToolContext;
use cy_tools::catalog::{Catalog, CatalogRegistry};

use super::error::CliError;
use super::session::listed;

/// Binds the resources and prompts named (`None`: every linked one) to `context`. A name the
/// spec gives that cannot be served is an error saying why; of "every linked one", those that
/// cannot be are left out, with a note on stderr when `notes`.
pub(super) fn bind(
    registry: &CatalogRegistry,
    resources: Option<&[String]>,
    prompts: Option<&[String]>,
    context: &Arc<ToolContext>,
    notes: bool,
) -> Result<Catalog, CliError> {
    let resource_names: Vec<&str> = match resources {
        Some(names) => names.iter().map(String::as_str).collect(),
        None => registry.resource_names(),
    };
    let prompt_names: Vec<&str> = match prompts {
        Some(names) => names.iter().map(String::as_str).collect(),
        None => registry.prompt_names(),
    };
    let (catalog, left_out) = registry.build(&resource_names, &prompt_names, context);
    let named =
        |list: Option<&[String]>, name: &str| list.is_some_and(|l| l.iter().any(|n| n == name));
    if let Some((name, why)) = left_out
        .iter()
        .find(|(name, _)| named(resources, name) || named(prompts, name))
    {
        return Err(CliError::new(format!(
            "`{name}` in the session spec: {why}"
        )));
    }
    if notes && !left_out.is_empty() {
        let names: Vec<&str> = left_out.iter().map(|(name, _)| name.as_str()).collect();
        eprintln!(
            "note: {} of the linked resources and prompts are left out, as this session cannot serve them ({}); `CY_TOOLS_LOG=info` logs why",
            names.len(),
            listed(&names)
        );
    }
    Ok(catalog)
}
