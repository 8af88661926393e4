//! Parsing `#[tool(...)]`, keeping spans so every later error points at the token it is about.

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned;
use syn::{Expr, LitBool, LitStr, Path, Token};

use crate::caps::Cap;
use crate::errors::{Errors, did_you_mean, one_of};

/// The options of `#[tool(...)]`.
pub(crate) const TOOL_OPTIONS: &[&str] = &[
    "name",
    "description",
    "capabilities",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "title",
    "timeout",
    "register",
    "crate",
];

/// The options of `#[resource(...)]`.
const RESOURCE_OPTIONS: &[&str] = &[
    "uri",
    "name",
    "description",
    "mime_type",
    "title",
    "capabilities",
    "complete",
    "register",
    "crate",
];

/// The options of `#[prompt(...)]`.
const PROMPT_OPTIONS: &[&str] = &[
    "name",
    "description",
    "title",
    "capabilities",
    "complete",
    "register",
    "crate",
];

/// What the attribute makes: a tool, a resource or a prompt. They share the function model,
/// the checks and the generation; this says where they differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Kind {
    #[default]
    Tool,
    Resource,
    Prompt,
}

impl Kind {
    /// The attribute's name, for messages: `tool`, `resource`, `prompt`.
    pub(crate) fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Resource => "resource",
            Kind::Prompt => "prompt",
        }
    }

    pub(crate) fn options(self) -> &'static [&'static str] {
        match self {
            Kind::Tool => TOOL_OPTIONS,
            Kind::Resource => RESOURCE_OPTIONS,
            Kind::Prompt => PROMPT_OPTIONS,
        }
    }
}

/// Spellings people reach for that are too far from the real option for `did_you_mean`.
const TOOL_OPTION_ALIASES: &[(&str, &str)] = &[
    ("caps", "capabilities"),
    ("capability", "capabilities"),
    ("desc", "description"),
    ("doc", "description"),
    ("readonly", "read_only"),
];

/// A boolean option: bare (`read_only`) or explicit (`read_only = false`).
#[derive(Clone, Copy)]
pub(crate) struct Flag {
    pub(crate) value: bool,
    pub(crate) span: Span,
}

/// Everything `#[tool(...)]` said, each with the span of where it said it.
#[derive(Default)]
pub(crate) struct ToolArgs {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) capabilities: Vec<(Cap, Span)>,
    pub(crate) read_only: Option<Flag>,
    pub(crate) destructive: Option<Flag>,
    pub(crate) idempotent: Option<Flag>,
    pub(crate) open_world: Option<Flag>,
    pub(crate) title: Option<LitStr>,
    /// The timeout in milliseconds.
    pub(crate) timeout: Option<(u64, Span)>,
    pub(crate) register: Option<Flag>,
    pub(crate) krate: Option<Path>,
    /// What the attribute makes.
    pub(crate) kind: Kind,
    /// A resource's URI or URI template.
    pub(crate) uri: Option<LitStr>,
    /// A resource's media type.
    pub(crate) mime_type: Option<LitStr>,
    /// A resource's or prompt's completer function.
    pub(crate) complete: Option<Path>,
}

impl ToolArgs {
    pub(crate) fn grants(&self, cap: Cap) -> bool {
        self.capabilities.iter().any(|(c, _)| *c == cap)
    }
}

/// Parses the tokens inside `#[tool(...)]` (or `#[resource(...)]`, `#[prompt(...)]`, as
/// `kind` says). Unknown or repeated options are recorded in `errors` and parsing goes on, so
/// one build reports them all.
pub(crate) fn parse_tool_args(tokens: TokenStream, errors: &mut Errors, kind: Kind) -> ToolArgs {
    let mut args = ToolArgs {
        kind,
        ..ToolArgs::default()
    };
    let attr = kind.attr();
    let options = kind.options();
    let mut seen: Vec<String> = Vec::new();
    let parser = syn::meta::parser(|meta| {
        let Some(key) = meta.path.get_ident().map(|i| i.to_string()) else {
            errors.spanned(
                &meta.path,
                format!(
                    "`#[{attr}]` options are single words: valid options are {}",
                    one_of(options)
                ),
            );
            return skip_value(&meta);
        };
        let span = meta.path.span();
        if options.contains(&key.as_str()) {
            if seen.contains(&key) {
                errors.at(
                    span,
                    format!(
                        "duplicate `#[{attr}]` option `{key}`: give each option once; remove this one"
                    ),
                );
                return skip_value(&meta);
            }
            seen.push(key.clone());
        } else {
            let suggestion = TOOL_OPTION_ALIASES
                .iter()
                .find(|(alias, _)| *alias == key)
                .map(|(_, real)| *real)
                .filter(|real| options.contains(real))
                .or_else(|| did_you_mean(&key, options));
            let message = match suggestion {
                Some(close) => {
                    format!("unknown `#[{attr}]` option `{key}`: did you mean `{close}`?")
                }
                None => format!(
                    "unknown `#[{attr}]` option `{key}`: valid options are {}",
                    one_of(options)
                ),
            };
            errors.at(span, message);
            return skip_value(&meta);
        }
        // A malformed value is reported and skipped, so the options after it are still checked.
        match scalar_option(&key, &meta, &mut args, errors) {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(err) => {
                errors.push(err);
                return skip_rest(&meta);
            }
        }
        // Every other listed option is a scalar, parsed above.
        if key == "capabilities" {
            {
                if !meta.input.peek(syn::token::Paren) {
                    errors.at(
                        span,
                        "`capabilities` takes a list: write `capabilities(env, chat)`",
                    );
                    return skip_value(&meta);
                }
                meta.parse_nested_meta(|cap| {
                    let name = cap
                        .path
                        .get_ident()
                        .map(|i| i.to_string())
                        .unwrap_or_default();
                    let cap_span = cap.path.span();
                    match Cap::from_name(&name) {
                        Some(c) if args.grants(c) => errors.at(
                            cap_span,
                            format!("capability `{name}` is listed twice: remove one"),
                        ),
                        Some(c) => args.capabilities.push((c, cap_span)),
                        None => errors.at(cap_span, Cap::unknown(&path_text(&cap.path))),
                    }
                    skip_value(&cap)
                })?;
            }
        }
        Ok(())
    });
    if let Err(err) = parser.parse2(tokens) {
        errors.push(err);
    }
    args
}

