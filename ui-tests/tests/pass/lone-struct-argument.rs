//! A struct as a tool's only inline argument would reach the model nested under the argument's
//! name: it is refused (with both fixes) when the schema is made. `#[args]` takes its fields
//! as the arguments; `#[arg(nested)]` keeps it nested on purpose.

use cy_tools::definition::Definition;
use cy_tools::tool;

/// Two numbers.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Pair {
    /// The first.
    a: i64,
    /// The second.
    b: i64,
}

/// Add two numbers.
#[tool(register = false)]
async fn add(/** The numbers. */ pair: Pair) -> i64 {
    pair.a + pair.b
}

/// Add two numbers, taking the struct's fields as the arguments.
#[tool(register = false)]
async fn add_flat(#[args] pair: Pair) -> i64 {
    pair.a + pair.b
}

/// Add two numbers, sent nested.
#[tool(register = false)]
async fn add_nested(
    /// The numbers.
    #[arg(nested)]
    pair: Pair,
) -> i64 {
    pair.a + pair.b
}

/// Add a pair to a number: with another argument, nesting is what a struct argument means.
#[tool(register = false)]
async fn add_to(/** The numbers. */ pair: Pair, /** The base. */ base: i64) -> i64 {
    base + pair.a + pair.b
}

/// How to round.
#[derive(serde::Deserialize, schemars::JsonSchema)]
enum Rounding {
    /// Up.
    Up,
    /// Down.
    Down,
}

/// Round: a lone enum argument is fine.
#[tool(register = false)]
async fn round(/** How. */ rounding: Rounding) -> &'static str {
    match rounding {
        Rounding::Up => "up",
        Rounding::Down => "down",
    }
}

fn main() {
    let err = ADD.schema().unwrap_err().to_string();
    assert_eq!(
        err,
        "tool `add` has an invalid parameter schema: `pair` is its only argument and a struct, so the model would have to send the struct's fields nested, as `{\"pair\": {...}}`; mark the parameter `#[args]` to take the struct's fields as the tool's arguments, or `#[arg(nested)]` to keep them under `pair`"
    );
    assert_eq!(ADD_FLAT.schema().unwrap().properties(), ["a", "b"]);
    assert_eq!(ADD_NESTED.schema().unwrap().properties(), ["pair"]);
    assert_eq!(ADD_TO.schema().unwrap().properties(), ["base", "pair"]);
    assert_eq!(ROUND.schema().unwrap().properties(), ["rounding"]);
}
