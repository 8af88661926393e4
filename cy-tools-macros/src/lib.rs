//! The `#[tool]` attribute for `cy-tools`. Use it through `cy_tools::tool`; the documentation
//! is on [`tool`].

mod ast;
mod attr;
mod errors;
mod expand;
mod valid;

use proc_macro::TokenStream;

/// placeholder
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tool(args.into(), input.into()).into()
}
