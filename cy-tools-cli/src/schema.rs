//! `cy-tools schema`: a tool's canonical schema or its declaration in a dialect.

use std::process::ExitCode;

use cy_tools::dialect::Dialect;

use super::error::CliError;
use super::print_stdout;
use super::session::{listed, registry, unknown_tool};

#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The tool
    tool: String,
    /// Print the declaration in this dialect instead of the canonical parameter schema:
    /// openai, openai-strict, anthropic, anthropic-strict, gemini, gemini-json-schema or mcp
    #[arg(long, value_name = "DIALECT", value_parser = parse_dialect)]
    dialect: Option<Dialect>,
}

fn parse_dialect(name: &str) -> Result<Dialect, String> {
    Dialect::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        format!("unknown dialect; valid dialects are {}", listed(&names))
    })
}

pub(super) fn run(args: &Args) -> Result<ExitCode, CliError> {
    let registry = registry()?;
    let definition = registry
        .definition(&args.tool)
        .ok_or_else(|| unknown_tool(&args.tool, &registry))?;
    let value = match args.dialect {
        Some(dialect) => dialect
            .export_definition(&args.tool, definition)
            .map_err(|err| CliError::new(err.to_string()))?,
        None => definition
            .schema()
            .map_err(|err| CliError::new(err.to_string()))?
            .value()
            .clone(),
    };
    let text = serde_json::to_string_pretty(&value)
        .map_err(|err| CliError::new(format!("cannot print the schema: {err}")))?;
    print_stdout(&text)?;
    Ok(ExitCode::SUCCESS)
}
