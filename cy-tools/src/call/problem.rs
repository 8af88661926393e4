//! `ArgsError`: what is wrong with a call's arguments, as the text a model reads and as data a
//! program reads.

use std::fmt;

use serde::Serialize;

/// What kind of mistake an [`ArgProblem`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ProblemKind {
    /// The arguments are not a JSON object (nor a form read as one).
    Payload,
    /// A field the schema does not declare.
    UnknownField,
    /// A required field is absent.
    MissingField,
    /// A value of the wrong JSON type.
    InvalidType,
    /// A value of the right type that is not allowed (an unknown enum value, say).
    InvalidValue,
    /// A schema constraint the value breaks (a length, a range, a pattern).
    Constraint,
    /// Anything else, in the message.
    Other,
}

/// One thing wrong with a call's arguments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArgProblem {
    /// What kind of mistake.
    pub kind: ProblemKind,
    /// Where: the field path (`items[0].name`), empty for the arguments as a whole.
    pub path: String,
    /// What was expected there, when known (`a string`, `` `fast` or `slow` ``).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// What was sent there, when known (`` integer `3` ``).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub got: Option<String>,
    /// The problem in words, without the path.
    pub message: String,
}

impl ArgProblem {
    /// A problem of `kind` at `path`, said by `message`.
    pub fn new(kind: ProblemKind, path: impl Into<String>, message: impl Into<String>) -> Self {
        ArgProblem {
            kind,
            path: path.into(),
            expected: None,
            got: None,
            message: message.into(),
        }
    }

    /// The same problem, with what was expected and what was sent.
    #[must_use]
    pub fn with_expected_got(
        mut self,
        expected: impl Into<String>,
        got: impl Into<String>,
    ) -> Self {
        self.expected = Some(expected.into());
        self.got = Some(got.into());
        self
    }
}

/// What is wrong with one call's arguments: the message a model reads (the tool name and the
/// valid fields are added around it) and each problem as data, which an invalid-arguments
/// [`ToolResult`](crate::ToolResult) carries in its `details`.
///
/// A host's own [`Definition`](crate::definition::Definition) can answer with a plain message:
/// `ArgsError::from("...".to_string())`.
///
/// ```
/// use cy_tools::call::{ArgProblem, ArgsError, ProblemKind};
/// let err = ArgsError::new(
///     "`path`: expected a string, got integer `3`",
///     vec![ArgProblem::new(ProblemKind::InvalidType, "path", "expected a string, got integer `3`")
///         .with_expected_got("a string", "integer `3`")],
/// );
/// assert_eq!(err.to_string(), "`path`: expected a string, got integer `3`");
/// assert_eq!(err.problems()[0].path, "path");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgsError {
    text: String,
    problems: Vec<ArgProblem>,
}

impl ArgsError {
    /// An error read as `text`, made of `problems`.
    pub fn new(text: impl Into<String>, problems: Vec<ArgProblem>) -> Self {
        ArgsError {
            text: text.into(),
            problems,
        }
    }

    /// One problem, read as its path (when it has one) and message.
    pub fn one(problem: ArgProblem) -> Self {
        let text = if problem.path.is_empty() {
            problem.message.clone()
        } else {
            format!("`{}`: {}", problem.path, problem.message)
        };
        ArgsError::new(text, vec![problem])
    }

    /// The problems, in the order found.
    pub fn problems(&self) -> &[ArgProblem] {
        &self.problems
    }
}

impl From<String> for ArgsError {
    fn from(message: String) -> Self {
        ArgsError::one(ArgProblem::new(ProblemKind::Other, "", message))
    }
}

impl fmt::Display for ArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::error::Error for ArgsError {}
