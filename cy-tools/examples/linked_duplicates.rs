//! Two crates registering a tool under one name: `ToolRegistry::linked()` refuses to build, and
//! its error names both registrations, so whoever links them knows what to rename.
//!
//! Run with `cargo run -p cy-tools --example linked_duplicates`. `cargo test` runs its check
//! (`test = true` in `Cargo.toml`). It is an example of its own rather than a module of the
//! integration suite because a registration is linked into whatever binary holds it: in the
//! suite's one binary, these two would make `linked()` fail for every other test.

use cy_tools::__private::inventory;
use cy_tools::{
    BoxFuture, CallInfo, Ctx, ToolRegistry, ToolResult, binding::ToolRegistration,
    definition::ToolDefinition,
};

fn add<'a>(_: (), _: Ctx<'a>, _: CallInfo<'a>) -> BoxFuture<'a, ToolResult> {
    Box::pin(async { ToolResult::text("42") })
}

static ADD: ToolDefinition<()> = ToolDefinition::new("add", "Adds two integers.", add);

// What two crates' `#[tool] fn add` submit, each naming where it comes from.
inventory::submit!(ToolRegistration::new(&ADD, "crate_a::add"));
inventory::submit!(ToolRegistration::new(&ADD, "crate_b::add"));

fn main() {
    match ToolRegistry::linked() {
        Ok(_) => println!("no duplicate names were linked"),
        Err(err) => println!("ToolRegistry::linked() refused: {err}"),
    }
}

#[cfg(test)]
mod tests {
    use cy_tools::{ToolRegistry, binding::RegistryError};

    #[test]
    fn duplicate_link_time_names_are_an_error_naming_both() {
        let err = ToolRegistry::linked().unwrap_err();
        let RegistryError::Duplicate {
            name,
            first,
            second,
        } = err
        else {
            panic!("expected a duplicate error, got {err:?}");
        };
        assert_eq!(name, "add");
        // inventory's order is unspecified: both places are named, in either order.
        let mut places = [first, second];
        places.sort();
        assert_eq!(places, ["crate_a::add", "crate_b::add"]);
    }
}
