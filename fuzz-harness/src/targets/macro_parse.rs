//! The `#[tool]`, `#[resource]`, `#[prompt]` and `#[tools]` pipelines (parse, validate,
//! expand) on any tokens: they must never panic, and when the input is a function (for the
//! first three) or an `impl` block (for `#[tools]`) the output must be Rust items (the errors as `compile_error!` beside the input,
//! or the generated code).
//!
//! Input: UTF-8 text; the first line is the attribute's arguments (`name = "x", read_only`),
//! the rest the item it is put on.

use proc_macro2::TokenStream;

use crate::attr::Kind;
use crate::{expand, methods};

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
    for kind in [Kind::Tool, Kind::Resource, Kind::Prompt] {
        let output = expand::attribute(kind, args.clone(), item.clone());
        let printed = output.to_string();
        if is_fn && let Err(err) = syn::parse2::<syn::File>(output) {
            panic!(
                "the `#[{}]` expansion of a function is not Rust items ({err}):\n{printed}",
                kind.attr()
            );
        }
    }
    let is_impl = syn::parse2::<syn::ItemImpl>(item.clone()).is_ok();
    let output = methods::tools(args, item);
    let printed = output.to_string();
    if is_impl && let Err(err) = syn::parse2::<syn::File>(output) {
        panic!("the expansion of an `impl` block is not Rust items ({err}):\n{printed}");
    }
}
