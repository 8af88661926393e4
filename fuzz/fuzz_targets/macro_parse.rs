//! The `#[tool]` pipeline (parse, validate, expand) on any tokens: it must never panic, and
//! when the input is a function its output must be Rust items (the errors as
//! `compile_error!` beside the function, or the generated code).
//!
//! A proc-macro crate cannot be linked as a library, so its pipeline modules, which use only
//! `proc_macro2`, are compiled in here from the macro crate's sources.
//!
//! Input: UTF-8 text; the first line is the attribute's arguments (`name = "x", read_only`),
//! the rest the item it is put on.

#![no_main]

use libfuzzer_sys::fuzz_target;
use proc_macro2::TokenStream;

#[allow(dead_code)]
#[path = "../../cy-tools-macros/src/ast.rs"]
mod ast;
#[allow(dead_code)]
#[path = "../../cy-tools-macros/src/attr.rs"]
mod attr;
#[allow(dead_code)]
#[path = "../../cy-tools-macros/src/errors.rs"]
mod errors;
#[allow(dead_code)]
#[path = "../../cy-tools-macros/src/expand.rs"]
mod expand;
#[allow(dead_code)]
#[path = "../../cy-tools-macros/src/valid.rs"]
mod valid;

fuzz_target!(|data: &[u8]| {
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
    if is_fn {
        if let Err(err) = syn::parse2::<syn::File>(output) {
            panic!("the expansion of a function is not Rust items ({err}):\n{printed}");
        }
    }
});
