//! `cy-tools list`: a table of the linked tools.

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
    let widths: Vec<usize> = (0..3)
        .map(|col| {
            rows.iter()
                .map(|r| r[col].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in &rows {
        for (col, width) in widths.iter().enumerate() {
            out.push_str(&format!("{:<width$}  ", row[col]));
        }
        out.push_str(&row[3]);
        out.push('\n');
    }
    print_stdout(out.trim_end())?;
    Ok(ExitCode::SUCCESS)
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
