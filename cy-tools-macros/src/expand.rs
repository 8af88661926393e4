//! Code generation: the parameter struct, the capability set, the definition with its handler
//! shim, and the link-time registration, beside the user's function.
//!
//! For `fn read_file` the generated items are `ReadFileParams` (unless an `#[args]` struct is
//! taken), `ReadFileCaps` (unless no capability is declared), the `static READ_FILE`, an
//! `inventory` registration and a marker that makes two tools of one name in a module a
//! compile error; for the method `forecast` of a `#[tools] impl Weather`, `WeatherForecast...`
//! and `WEATHER_FORECAST`. They sit in the function's own scope rather than in a
//! module, so the parameter types resolve exactly as in the signature, also inside a function
//! body or a doctest.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, ItemFn, Lifetime, LitStr, PathArguments, Type,
};

use crate::ast::{Method, ParamKind, ToolFn, unraw};
use crate::attr::{Kind, ToolArgs, parse_tool_args};
use crate::caps::{Cap, caps_type};
use crate::errors::Errors;
use crate::params::params_struct;
use crate::{handler, valid};

/// What one tool expands to: the function as emitted (for a method, the method, which stays in
/// its `impl`) and the items generated beside it.
pub(crate) struct Expanded {
    pub(crate) function: ItemFn,
    pub(crate) items: TokenStream,
    /// The items are the errors, and the function is emitted as written.
    pub(crate) recovered: bool,
}

