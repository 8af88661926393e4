//! The attributes on one parameter: `#[arg(...)]`, `#[args]`, and the `#[serde(...)]` and
//! `#[schemars(...)]` an inline argument takes as a struct field would. They are taken off the
//! function (rustc knows none of them on a parameter) and put on the generated field.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, LitStr, Token};

use crate::attr::{path_text, skip_rest, skip_value, string_value};
use crate::errors::{Errors, did_you_mean, one_of};

/// The options of `#[arg(...)]`.
const ARG_OPTIONS: &[&str] = &["default", "rename", "nested"];

/// What `#[schemars(...)]` may say on an inline argument: the constraints and texts schemars
/// writes into a field's schema. The others change how the field is read or named, which the
/// generated code does itself.
const SCHEMARS_KEYS: &[&str] = &[
    "range",
    "length",
    "regex",
    "pattern",
    "contains",
    "email",
    "url",
    "ip",
    "ipv4",
    "ipv6",
    "required",
    "inner",
    "title",
    "description",
    "example",
    "extend",
    "deprecated",
];

/// What `#[serde(...)]` may say on an inline argument. (Not `alias`: the model is shown the
/// schema's names only, and a name it does not show is refused before serde reads it.)
const SERDE_KEYS: &[&str] = &["rename", "default"];

/// What `#[arg(default ...)]` (or `#[serde(default ...)]`) asked for.
pub(crate) enum DefaultValue {
    /// `#[arg(default)]`: `Default::default()`.
    Trait,
    /// `#[arg(default = expr)]`.
    Expr(Box<Expr>),
}

/// The helper attributes of one parameter, removed from the function the user sees.
#[derive(Default)]
pub(crate) struct ParamAttrs {
    /// The field docs: the parameter's doc comments.
    pub(crate) docs: Vec<Attribute>,
    /// `#[cfg(...)]`: kept on the parameter, and copied onto everything generated for it.
    pub(crate) cfgs: Vec<Attribute>,
    /// `#[schemars(...)]`, for the generated field.
    pub(crate) field_attrs: Vec<Attribute>,
    pub(crate) default: Option<(DefaultValue, Span)>,
    pub(crate) rename: Option<LitStr>,
    /// The span of `#[arg(nested)]`, when present.
    pub(crate) nested: Option<Span>,
    /// The span of `#[args]`, when present.
    pub(crate) args: Option<Span>,
    /// The first `#[arg]`, `#[serde]` or `#[schemars]`, when present: they configure an
    /// argument the model sends, so they are refused on other parameters.
    pub(crate) arg: Option<Attribute>,
}

