//! Cross-checks between the function, its parameters and the `#[tool]` options. Every problem
//! is recorded with the span of the token it is about; nothing stops at the first one.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::{GenericArgument, PathArguments, Safety, Type};

use crate::ast::{ParamKind, ToolFn, last_segment, unraw};
use crate::attr::ToolArgs;
use crate::errors::Errors;
use crate::param_attrs::DefaultValue;
use crate::types::check_owned;

/// Longest tool name: MCP's limit (`cy_tools::definition::MAX_TOOL_NAME_LEN`).
const MAX_TOOL_NAME_LEN: usize = 128;

/// The tool's name: `name = "..."` or the function's.
pub(crate) fn tool_name(tool: &ToolFn, args: &ToolArgs) -> String {
    match &args.name {
        Some(name) => name.value(),
        None => unraw(&tool.item.sig.ident),
    }
}

pub(crate) fn check(tool: &ToolFn, args: &ToolArgs, errors: &mut Errors) {
    check_signature(tool, errors);
    check_placement(tool, errors);
    check_description(tool, args, errors);
    check_name(tool, args, errors);
    check_annotations(args, errors);
    check_params(tool, args, errors);
}

fn check_signature(tool: &ToolFn, errors: &mut Errors) {
    let sig = &tool.item.sig;
    if let Some(constness) = &sig.constness {
        errors.spanned(
            constness,
            "a tool function cannot be `const`: it runs when a model calls it; remove `const`",
        );
    }
    if let Safety::Unsafe(unsafety) = &sig.safety {
        errors.spanned(
            unsafety,
            "a tool function cannot be `unsafe`: a model calls it with any arguments, so it must be safe to call; remove `unsafe`",
        );
    }
    if let Some(abi) = &sig.abi {
        errors.spanned(
            abi,
            "a tool function cannot have an `extern` ABI: tools are called from Rust; remove the `extern`",
        );
    }
    if sig.generics.lt_token.is_some() || sig.generics.where_clause.is_some() {
        errors.spanned(
            &sig.generics,
            "a tool function cannot be generic: its parameter schema is fixed at compile time; use concrete types (and `'_` for lifetimes)",
        );
    }
    if let Some(variadic) = &sig.variadic {
        errors.spanned(variadic, "a tool function cannot be variadic: remove `...`");
    }
}

fn check_description(tool: &ToolFn, args: &ToolArgs, errors: &mut Errors) {
    match &args.description {
        Some(description) if description.value().trim().is_empty() => errors.spanned(
            description,
            match args.kind {
                crate::attr::Kind::Tool => "the tool description is empty: the model needs it to know when to call the tool; say what the tool does".to_string(),
                kind => format!(
                    "the {kind} description is empty: a client shows it to say what the {kind} is; say what it is",
                    kind = kind.attr()
                ),
            },
        ),
        Some(_) => {}
        None if tool.doc().is_none() => errors.spanned(
            &tool.item.sig.ident,
            format!(
                "{kind} `{}` has no description: {}; add a doc comment to the function or `description = \"...\"` to `#[{kind}]`",
                unraw(&tool.item.sig.ident),
                match args.kind {
                    crate::attr::Kind::Tool => "the model needs one to know when to call it",
                    _ => "a client shows it to say what this is",
                },
                kind = args.kind.attr(),
            ),
        ),
        None => {}
    }
}

fn check_name(tool: &ToolFn, args: &ToolArgs, errors: &mut Errors) {
    let name = tool_name(tool, args);
    let valid =
        !name.is_empty() && name.len() <= MAX_TOOL_NAME_LEN && name.bytes().all(is_name_byte);
    if valid {
        return;
    }
    let rule = "a tool name is 1 to 128 ASCII letters, digits, `_`, `-` or `.` (MCP's rule)";
    match &args.name {
        Some(lit) => errors.spanned(
            lit,
            format!(
                "invalid tool name `{name}`: {rule}; rename it, for example `{}`",
                suggest_name(&name)
            ),
        ),
        None => errors.spanned(
            &tool.item.sig.ident,
            format!("invalid tool name `{name}`: {rule}; set one with `#[tool(name = \"...\")]`"),
        ),
    }
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.'
}

