//! Two link-time registrations with one name make `linked()` fail, naming both.

mod common;

use common::*;
use cy_tools::__private::inventory;
use cy_tools::{RegistryError, ToolRegistration, ToolRegistry};

inventory::submit!(ToolRegistration::new(&ADD, "crate_a::add"));
inventory::submit!(ToolRegistration::new(&ADD, "crate_b::add"));

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
