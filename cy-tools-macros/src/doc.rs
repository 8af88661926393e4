//! Doc comments as descriptions: the function's becomes the tool's, written as rustdoc and
//! schemars read them (one leading space off each `///` line, lines joined, ends trimmed), and
//! `#[doc = include_str!("...")]` works too.

use proc_macro2::{Literal, TokenStream};
use quote::{ToTokens, quote};
use syn::{Attribute, Expr};

/// One `#[doc]` attribute's value.
enum Line<'a> {
    /// `/// text` or `#[doc = "text"]`, without the one leading space.
    Text(String),
    /// `#[doc = include_str!("...")]` or another expression, known only when compiled.
    Expr(&'a Expr),
}

fn lines(attrs: &[Attribute]) -> Vec<Line<'_>> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => Some(match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => {
                    let line = s.value();
                    Line::Text(line.strip_prefix(' ').map(str::to_string).unwrap_or(line))
                }
                other => Line::Expr(other),
            }),
            _ => None,
        })
        .collect()
}

/// The description `attrs` give, when they hold any.
pub(crate) enum Description {
    /// Known now: every line is text.
    Known(String),
    /// Known when compiled: some line is an expression such as `include_str!`.
    Compiled(TokenStream),
}

impl Description {
    /// From the doc comments in `attrs`; `None` when they hold no text at all.
    pub(crate) fn of(attrs: &[Attribute]) -> Option<Description> {
        let lines = lines(attrs);
        if lines.iter().all(|l| matches!(l, Line::Text(_))) {
            let text: Vec<&str> = lines
                .iter()
                .filter_map(|l| match l {
                    Line::Text(t) => Some(t.as_str()),
                    Line::Expr(_) => None,
                })
                .collect();
            let text = text.join("\n").trim().to_string();
            return (!text.is_empty()).then_some(Description::Known(text));
        }
        let mut parts = TokenStream::new();
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                parts.extend(quote!("\n",));
            }
            match line {
                Line::Text(text) => Literal::string(text).to_tokens(&mut parts),
                Line::Expr(expr) => expr.to_tokens(&mut parts),
            }
            parts.extend(quote!(,));
        }
        Some(Description::Compiled(quote!(::core::concat!(#parts))))
    }

    /// The description as a `&'static str` expression; `trim` is the runtime's `trim_doc`.
    pub(crate) fn expr(&self, trim: TokenStream) -> TokenStream {
        match self {
            Description::Known(text) => Literal::string(text).into_token_stream(),
            Description::Compiled(concat) => quote!(#trim(#concat)),
        }
    }
}
