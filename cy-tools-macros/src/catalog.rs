//! The checks `#[resource]` and `#[prompt]` add to a tool's: the function is `async`, and a
//! resource's URI template names exactly its arguments.

use syn::LitStr;

use crate::ast::ToolFn;
use crate::attr::{Kind, ToolArgs};
use crate::errors::Errors;

pub(crate) fn check(tool: &ToolFn, args: &ToolArgs, errors: &mut Errors) {
    if args.kind == Kind::Tool {
        return;
    }
    let attr = args.kind.attr();
    let sig = &tool.item.sig;
    if sig.asyncness.is_none() {
        errors.spanned(
            sig.fn_token,
            format!(
                "a `#[{attr}]` function is `async`: write `async fn` (run blocking work inside it with `tokio::task::spawn_blocking`)"
            ),
        );
    }
    if args.kind != Kind::Resource {
        return;
    }
    let Some(uri) = &args.uri else {
        errors.spanned(
            &sig.ident,
            "a resource needs its URI: write `#[resource(uri = \"scheme://path\")]`, or a URI template whose `{variables}` are the function's arguments, as `uri = \"notes://{day}\"`",
        );
        return;
    };
    let Some(variables) = variables(uri, errors) else {
        return;
    };
    // An `#[args]` struct's fields are not known here: binding checks them.
    if tool.args_param().is_some() {
        return;
    }
    let fields: Vec<(String, &crate::ast::Param)> = tool
        .fields()
        .filter_map(|(param, field)| field.wire_name(&param.attrs).map(|name| (name, param)))
        .collect();
    for (name, param) in &fields {
        if !variables.contains(name) {
            errors.spanned(
                &param.tokens,
                format!(
                    "the argument `{name}` is not a variable of the URI `{}`: add `{{{name}}}` to the URI, or drop the argument (a resource's arguments are the variables of its URI)",
                    uri.value()
                ),
            );
        }
    }
    for variable in &variables {
        if !fields.iter().any(|(name, _)| name == variable) {
            errors.spanned(
                uri,
                format!(
                    "the URI names `{{{variable}}}`, which the function does not take: add an argument `{variable}: String` (or another type), or drop it from the URI"
                ),
            );
        }
    }
}

/// The names of the URI template's `{variables}`; `None` after reporting a malformed one.
fn variables(uri: &LitStr, errors: &mut Errors) -> Option<Vec<String>> {
    let text = uri.value();
    if text.is_empty() {
        errors.spanned(uri, "the URI is empty: give one such as `file:///notes.md`");
        return None;
    }
    let mut names = Vec::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            errors.spanned(
                uri,
                "the URI has a `}` without its `{`: write variables as `{name}`",
            );
            return None;
        }
        let Some(len) = rest[open..].find('}') else {
            errors.spanned(
                uri,
                "the URI has a `{` that is never closed: write variables as `{name}`",
            );
            return None;
        };
        let name = &rest[open + 1..open + len];
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            errors.spanned(
                uri,
                format!(
                    "the URI's `{{{name}}}` is not a simple variable: write `{{name}}` with letters, digits and `_` (RFC 6570 operators, lists and modifiers are not supported)"
                ),
            );
            return None;
        }
        if names.iter().any(|n| n == name) {
            errors.spanned(
                uri,
                format!("the URI names `{{{name}}}` twice: give each variable its own name"),
            );
            return None;
        }
        if open == 0 && !names.is_empty() {
            errors.spanned(
                uri,
                "the URI has two variables side by side, so where one ends is ambiguous: put a literal between them, such as `{a}-{b}`",
            );
            return None;
        }
        names.push(name.to_string());
        rest = &rest[open + len + 1..];
    }
    Some(names)
}