/// Parses the value of an option that takes one (`name = "..."`, a flag, `timeout`, `crate`);
/// `false` when `key` is not one of those.
fn scalar_option(
    key: &str,
    meta: &ParseNestedMeta<'_>,
    args: &mut ToolArgs,
    errors: &mut Errors,
) -> syn::Result<bool> {
    match key {
        "name" => args.name = Some(string_value(meta)?),
        "description" => args.description = Some(string_value(meta)?),
        "title" => args.title = Some(string_value(meta)?),
        "read_only" => args.read_only = Some(flag(meta)?),
        "destructive" => args.destructive = Some(flag(meta)?),
        "idempotent" => args.idempotent = Some(flag(meta)?),
        "open_world" => args.open_world = Some(flag(meta)?),
        "register" => args.register = Some(flag(meta)?),
        "timeout" => args.timeout = timeout(meta, errors)?,
        "uri" => args.uri = Some(string_value(meta)?),
        "mime_type" => args.mime_type = Some(string_value(meta)?),
        "complete" => args.complete = Some(meta.value()?.call(Path::parse_mod_style)?),
        "crate" => {
            let value = meta.value()?;
            args.krate = Some(if value.peek(LitStr) {
                value.parse::<LitStr>()?.parse()?
            } else {
                value.call(Path::parse_mod_style)?
            });
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// Consumes what is left of a malformed option, up to the next `,`, so parsing continues.
pub(crate) fn skip_rest(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    while !meta.input.is_empty() && !meta.input.peek(Token![,]) {
        meta.input.parse::<proc_macro2::TokenTree>()?;
    }
    Ok(())
}

/// Consumes `= value` or `(...)` after a key that was already reported, so parsing continues.
pub(crate) fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.input.parse::<Token![=]>()?;
        meta.input.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

pub(crate) fn string_value(meta: &ParseNestedMeta<'_>) -> syn::Result<LitStr> {
    let key = path_text(&meta.path);
    if !meta.input.peek(Token![=]) {
        return Err(meta.error(format!("`{key}` needs a value: write `{key} = \"...\"`")));
    }
    let value = meta.value()?;
    value.parse::<LitStr>().map_err(|err| {
        syn::Error::new(
            err.span(),
            format!("`{key}` takes a string literal: write `{key} = \"...\"`"),
        )
    })
}

fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<Flag> {
    let span = meta.path.span();
    if meta.input.peek(Token![=]) {
        let key = path_text(&meta.path);
        let lit = meta.value()?.parse::<LitBool>().map_err(|err| {
            syn::Error::new(
                err.span(),
                format!("`{key}` takes `true` or `false`: write `{key}` or `{key} = false`"),
            )
        })?;
        Ok(Flag {
            value: lit.value,
            span,
        })
    } else {
        Ok(Flag { value: true, span })
    }
}

/// `timeout = "30s"`: a whole number with unit `ms`, `s`, `m` or `h`, in milliseconds.
fn timeout(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<Option<(u64, Span)>> {
    let lit = string_value(meta)?;
    let text = lit.value();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let factor = match unit.trim() {
        "ms" => Some(1),
        "s" => Some(1_000),
        "m" => Some(60_000),
        "h" => Some(3_600_000),
        _ => None,
    };
    match (number.parse::<u64>(), factor) {
        (Ok(n), Some(factor)) if n > 0 => match n.checked_mul(factor) {
            Some(ms) => return Ok(Some((ms, lit.span()))),
            None => errors.at(lit.span(), format!("`timeout = \"{text}\"` is too long: use at most a few hours")),
        },
        (Ok(0), Some(_)) => errors.at(
            lit.span(),
            "`timeout` must be longer than zero: leave `timeout` out for no limit",
        ),
        _ => errors.at(
            lit.span(),
            format!(
                "invalid `timeout = \"{text}\"`: write a whole number with a unit, such as `\"30s\"`, `\"500ms\"`, `\"2m\"` or `\"1h\"`"
            ),
        ),
    }
    Ok(None)
}

/// The literal text of a path, for messages.
pub(crate) fn path_text(path: &Path) -> String {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect::<Vec<_>>()
        .join("::")
}