/// `#[tool]` (or `#[resource]`, `#[prompt]`, as `kind` says) on a free function.
pub(crate) fn attribute(kind: Kind, args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(err) => {
            let message = syn::Error::new(
                err.span(),
                format!("`#[{}]` goes on a function: {err}", kind.attr()),
            )
            .into_compile_error();
            return quote!(#message #input);
        }
    };
    let Expanded {
        function,
        items,
        recovered,
    } = expand(kind, args, item, None);
    if recovered {
        quote!(#items #function)
    } else {
        quote!(#function #items)
    }
}

/// Parses the options, checks, then generates, or gives back the function with the errors.
pub(crate) fn expand(
    kind: Kind,
    args: TokenStream,
    item: ItemFn,
    method: Option<Method>,
) -> Expanded {
    let mut errors = Errors::default();
    let args = parse_tool_args(args, &mut errors, kind);
    let tool = ToolFn::new(item, method, &mut errors);
    valid::check(&tool, &args, &mut errors);
    crate::catalog::check(&tool, &args, &mut errors);
    let krate = crate_path(&args);
    if errors.is_empty() {
        generate(tool, &args, &krate)
    } else {
        recover(tool, &krate, errors)
    }
}

fn crate_path(args: &ToolArgs) -> TokenStream {
    match &args.krate {
        Some(path) => path.to_token_stream(),
        None => quote!(::cy_tools),
    }
}

/// On error: the function as written (helper attributes off its parameters) and the errors.
/// Its `Ctx` gets a set that grants everything, so the body does not add errors of its own;
/// nothing is registered, so that set never reaches a session.
fn recover(mut tool: ToolFn, krate: &TokenStream, errors: Errors) -> Expanded {
    let ctx_params: Vec<usize> = tool
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Ctx))
        .map(|p| p.index)
        .collect();
    for index in ctx_params {
        set_ctx_caps(
            &mut tool.item,
            index,
            quote!(#krate::__private::AllCapabilities),
        );
    }
    // A `State` that names no type was reported: give it one, so the compiler does not too.
    for param in &tool.params {
        if matches!(param.kind, ParamKind::State(None))
            && let Some(FnArg::Typed(typed)) = tool.item.sig.inputs.iter_mut().nth(param.index)
        {
            let span = typed.ty.span();
            *typed.ty = syn::parse_quote_spanned!(span=> #krate::__private::State<'_, ()>);
        }
    }
    Expanded {
        function: tool.item,
        items: errors.into_compile_errors(),
        recovered: true,
    }
}

/// Gives the `Ctx` parameter at `index` the capability set `caps`, keeping its lifetime.
fn set_ctx_caps(item: &mut ItemFn, index: usize, caps: TokenStream) {
    let Some(FnArg::Typed(typed)) = item.sig.inputs.iter_mut().nth(index) else {
        return;
    };
    let Type::Path(path) = &mut *typed.ty else {
        return;
    };
    let Some(segment) = path.path.segments.last_mut() else {
        return;
    };
    let lifetime = match &segment.arguments {
        PathArguments::AngleBracketed(a) => a.args.iter().find_map(|arg| match arg {
            GenericArgument::Lifetime(l) => Some(l.clone()),
            _ => None,
        }),
        _ => None,
    }
    .unwrap_or_else(|| Lifetime::new("'_", segment.ident.span()));
    let ident = &segment.ident;
    *segment = syn::parse_quote_spanned!(ident.span()=> #ident<#lifetime, #caps>);
}

/// The names of what is generated for a tool: `READ_FILE`, `ReadFileParams`, `ReadFileCaps`
/// for `fn read_file`; `WEATHER_FORECAST`, `WeatherForecast...` for `Weather::forecast`.
struct Names {
    static_ident: Ident,
    pascal: String,
    /// `read_file` or `Weather::forecast`, for docs and the registration's location.
    path: String,
}

impl Names {
    fn of(tool: &ToolFn) -> Names {
        let fn_ident = &tool.item.sig.ident;
        let base = unraw(fn_ident);
        let span = fn_ident.span();
        match &tool.method {
            None => Names {
                static_ident: Ident::new(&base.to_uppercase(), span),
                pascal: to_pascal(&base),
                path: base,
            },
            Some(method) => {
                let type_name = unraw(&method.type_name);
                Names {
                    static_ident: Ident::new(
                        &format!("{}_{}", upper_snake(&type_name), base.to_uppercase()),
                        span,
                    ),
                    pascal: format!("{type_name}{}", to_pascal(&base)),
                    path: format!("{type_name}::{base}"),
                }
            }
        }
    }
}

fn generate(mut tool: ToolFn, args: &ToolArgs, krate: &TokenStream) -> Expanded {
    let names = Names::of(&tool);
    let span = tool.item.sig.ident.span();
    let static_ident = &names.static_ident;
    let vis = tool.item.vis.clone();
    let name = valid::tool_name(&tool, args);
    // A `#[cfg]` on the function gates everything generated for it too.
    let cfgs: Vec<Attribute> = tool
        .item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .cloned()
        .collect();

    let (caps_ty, caps_items) =
        capability_set(args, &names.pascal, &name, &vis, krate, span, &cfgs);
    let (params_ty, params_items) = match tool.args_param() {
        Some((_, ty)) => (ty.to_token_stream(), TokenStream::new()),
        None => {
            let ident = Ident::new(&format!("{}Params", names.pascal), span);
            let items = params_struct(&tool, &ident, &name, &vis, krate, &cfgs);
            (ident.to_token_stream(), items)
        }
    };

    let name_lit = Literal::string(&name);
    let description = match &args.description {
        Some(description) => description.to_token_stream(),
        // `valid` refused a tool without a description.
        None => tool
            .doc()
            .map(|d| d.expr(quote!(#krate::__private::trim_doc)))
            .unwrap_or_default(),
    };
    let body = handler::body(&tool, &name_lit, krate, args.kind);
    let annotations = annotations(args, krate);
    let timeout = args.timeout.map(|(ms, _)| {
        let ms = Literal::u64_unsuffixed(ms);
        quote!(.with_timeout(::core::time::Duration::from_millis(#ms)))
    });
    let output = match args.kind {
        Kind::Tool => handler::output_schema(&tool.item.sig.output, krate),
        Kind::Resource | Kind::Prompt => None,
    };
    // Declared on the definition, so binding leaves the tool out of a session without them.
    let state_types: Vec<&Type> = tool
        .params
        .iter()
        .filter_map(|p| handler::state_type(&tool, &p.kind))
        .collect();
    let needs_state = (!state_types.is_empty()).then(|| {
        quote! {
            .needs_state({
                const __STATES: &[#krate::__private::StateType] =
                    &[#(#krate::__private::StateType::of::<#state_types>()),*];
                __STATES
            })
        }
    });
    // One inline argument that turns out to be a struct is refused when the schema is made,
    // unless it is `#[arg(nested)]`: the model would have to send it nested.
    let fields: Vec<_> = tool.fields().map(|(param, _)| param.attrs.nested).collect();
    let lone_struct = (matches!(fields[..], [None]) && args.kind == Kind::Tool)
        .then(|| quote!(.refuse_lone_struct()));
    let kind = args.kind.attr();
    let static_doc = format!(
        "The `{name}` {kind}'s definition, generated by `#[{kind}]` from the {} `{}`.",
        if tool.method.is_some() {
            "method"
        } else {
            "function"
        },
        names.path
    );

    let registered = args.register.is_none_or(|r| r.value);
    let registration = if registered {
        let location = Literal::string(&format!("::{}", names.path));
        let name_span = args.name.as_ref().map_or(span, syn::LitStr::span);
        let marker = unique_name_marker(kind, &name, name_span, &cfgs);
        let registration = match args.kind {
            Kind::Tool => quote!(ToolRegistration),
            Kind::Resource => quote!(ResourceRegistration),
            Kind::Prompt => quote!(PromptRegistration),
        };
        quote! {
            #marker
            #(#cfgs)*
            #krate::__private::inventory::submit! {
                #krate::__private::#registration::new(
                    &#static_ident,
                    ::core::concat!(::core::module_path!(), #location),
                )
            }
        }
    } else {
        TokenStream::new()
    };

    let ctx_index = tool
        .params
        .iter()
        .find(|p| matches!(p.kind, ParamKind::Ctx))
        .map(|p| p.index);
    if let Some(index) = ctx_index {
        set_ctx_caps(&mut tool.item, index, caps_ty.clone());
    }

    let title = args.title.as_ref().map(|title| quote!(.with_title(#title)));
    let completer = args
        .complete
        .as_ref()
        .map(|path| quote_spanned!(path.span()=> .with_completer(#path)));
    let (definition_ty, output_ty, constructor) = match args.kind {
        Kind::Tool => (
            quote!(ToolDefinition),
            quote!(#krate::__private::ToolResult),
            quote! {
                #krate::__private::ToolDefinition::new(#name_lit, #description, __handler)
                    #annotations
                    #timeout
                    #needs_state
                    #output
                    #lone_struct
            },
        ),
        Kind::Resource => {
            let uri = args
                .uri
                .as_ref()
                .map(LitStr::to_token_stream)
                .unwrap_or_default();
            let mime_type = args
                .mime_type
                .as_ref()
                .map(|mime| quote!(.with_mime_type(#mime)));
            (
                quote!(ResourceDefinition),
                quote!(::core::result::Result<#krate::__private::ReadOutput, ::std::string::String>),
                quote! {
                    #krate::__private::ResourceDefinition::new(#name_lit, #uri, #description, __handler)
                        #mime_type
                        #title
                        #needs_state
                        #completer
                },
            )
        }
        Kind::Prompt => (
            quote!(PromptDefinition),
            quote!(::core::result::Result<#krate::__private::PromptReply, ::std::string::String>),
            quote! {
                #krate::__private::PromptDefinition::new(#name_lit, #description, __handler)
                    #title
                    #needs_state
                    #completer
            },
        ),
    };

    let items = quote! {
        #caps_items
        #params_items
        #(#cfgs)*
        #[doc = #static_doc]
        #vis static #static_ident: #krate::__private::#definition_ty<#params_ty, #caps_ty> = {
            fn __handler<'a>(
                __params: #params_ty,
                __ctx: #krate::__private::Ctx<'a, #caps_ty>,
                __call: #krate::__private::CallInfo<'a>,
            ) -> #krate::__private::BoxFuture<'a, #output_ty> {
                #body
            }
            #constructor
        };
        #registration
    };
    Expanded {
        function: tool.item,
        items,
        recovered: false,
    }
}

/// An item named after the tool's name, so two tools of one name in one module are a compile
/// error (rustc's "defined multiple times", at the second name). Names of letters, digits and
/// `_` name a unit struct; others (with `.` or `-`) a constant, with `_` doubled and `.`, `-`
/// written `_d`, `_h`: two namespaces and an escape, so no two names meet by accident.
fn unique_name_marker(kind: &str, name: &str, span: Span, cfgs: &[Attribute]) -> TokenStream {
    if name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        let ident = Ident::new(&format!("{kind}_named_{name}"), span);
        return quote! {
            #(#cfgs)*
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            struct #ident;
        };
    }
    let escaped: String = name
        .chars()
        .map(|c| match c {
            '_' => "__".to_string(),
            '.' => "_d".to_string(),
            '-' => "_h".to_string(),
            other => other.to_string(),
        })
        .collect();
    let ident = Ident::new(&format!("{kind}_named_{escaped}"), span);
    quote! {
        #(#cfgs)*
        #[doc(hidden)]
        #[allow(non_upper_case_globals, dead_code)]
        const #ident: () = ();
    }
}

/// The capability-set type: an alias of the `Caps` type that grants the declared
/// capabilities; `NoCapabilities` when none is declared.
fn capability_set(
    args: &ToolArgs,
    pascal: &str,
    name: &str,
    vis: &syn::Visibility,
    krate: &TokenStream,
    span: Span,
    cfgs: &[Attribute],
) -> (TokenStream, TokenStream) {
    if args.capabilities.is_empty() {
        return (
            quote!(#krate::__private::NoCapabilities),
            TokenStream::new(),
        );
    }
    let ident = Ident::new(&format!("{pascal}Caps"), span);
    let mut caps: Vec<Cap> = args.capabilities.iter().map(|(c, _)| *c).collect();
    caps.sort_by_key(|c| Cap::ALL.iter().position(|a| a == c));
    let doc = format!(
        "The capabilities of the `{name}` tool ({}), generated by `#[tool]`.",
        caps.iter()
            .map(|c| format!("`{}`", c.name()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let ty = caps_type(krate, &caps, span);
    let items = quote! {
        #(#cfgs)*
        #[doc = #doc]
        #vis type #ident = #ty;
    };
    (ident.into_token_stream(), items)
}

fn annotations(args: &ToolArgs, krate: &TokenStream) -> TokenStream {
    let mut chain = TokenStream::new();
    if args.read_only.is_some_and(|f| f.value) {
        chain.extend(quote!(.read_only()));
    }
    if let Some(flag) = args.destructive {
        let value = flag.value;
        chain.extend(quote!(.destructive(#value)));
    }
    if args.idempotent.is_some_and(|f| f.value) {
        chain.extend(quote!(.idempotent()));
    }
    if let Some(flag) = args.open_world {
        let value = flag.value;
        chain.extend(quote!(.open_world(#value)));
    }
    if let Some(title) = &args.title {
        chain.extend(quote!(.title(#title)));
    }
    if chain.is_empty() {
        chain
    } else {
        quote!(.with_annotations(#krate::__private::ToolAnnotations::DEFAULT #chain))
    }
}

/// `read_file` → `ReadFile`.
fn to_pascal(snake: &str) -> String {
    snake
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// `WeatherService` → `WEATHER_SERVICE`.
fn upper_snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_uppercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{to_pascal, upper_snake};

    #[test]
    fn upper_snake_case() {
        assert_eq!(upper_snake("Weather"), "WEATHER");
        assert_eq!(upper_snake("WeatherService"), "WEATHER_SERVICE");
    }

    #[test]
    fn pascal_case() {
        assert_eq!(to_pascal("read_file"), "ReadFile");
        assert_eq!(to_pascal("_private__tool"), "PrivateTool");
        assert_eq!(to_pascal("x2_y"), "X2Y");
    }
}
