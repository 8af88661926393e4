//! A description kept in a file, with `#[doc = include_str!(...)]`, for the tool and for an
//! argument.

use cy_tools::definition::Definition;
use cy_tools::tool;

#[doc = include_str!("include-str-docs.md")]
#[tool]
async fn summarize(
    #[doc = include_str!("include-str-docs.md")]
    text: String,
) -> String {
    text
}

/// The first line,
#[doc = include_str!("include-str-docs.md")]
#[tool]
async fn mixed() -> String {
    String::new()
}

fn main() {
    assert_eq!(
        SUMMARIZE.description(),
        "Summarize a text.\n\nLonger texts are cut to their first ten thousand characters."
    );
    let schema = SUMMARIZE.schema().unwrap();
    assert!(
        schema.value()["properties"]["text"]["description"]
            .as_str()
            .unwrap()
            .starts_with("Summarize a text.")
    );
    assert_eq!(
        MIXED.description(),
        "The first line,\nSummarize a text.\n\nLonger texts are cut to their first ten thousand characters."
    );
}
