//! The `#[tool]` pipeline (parse, validate, expand) on any tokens: it must never panic, and
//! when the input is a function its output must be Rust items (the errors as
//! `compile_error!` beside the function, or the generated code).
//!
//! Input: UTF-8 text; the first line is the attribute's arguments (`name = "x", read_only`),
//! the rest the item it is put on.

use proc_macro2::TokenStream;

use crate::expand;

/// Runs one input.
///
/// # Panics
/// When the pipeline panics, or expands a function into something that is not Rust items.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (args, item) = text.split_once('\n').unwrap_or((text, ""));
    let (Ok(args), Ok(item)) = (args.parse::<TokenStream>(), item.parse::<TokenStream>()) else {
        return;
    };
    let is_fn = syn::parse2::<syn::ItemFn>(item.clone()).is_ok();
    let output = expand::tool(args, item);
    let printed = output.to_string();
    if is_fn && let Err(err) = syn::parse2::<syn::File>(output) {
        panic!("the expansion of a function is not Rust items ({err}):\n{printed}");
    }
}