/// A valid name close to `name`, for the error message.
fn suggest_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii() && is_name_byte(c as u8) {
                c
            } else {
                '_'
            }
        })
        .collect();
    out.truncate(MAX_TOOL_NAME_LEN);
    if out.trim_matches('_').is_empty() {
        "my_tool".to_string()
    } else {
        out
    }
}

fn check_annotations(args: &ToolArgs, errors: &mut Errors) {
    if let (Some(read_only), Some(destructive)) = (args.read_only, args.destructive)
        && read_only.value
        && destructive.value
    {
        errors.at(
            destructive.span,
            "a `read_only` tool cannot be `destructive`: it changes nothing; remove one of them",
        );
    }
}

fn check_params(tool: &ToolFn, args: &ToolArgs, errors: &mut Errors) {
    let mut ctx_seen = false;
    let mut call_seen = false;
    let mut names: Vec<String> = Vec::new();
    let args_param = tool.args_param();
    for param in &tool.params {
        let is_field = matches!(param.kind, ParamKind::Field(_));
        if let (Some(arg), false) = (&param.attrs.arg, is_field) {
            errors.spanned(
                arg,
                "`#[arg]` configures an argument the model sends; this parameter is filled by the runtime, so remove `#[arg]`",
            );
        }
        match &param.kind {
            ParamKind::Receiver(receiver) => check_receiver(tool, receiver, errors),
            ParamKind::Ctx => {
                if ctx_seen {
                    errors.spanned(
                        &param.tokens,
                        "duplicate `Ctx` parameter: take the context once",
                    );
                }
                ctx_seen = true;
                check_ctx_type(tool, param.index, errors);
            }
            ParamKind::Call => {
                if call_seen {
                    errors.spanned(
                        &param.tokens,
                        "duplicate `CallInfo` parameter: take it once",
                    );
                }
                call_seen = true;
            }
            ParamKind::Service(cap) => {
                if !args.grants(*cap) {
                    errors.spanned(
                        &param.tokens,
                        format!(
                            "this parameter asks for the session's `{}` (`&{}{}`), which the {kind} does not declare: add `{}` to `#[{kind}(capabilities(...))]`",
                            cap.name(),
                            if *cap == crate::caps::Cap::Session { "" } else { "dyn " },
                            cap.service(),
                            cap.name(),
                            kind = args.kind.attr(),
                        ),
                    );
                }
            }
            ParamKind::State(None) => errors.spanned(
                &param.tokens,
                "`State` takes the type of the application object: write `State<'_, MyType>`",
            ),
            ParamKind::State(Some(_)) => {}
            ParamKind::Args(ty) => {
                if let Some((first, _)) = args_param
                    && first.index != param.index
                {
                    errors.spanned(
                        &param.tokens,
                        "duplicate `#[args]` parameter: one struct takes all the arguments",
                    );
                }
                check_owned(ty, errors);
            }
            ParamKind::Field(field) => {
                let Some(ident) = &field.ident else {
                    errors.spanned(
                        &field.pat,
                        "a tool parameter must be a plain name, not a pattern: the name becomes the schema field; bind a name (`point: Point`) and destructure in the body",
                    );
                    continue;
                };
                if let Some((_, _)) = args_param {
                    errors.spanned(
                        &param.tokens,
                        format!(
                            "parameter `{}` cannot sit beside an `#[args]` struct, which takes all the arguments: move it into that struct",
                            unraw(ident)
                        ),
                    );
                }
                check_owned(&field.ty, errors);
                if let Some((DefaultValue::Trait | DefaultValue::Expr(_), span)) =
                    &param.attrs.default
                    && is_option(&field.ty)
                {
                    errors.at(
                        *span,
                        format!(
                            "`default` on an `Option` parameter: `{}` is optional already and is `None` when the model leaves it out; remove `default`, or drop the `Option` to give it a value",
                            unraw(ident)
                        ),
                    );
                }
                if let Some(rename) = &param.attrs.rename
                    && rename.value().is_empty()
                {
                    errors.spanned(rename, "`rename` to an empty name: give the field a name");
                }
                let wire = field.wire_name(&param.attrs).unwrap_or_default();
                if names.contains(&wire) {
                    let at = match &param.attrs.rename {
                        Some(rename) => rename.to_token_stream(),
                        None => field.pat.to_token_stream(),
                    };
                    errors.spanned(
                        at,
                        format!(
                            "two parameters are named `{wire}` for the model (after `rename`): each argument needs its own name; rename one of them"
                        ),
                    );
                } else {
                    names.push(wire);
                }
            }
        }
    }
}

