//! Cross-checks between the function, its parameters and the `#[tool]` options. Every problem
//! is recorded with the span of the token it is about; nothing stops at the first one.

use quote::ToTokens;
use syn::{GenericArgument, PathArguments, Safety, Type};

use crate::ast::{ParamKind, ToolFn, last_segment, unraw};
use crate::attr::{DefaultValue, ToolArgs};
use crate::errors::Errors;

/// Longest tool name every provider accepts (`cy_tools::definition::MAX_TOOL_NAME_LEN`).
const MAX_TOOL_NAME_LEN: usize = 64;

/// The tool's name: `name = "..."` or the function's.
pub(crate) fn tool_name(tool: &ToolFn, args: &ToolArgs) -> String {
    match &args.name {
        Some(name) => name.value(),
        None => unraw(&tool.item.sig.ident),
    }
}

pub(crate) fn check(tool: &ToolFn, args: &ToolArgs, errors: &mut Errors) {
    check_signature(tool, errors);
    check_description(tool, args, errors);
    check_name(tool, args, errors);
    check_annotations(args, errors);
    check_params(tool, args, errors);
}

fn check_signature(tool: &ToolFn, errors: &mut Errors) {
    let sig = &tool.item.sig;
    let name = unraw(&sig.ident);
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
    if sig.asyncness.is_none() {
        errors.spanned(
            sig.fn_token,
            format!("a tool function must be `async`: write `async fn {name}`"),
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
            "the tool description is empty: the model needs it to know when to call the tool; say what the tool does",
        ),
        Some(_) => {}
        None if tool.doc().is_empty() => errors.spanned(
            &tool.item.sig.ident,
            format!(
                "tool `{}` has no description: the model needs one to know when to call it; add a doc comment to the function or `description = \"...\"` to `#[tool]`",
                unraw(&tool.item.sig.ident)
            ),
        ),
        None => {}
    }
}

fn check_name(tool: &ToolFn, args: &ToolArgs, errors: &mut Errors) {
    let name = tool_name(tool, args);
    let valid = !name.is_empty()
        && name.len() <= MAX_TOOL_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if valid {
        return;
    }
    let rule =
        "a tool name is 1 to 64 ASCII letters, digits, `_` or `-`, which every provider accepts";
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

/// A valid name close to `name`, for the error message.
fn suggest_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
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
            ParamKind::Receiver => errors.spanned(
                &param.tokens,
                "a tool cannot be a method: it takes `self`; make it a free `async fn` and reach session state through `Ctx`",
            ),
            ParamKind::Ctx => {
                if ctx_seen {
                    errors.spanned(&param.tokens, "duplicate `Ctx` parameter: take the context once");
                }
                ctx_seen = true;
                check_ctx_type(tool, param.index, errors);
            }
            ParamKind::Call => {
                if call_seen {
                    errors.spanned(&param.tokens, "duplicate `CallInfo` parameter: take it once");
                }
                call_seen = true;
            }
            ParamKind::Service(cap) => {
                if !args.grants(*cap) {
                    errors.spanned(
                        &param.tokens,
                        format!(
                            "this parameter asks for the session's `{}` (`&{}{}`), which the tool does not declare: add `{}` to `#[tool(capabilities(...))]`",
                            cap.name(),
                            if *cap == crate::caps::Cap::Session { "" } else { "dyn " },
                            cap.service(),
                            cap.name()
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

/// Refuses types a model's JSON cannot be deserialized into without borrowing.
fn check_owned(ty: &Type, errors: &mut Errors) {
    if let Some(bad) = find_impl_trait(ty) {
        errors.spanned(
            bad,
            "a tool parameter cannot be `impl Trait`: the arguments are deserialized into one concrete type; name that type (for example `String` or `Vec<u64>`)",
        );
        return;
    }
    if let Some(bad) = find_reference(ty).or_else(|| find_borrow(ty)) {
        let hint = match bad {
            Type::Reference(r) if last_segment(&r.elem).is_some_and(|s| s.ident == "str") => {
                "use `String`".to_string()
            }
            Type::Reference(r) if matches!(&*r.elem, Type::Slice(_)) => {
                "use `Vec<...>`".to_string()
            }
            Type::Reference(r) if last_segment(&r.elem).is_some_and(|s| s.ident == "Path") => {
                "use `PathBuf`".to_string()
            }
            _ => "use an owned type".to_string(),
        };
        errors.spanned(
            bad,
            format!(
                "a tool parameter cannot borrow: the arguments are deserialized from the model's JSON into owned values that outlive it; {hint}"
            ),
        );
    }
}

/// Any reference inside `ty`, `'static` ones too: serde cannot hand out `&'static` data
/// from a model's JSON.
fn find_reference(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(_) => Some(ty),
        other => children(other).into_iter().find_map(find_reference),
    }
}

fn find_impl_trait(ty: &Type) -> Option<&Type> {
    match ty {
        Type::ImplTrait(_) => Some(ty),
        other => children(other).into_iter().find_map(find_impl_trait),
    }
}

/// A reference, or a type with a lifetime other than `'static`, inside `ty`.
fn find_borrow(ty: &Type) -> Option<&Type> {
    match ty {
        Type::Reference(r) if r.lifetime.as_ref().is_none_or(|l| l.ident != "static") => Some(ty),
        Type::Path(p) => {
            let borrowed = p.path.segments.iter().any(|s| match &s.arguments {
                PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .any(|arg| matches!(arg, GenericArgument::Lifetime(l) if l.ident != "static")),
                _ => false,
            });
            if borrowed {
                Some(ty)
            } else {
                children(ty).into_iter().find_map(find_borrow)
            }
        }
        other => children(other).into_iter().find_map(find_borrow),
    }
}

/// The types directly inside `ty`.
fn children(ty: &Type) -> Vec<&Type> {
    match ty {
        Type::Array(a) => vec![&*a.elem],
        Type::Slice(s) => vec![&*s.elem],
        Type::Group(g) => vec![&*g.elem],
        Type::Paren(p) => vec![&*p.elem],
        Type::Ptr(p) => vec![&*p.elem],
        Type::Reference(r) => vec![&*r.elem],
        Type::Tuple(t) => t.elems.iter().collect(),
        Type::Path(p) => p
            .path
            .segments
            .iter()
            .flat_map(|s| match &s.arguments {
                PathArguments::AngleBracketed(a) => a
                    .args
                    .iter()
                    .filter_map(|arg| match arg {
                        GenericArgument::Type(t) => Some(t),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            })
            .collect(),
        _ => Vec::new(),
    }
}
