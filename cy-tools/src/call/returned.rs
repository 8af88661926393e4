//! How `#[tool]` turns what a function returns into a [`ToolResult`]: through
//! [`IntoToolResult`] when the type has it, or else as JSON when it is `serde::Serialize` (so a
//! tool may return `i64`, `bool`, `Vec<T>` or a struct of its own).
//!
//! Rust cannot write "`IntoToolResult`, or else `Serialize`" as two trait impls (they overlap:
//! `String` is both), so the generated code picks by method resolution on a concrete type, which
//! tries `&&&&Returned<R>` before `&&&Returned<R>` and so on down: the first `Pick*` trait whose
//! impl applies chooses the converter. The last one applies to every type and chooses
//! [`IntoToolResult`], so a type that is neither gets that trait's error, which says what a tool
//! may return.

use std::fmt::Display;
use std::marker::PhantomData;

use serde::Serialize;
use serde_json::Value;

use crate::BoxFuture;

use super::into_result::{IntoToolResult, unserializable};
use super::result::ToolResult;

/// Not public API: the return type `R` of a tool function, to pick its converter.
pub struct Returned<R>(PhantomData<fn() -> R>);

impl<R> Returned<R> {
    /// The probe for the type of `value`.
    pub fn of(_value: &R) -> Self {
        Returned(PhantomData)
    }
}

/// Not public API: boxes an `async` tool body's future and converts its output with `convert`
/// (the converter the generated code picked).
pub fn box_converted<'a, F, C>(future: F, convert: C) -> BoxFuture<'a, ToolResult>
where
    F: Future + Send + 'a,
    C: FnOnce(F::Output) -> ToolResult + Send + 'a,
{
    Box::pin(async move { convert(future.await) })
}

/// A type a tool can return as JSON. Exists so the error for a type that cannot be returned
/// says what to do.
#[diagnostic::on_unimplemented(
    message = "a tool cannot return `{Self}`: it does not implement `serde::Serialize`",
    label = "this value cannot be sent to the model",
    note = "add `#[derive(serde::Serialize)]` to `{Self}`, or return `String`, `ToolResult` or another type that implements `IntoToolResult`"
)]
pub trait ToolOutput: Serialize {}

#[diagnostic::do_not_recommend]
impl<T: Serialize> ToolOutput for T {}

/// An error type a tool can return. Exists so the error for one that cannot says what to do.
#[diagnostic::on_unimplemented(
    message = "a tool's error type must implement `Display`, and `{Self}` does not",
    label = "the model is shown this error as text",
    note = "implement `std::fmt::Display` for `{Self}` (with a message saying what went wrong and what to do), or return `cy_tools::ToolError`"
)]
pub trait ToolErrorText: Display {}

#[diagnostic::do_not_recommend]
impl<T: Display> ToolErrorText for T {}

/// Converts through [`IntoToolResult`].
pub struct ViaIntoToolResult;

impl ViaIntoToolResult {
    /// The result.
    pub fn convert<R: IntoToolResult>(self, value: R) -> ToolResult {
        value.into_tool_result()
    }
}

/// Converts a `Serialize` value: a string, number, boolean or `null` becomes its text, anything
/// else a JSON block.
pub struct ViaSerialize;

impl ViaSerialize {
    /// The result.
    pub fn convert<R: ToolOutput>(self, value: R) -> ToolResult {
        serialized(&value)
    }
}

/// Converts a `Result` of a `Serialize` value.
pub struct ViaSerializeResult;

impl ViaSerializeResult {
    /// The result.
    pub fn convert<T: ToolOutput, E: ToolErrorText>(self, value: Result<T, E>) -> ToolResult {
        match value {
            Ok(value) => serialized(&value),
            Err(err) => ToolResult::error(err.to_string()),
        }
    }
}

fn serialized<T: Serialize + ?Sized>(value: &T) -> ToolResult {
    match serde_json::to_value(value) {
        Ok(Value::String(text)) => ToolResult::text(text),
        Ok(scalar @ (Value::Number(_) | Value::Bool(_) | Value::Null)) => {
            ToolResult::text(scalar.to_string())
        }
        Ok(value) => ToolResult::json(value),
        Err(err) => unserializable(&err),
    }
}

/// First choice: the type converts itself.
pub trait PickIntoToolResult {
    /// The converter.
    fn kind(&self) -> ViaIntoToolResult {
        ViaIntoToolResult
    }
}

impl<R: IntoToolResult> PickIntoToolResult for &&&&Returned<R> {}

/// Second: a `Result` of a `Serialize` value with a `Display` error.
pub trait PickSerializeResult {
    /// The converter.
    fn kind(&self) -> ViaSerializeResult {
        ViaSerializeResult
    }
}

impl<T: Serialize, E: Display> PickSerializeResult for &&&Returned<Result<T, E>> {}

/// Third: any other `Result`, so its error names what is missing (rather than `Result` itself
/// being sent as JSON when both sides are `Serialize`).
pub trait PickResult {
    /// The converter.
    fn kind(&self) -> ViaSerializeResult {
        ViaSerializeResult
    }
}

impl<T, E> PickResult for &&Returned<Result<T, E>> {}

/// Fourth: any `Serialize` value.
pub trait PickSerialize {
    /// The converter.
    fn kind(&self) -> ViaSerialize {
        ViaSerialize
    }
}

impl<R: Serialize> PickSerialize for &Returned<R> {}

/// Last: anything else, through [`IntoToolResult`], whose error says what a tool may return.
pub trait PickAny {
    /// The converter.
    fn kind(&self) -> ViaIntoToolResult {
        ViaIntoToolResult
    }
}

impl<R> PickAny for Returned<R> {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{Json, ToolError};

    macro_rules! convert {
        ($value:expr) => {{
            let value = $value;
            (&&&&&Returned::of(&value)).kind().convert(value)
        }};
    }

    #[derive(Serialize)]
    struct Point {
        x: i32,
    }

    #[test]
    fn each_kind_of_return_converts_as_documented() {
        assert_eq!(convert!(String::from("hi")), ToolResult::text("hi"));
        assert_eq!(convert!(5_i64), ToolResult::text("5"));
        assert_eq!(convert!(true), ToolResult::text("true"));
        assert_eq!(convert!(None::<u8>), ToolResult::text("null"));
        assert_eq!(convert!('x'), ToolResult::text("x"));
        assert_eq!(convert!(vec![1, 2]), ToolResult::json(json!([1, 2])));
        assert_eq!(convert!(Point { x: 1 }), ToolResult::json(json!({"x": 1})));
        assert_eq!(convert!(Json(3)), ToolResult::json(json!(3)));
        assert_eq!(convert!(Ok::<u8, ToolError>(2)), ToolResult::text("2"));
        let failed = convert!(Err::<Point, _>(ToolError::new("no point")));
        assert!(failed.is_error);
        assert_eq!(failed.text_content(), "no point");
        // A `Result` that converts itself keeps its own conversion.
        assert_eq!(
            convert!(Ok::<String, ToolError>("a".into())),
            ToolResult::text("a")
        );
        assert_eq!(convert!(()), ToolResult::text("done"));
    }
}