/// A method tool takes `&self`, the object the application gave the session; anything else
/// (or a method outside a `#[tools]` impl) is refused with the fix.
fn check_receiver(tool: &ToolFn, receiver: &syn::Receiver, errors: &mut Errors) {
    if tool.method.is_none() {
        errors.spanned(
            receiver,
            "a method is a tool only inside an `impl` block marked `#[tools]`: put `#[tools]` on the `impl` (its `&self` is then the object the application gives the session), or make this a free function",
        );
        return;
    }
    let shared_ref = matches!(receiver.kind, syn::ReceiverKind::Reference(_, _, None))
        && receiver.mutability.is_none();
    if !shared_ref {
        errors.spanned(
            receiver,
            "a tool method takes `&self`: every call of the session shares the object, so it cannot be taken by value or as `&mut`; keep what changes behind a `Mutex` or an atomic",
        );
    }
}

/// A method of a `#[tools]` impl without `self`, or a free function naming `Self` (so it sits
/// in an `impl` without `#[tools]`): one error each, instead of rustc's about the generated
/// items.
fn check_placement(tool: &ToolFn, errors: &mut Errors) {
    let sig = &tool.item.sig;
    match &tool.method {
        Some(method) if tool.receiver().is_none() => errors.spanned(
            &sig.ident,
            format!(
                "`{}` has no `self`, so it cannot be a tool of `{}`: take `&self` (the object the application gives the session), or move it out of the `impl` as a free function with `#[tool]`",
                unraw(&sig.ident),
                method.type_name
            ),
        ),
        None if tool.receiver().is_none() && names_self(quote::quote!(#sig)) => errors.spanned(
            &sig.ident,
            "this function names `Self`, so it sits in an `impl`: a method is a tool only inside an `impl` block marked `#[tools]`, and takes `&self`",
        ),
        _ => {}
    }
}

/// Whether `tokens` mention `Self`.
fn names_self(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => ident == "Self",
        TokenTree::Group(group) => names_self(group.stream()),
        _ => false,
    })
}

/// `Ctx<'_>` only: the macro writes the capability set itself.
fn check_ctx_type(tool: &ToolFn, index: usize, errors: &mut Errors) {
    let Some(syn::FnArg::Typed(typed)) = tool.item.sig.inputs.iter().nth(index) else {
        return;
    };
    let Some(segment) = last_segment(&typed.ty) else {
        return;
    };
    if let PathArguments::AngleBracketed(generic) = &segment.arguments {
        if generic
            .args
            .iter()
            .any(|a| !matches!(a, GenericArgument::Lifetime(_)))
        {
            errors.spanned(
                &typed.ty,
                "`#[tool]` generates the capability set of `Ctx`: write `Ctx<'_>` and list the capabilities in `#[tool(capabilities(...))]`",
            );
        }
    } else if matches!(segment.arguments, PathArguments::Parenthesized(_)) {
        errors.spanned(&typed.ty, "write the context parameter as `Ctx<'_>`");
    }
}

fn is_option(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "Option")
}