/// Takes the helper attributes out of `attrs` into a [`ParamAttrs`]; `#[cfg]` and any other
/// attribute stay on the parameter.
pub(crate) fn take_param_attrs(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> ParamAttrs {
    let mut out = ParamAttrs::default();
    let mut kept = Vec::with_capacity(attrs.len());
    for attr in attrs.drain(..) {
        let path = attr.path();
        if path.is_ident("doc") {
            out.docs.push(attr);
        } else if path.is_ident("args") {
            if out.args.is_some() {
                errors.spanned(&attr, "duplicate `#[args]`: give it once");
            } else if !matches!(attr.meta, syn::Meta::Path(_)) {
                errors.spanned(
                    &attr.meta,
                    "`#[args]` takes no options: write `#[args]` and configure the fields on the struct itself",
                );
            }
            out.args.get_or_insert(attr.span());
        } else if path.is_ident("arg") {
            parse_arg(&attr, &mut out, errors);
            out.arg.get_or_insert(attr);
        } else if path.is_ident("serde") {
            parse_serde(&attr, &mut out, errors);
            out.arg.get_or_insert(attr);
        } else if path.is_ident("schemars") {
            check_schemars(&attr, errors);
            out.field_attrs.push(attr.clone());
            out.arg.get_or_insert(attr);
        } else {
            if path.is_ident("cfg") {
                out.cfgs.push(attr.clone());
            }
            kept.push(attr);
        }
    }
    *attrs = kept;
    out
}

fn parse_arg(attr: &Attribute, out: &mut ParamAttrs, errors: &mut Errors) {
    if !matches!(attr.meta, syn::Meta::List(_)) {
        errors.spanned(
            attr,
            "`#[arg]` needs an option: write `#[arg(default)]`, `#[arg(default = ...)]`, `#[arg(rename = \"...\")]` or `#[arg(nested)]`",
        );
        return;
    }
    let result = attr.parse_nested_meta(|meta| {
        let key = path_text(&meta.path);
        let span = meta.path.span();
        match key.as_str() {
            "default" => parse_default(&meta, out, errors),
            "rename" => parse_rename(&meta, out, errors),
            "nested" if out.nested.is_some() => {
                errors.at(span, "duplicate `nested`: give it once; remove this one");
                skip_value(&meta)
            }
            "nested" => {
                out.nested = Some(span);
                skip_value(&meta)
            }
            _ => {
                let message = match did_you_mean(&key, ARG_OPTIONS) {
                    Some(close) => {
                        format!("unknown `#[arg]` option `{key}`: did you mean `{close}`?")
                    }
                    None => format!(
                        "unknown `#[arg]` option `{key}`: valid options are {}",
                        one_of(ARG_OPTIONS)
                    ),
                };
                errors.at(span, message);
                skip_value(&meta)
            }
        }
    });
    if let Err(err) = result {
        errors.push(err);
    }
}

/// `default` or `default = expr` of `#[arg]`; `#[serde(default = "path")]` is read by
/// [`parse_serde`].
fn parse_default(
    meta: &syn::meta::ParseNestedMeta<'_>,
    out: &mut ParamAttrs,
    errors: &mut Errors,
) -> syn::Result<()> {
    let span = meta.path.span();
    if out.default.is_some() {
        errors.at(span, "duplicate `default`: give it once; remove this one");
        return skip_value(meta);
    }
    let value = if meta.input.peek(Token![=]) {
        match meta.value().and_then(|v| v.parse::<Expr>()) {
            Ok(expr) => DefaultValue::Expr(Box::new(expr)),
            Err(err) => {
                errors.push(err);
                return skip_rest(meta);
            }
        }
    } else {
        DefaultValue::Trait
    };
    out.default = Some((value, span));
    Ok(())
}

fn parse_rename(
    meta: &syn::meta::ParseNestedMeta<'_>,
    out: &mut ParamAttrs,
    errors: &mut Errors,
) -> syn::Result<()> {
    if out.rename.is_some() {
        errors.at(
            meta.path.span(),
            "duplicate `rename`: give it once; remove this one",
        );
        return skip_value(meta);
    }
    match string_value(meta) {
        Ok(name) => out.rename = Some(name),
        Err(err) => {
            errors.push(err);
            return skip_rest(meta);
        }
    }
    Ok(())
}

/// `#[serde(rename = "...")]` and `#[serde(default)]` mean what `#[arg]`'s options do;
/// `#[serde(default = "path")]` calls `path()`.
fn parse_serde(attr: &Attribute, out: &mut ParamAttrs, errors: &mut Errors) {
    let result = attr.parse_nested_meta(|meta| {
        let key = path_text(&meta.path);
        let span = meta.path.span();
        match key.as_str() {
            "rename" => parse_rename(&meta, out, errors),
            "default" if meta.input.peek(Token![=]) => {
                if out.default.is_some() {
                    errors.at(span, "duplicate `default`: give it once; remove this one");
                    return skip_value(&meta);
                }
                let path: syn::ExprPath = string_value(&meta)?.parse()?;
                out.default = Some((
                    DefaultValue::Expr(Box::new(syn::parse_quote_spanned!(span=> #path()))),
                    span,
                ));
                Ok(())
            }
            "default" => parse_default(&meta, out, errors),
            _ => {
                errors.at(
                    span,
                    format!(
                        "`#[serde({key})]` is not supported on a tool argument, which `#[tool]` reads itself: it takes {}; for any other serde attribute, take the arguments as an `#[args]` struct",
                        one_of(SERDE_KEYS)
                    ),
                );
                skip_value(&meta)
            }
        }
    });
    if let Err(err) = result {
        errors.push(err);
    }
}

/// Refuses what `#[schemars(...)]` may not say on an inline argument, naming what it may.
fn check_schemars(attr: &Attribute, errors: &mut Errors) {
    let result = attr.parse_nested_meta(|meta| {
        let key = path_text(&meta.path);
        if !SCHEMARS_KEYS.contains(&key.as_str()) {
            let fix = match key.as_str() {
                "rename" => "use `#[arg(rename = \"...\")]`".to_string(),
                "default" => "use `#[arg(default)]`".to_string(),
                _ => match did_you_mean(&key, SCHEMARS_KEYS) {
                    Some(close) => format!("did you mean `{close}`?"),
                    None => format!(
                        "it takes {}; for anything else, take the arguments as an `#[args]` struct",
                        one_of(SCHEMARS_KEYS)
                    ),
                },
            };
            errors.at(
                meta.path.span(),
                format!("`#[schemars({key})]` is not supported on a tool argument: {fix}"),
            );
        }
        skip_value(&meta)
    });
    if let Err(err) = result {
        errors.push(err);
    }
}
