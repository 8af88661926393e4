//! `cy-tools list`: a table of the linked tools, then of the linked resources and prompts
//! (when there are any).

use std::process::ExitCode;

use cy_tools::definition::ToolAnnotations;

use super::error::CliError;
use super::print_stdout;
use super::session::registry;

pub(super) fn run() -> Result<ExitCode, CliError> {
    let registry = registry()?;
    let mut rows = vec![[
        "NAME".to_string(),
        "CAPABILITIES".to_string(),
        "ANNOTATIONS".to_string(),
        "DESCRIPTION".to_string(),
    ]];
    for (name, definition) in registry.definitions() {
        rows.push([
            name.to_string(),
            definition.capabilities().to_string().replace(", ", ","),
            annotations(definition.annotations()),
            summary(definition.description()),
        ]);
    }
    let mut out = table(&rows);
    let catalog = registry.catalog();
    let resources: Vec<_> = catalog
        .resource_names()
        .into_iter()
        .filter_map(|name| catalog.resource(name))
        .collect();
    if !resources.is_empty() {
        let mut rows = vec![[
            "RESOURCE".to_string(),
            "URI".to_string(),
            "CAPABILITIES".to_string(),
            "DESCRIPTION".to_string(),
        ]];
        for resource in resources {
            let meta = resource.meta();
            rows.push([
                meta.name().to_string(),
                meta.uri().to_string(),
                resource.capabilities().to_string().replace(", ", ","),
                summary(meta.description()),
            ]);
        }
        out.push('\n');
        out.push_str(&table(&rows));
    }
    let prompts: Vec<_> = catalog
        .prompt_names()
        .into_iter()
        .filter_map(|name| catalog.prompt(name))
        .collect();
    if !prompts.is_empty() {
        let mut rows = vec![[
            "PROMPT".to_string(),
            "ARGUMENTS".to_string(),
            "CAPABILITIES".to_string(),
            "DESCRIPTION".to_string(),
        ]];
        for prompt in prompts {
            let meta = prompt.meta();
            let arguments = prompt
                .schema()
                .map(|schema| schema.properties().join(","))
                .unwrap_or_else(|err| format!("(invalid: {err})"));
            rows.push([
                meta.name().to_string(),
                if arguments.is_empty() {
                    "-".to_string()
                } else {
                    arguments
                },
                prompt.capabilities().to_string().replace(", ", ","),
                summary(meta.description()),
            ]);
        }
        out.push('\n');
        out.push_str(&table(&rows));
    }
    print_stdout(out.trim_end())?;
    Ok(ExitCode::SUCCESS)
}

/// Rows of four columns, the first three padded to their widest cell.
fn table(rows: &[[String; 4]]) -> String {
    let widths: Vec<usize> = (0..3)
        .map(|col| {
            rows.iter()
                .map(|r| r[col].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        for (col, width) in widths.iter().enumerate() {
            out.push_str(&format!("{:<width$}  ", row[col]));
        }
        out.push_str(&row[3]);
        out.push('\n');
    }
    out
}

/// All four hints, so a reader need not know MCP's defaults: `read-only` or
/// `destructive`/`additive`, then `idempotent` when so, then `open-world` or `closed-world`.
fn annotations(a: ToolAnnotations) -> String {
    let mut words = vec![if a.read_only {
        "read-only"
    } else if a.destructive {
        "destructive"
    } else {
        "additive"
    }];
    if a.idempotent {
        words.push("idempotent");
    }
    words.push(if a.open_world {
        "open-world"
    } else {
        "closed-world"
    });
    words.join(",")
}

/// The description's first sentence, on one line, cut at [`SUMMARY_CHARS`].
fn summary(description: &str) -> String {
    let one_line = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let sentence = match one_line.find(". ") {
        Some(end) => &one_line[..=end],
        None => one_line.as_str(),
    };
    if sentence.chars().count() <= SUMMARY_CHARS {
        return sentence.to_string();
    }
    let cut: String = sentence.chars().take(SUMMARY_CHARS - 3).collect();
    format!("{}...", cut.trim_end())
}

const SUMMARY_CHARS: usize = 100;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_the_first_sentence_on_one_line() {
        assert_eq!(
            summary("Read a file\nfrom the workspace. Refuses binary files."),
            "Read a file from the workspace."
        );
        assert_eq!(summary("No full stop"), "No full stop");
        let long = "word ".repeat(40);
        let cut = summary(&long);
        assert_eq!(cut.chars().count(), SUMMARY_CHARS);
        assert!(cut.ends_with(" wo..."));
    }
}
