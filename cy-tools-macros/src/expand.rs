//! Code generation: the parameter struct, the capability set, the definition with its handler
//! shim, and the link-time registration, beside the user's function.
//!
//! For `async fn read_file` the generated items are `ReadFileParams` (unless an `#[args]`
//! struct is taken), `ReadFileCaps` (unless no capability is declared), the `static READ_FILE`
//! and an `inventory` registration. They sit in the function's own scope rather than in a
//! module, so the parameter types resolve exactly as in the signature, also inside a function
//! body or a doctest.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    Attribute, Expr, FnArg, GenericArgument, Ident, ItemFn, Lifetime, PathArguments, ReturnType,
    Type,
};

use crate::ast::{ParamKind, ToolFn, unraw};
use crate::attr::{DefaultValue, ToolArgs, parse_tool_args};
use crate::caps::{Cap, caps_type};
use crate::errors::Errors;
use crate::valid;

/// The whole attribute: parse, check, then generate, or emit the function with the errors.
pub(crate) fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(err) => {
            let message = syn::Error::new(
                err.span(),
                format!("`#[tool]` goes on an `async fn`: {err}"),
            )
            .into_compile_error();
            return quote!(#message #input);
        }
    };
    let mut errors = Errors::default();
    let args = parse_tool_args(args, &mut errors);
    let tool = ToolFn::new(item, &mut errors);
    valid::check(&tool, &args, &mut errors);
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
fn recover(mut tool: ToolFn, krate: &TokenStream, errors: Errors) -> TokenStream {
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
    let errors = errors.into_compile_errors();
    let item = &tool.item;
    quote!(#errors #item)
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

fn generate(mut tool: ToolFn, args: &ToolArgs, krate: &TokenStream) -> TokenStream {
    let fn_ident = tool.item.sig.ident.clone();
    let base = unraw(&fn_ident);
    let pascal = to_pascal(&base);
    let span = fn_ident.span();
    let static_ident = Ident::new(&base.to_uppercase(), span);
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

    let (caps_ty, caps_items) = capability_set(args, &pascal, &name, &vis, krate, span, &cfgs);
    let (params_ty, params_items) = match tool.args_param() {
        Some((_, ty)) => (ty.to_token_stream(), TokenStream::new()),
        None => {
            let ident = Ident::new(&format!("{pascal}Params"), span);
            let items = params_struct(&tool, &ident, &name, &vis, krate, &cfgs);
            (ident.to_token_stream(), items)
        }
    };

    let call_args = tool.params.iter().map(|p| match &p.kind {
        ParamKind::Ctx => quote!(__ctx),
        ParamKind::Call => quote!(__call),
        ParamKind::Service(cap) => {
            let accessor = Ident::new(cap.name(), Span::call_site());
            quote!(__ctx.#accessor())
        }
        ParamKind::State(_) => format_ident!("__state_{}", p.index).into_token_stream(),
        ParamKind::Args(_) => quote!(__params),
        // `valid` refused patterns and receivers, so neither reaches here.
        ParamKind::Field(f) => match &f.ident {
            Some(ident) => quote!(__params.#ident.0),
            None => TokenStream::new(),
        },
        ParamKind::Receiver => TokenStream::new(),
    });
    let ret_span = match &tool.item.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => span,
    };
    // The call carries the return type's span, so a type that cannot become a `ToolResult`
    // is reported there.
    let mut callee = fn_ident.clone();
    callee.set_span(ret_span);
    let call = quote_spanned! {ret_span=>
        #krate::__private::box_result(#callee(#(#call_args),*))
    };

    let description = args
        .description
        .as_ref()
        .map_or_else(|| tool.doc(), |d| d.value());
    let name_lit = Literal::string(&name);
    let description_lit = Literal::string(&description);
    let annotations = annotations(args, krate);
    let timeout = args.timeout.map(|(ms, _)| {
        let ms = Literal::u64_unsuffixed(ms);
        quote!(.with_timeout(::core::time::Duration::from_millis(#ms)))
    });
    let output = json_payload(&tool.item.sig.output).map(|payload| {
        quote! {
            .with_output_schema({
                fn __output() -> #krate::__private::serde_json::Value {
                    #[allow(unused_imports)]
                    use #krate::__private::{OutputSchemaFallback as _, OutputSchemaViaJsonSchema as _};
                    (&&#krate::__private::OutputProbe::<#payload>::new()).output_schema()
                }
                __output
            })
        }
    });
    // Each `State<'_, T>`: taken from the context before the body starts, and declared on the
    // definition so binding leaves the tool out of a session without a `T`.
    let state_types: Vec<&Type> = tool
        .params
        .iter()
        .filter_map(|p| match &p.kind {
            ParamKind::State(Some(ty)) => Some(&**ty),
            _ => None,
        })
        .collect();
    let state_lets = tool.params.iter().filter_map(|p| match &p.kind {
        ParamKind::State(Some(ty)) => {
            let var = format_ident!("__state_{}", p.index);
            Some(quote_spanned! {ty.span()=>
                let #var = match #krate::__private::State::<#ty>::from_ctx(&__ctx, #name_lit) {
                    ::core::result::Result::Ok(state) => state,
                    ::core::result::Result::Err(error) => return #krate::__private::ready(error),
                };
            })
        }
        _ => None,
    });
    let needs_state = (!state_types.is_empty()).then(|| {
        quote! {
            .needs_state({
                const __STATES: &[#krate::__private::StateType] =
                    &[#(#krate::__private::StateType::of::<#state_types>()),*];
                __STATES
            })
        }
    });
    let static_doc = format!(
        "The `{name}` tool's definition, generated by `#[tool]` from the function `{base}`."
    );

    let registration = if args.register.is_none_or(|r| r.value) {
        let location = Literal::string(&format!("::{base}"));
        quote! {
            #(#cfgs)*
            #krate::__private::inventory::submit! {
                #krate::__private::ToolRegistration::new(
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
    let item = &tool.item;

    quote! {
        #item
        #caps_items
        #params_items
        #(#cfgs)*
        #[doc = #static_doc]
        #vis static #static_ident: #krate::__private::ToolDefinition<#params_ty, #caps_ty> = {
            fn __handler<'a>(
                __params: #params_ty,
                __ctx: #krate::__private::Ctx<'a, #caps_ty>,
                __call: #krate::__private::CallInfo<'a>,
            ) -> #krate::__private::BoxFuture<'a, #krate::__private::ToolResult> {
                #(#state_lets)*
                #call
            }
            #krate::__private::ToolDefinition::new(#name_lit, #description_lit, __handler)
                #annotations
                #timeout
                #needs_state
                #output
        };
        #registration
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

/// The parameter struct: one field per argument, with the parameter's docs, `rename` and
/// `default`, deriving through the runtime's re-exports.
fn params_struct(
    tool: &ToolFn,
    ident: &Ident,
    name: &str,
    vis: &syn::Visibility,
    krate: &TokenStream,
    cfgs: &[Attribute],
) -> TokenStream {
    let krate_text = krate.to_string().replace(' ', "");
    let serde_crate = Literal::string(&format!("{krate_text}::__private::serde"));
    let schemars_crate = Literal::string(&format!("{krate_text}::__private::schemars"));
    let mut fields = Vec::new();
    let mut default_fns = Vec::new();
    let mut readers = Vec::new();
    for (param, field) in tool.fields() {
        // `valid` refused patterns, so every field has a name.
        let Some(field_ident) = field.ident.as_ref() else {
            continue;
        };
        let ty = &field.ty;
        // The argument's reader: the one place its type must be `Deserialize` and
        // `JsonSchema`, spanned on the argument, so a missing derive is reported there and in
        // the user's words (see `cy_tools::definition::Arg`).
        let reader = format_ident!("__{}Arg_{}", ident, unraw(field_ident));
        let arg_ty = quote!(#krate::__private::Arg<#reader>);
        readers.push(quote_spanned! {ty.span()=>
            #(#cfgs)*
            #[doc(hidden)]
            #[allow(non_camel_case_types)]
            enum #reader {}
            #(#cfgs)*
            impl #krate::__private::ArgReader for #reader {
                type Value = #ty;
                fn deserialize<'de, D>(deserializer: D) -> ::core::result::Result<#ty, D::Error>
                where
                    D: #krate::__private::serde::Deserializer<'de>,
                {
                    #krate::__private::deserialize_arg::<#ty, D>(deserializer)
                }
                const SCHEMA: #krate::__private::ArgSchemaFns =
                    #krate::__private::ArgSchemaFns::of::<#ty>();
            }
        });
        let docs = &param.attrs.docs;
        let rename = param
            .attrs
            .rename
            .as_ref()
            .map(|r| quote!(#[serde(rename = #r)]));
        let default = match &param.attrs.default {
            None => None,
            Some((DefaultValue::Trait, _)) => Some(quote!(#[serde(default)])),
            Some((DefaultValue::Expr(expr), _)) => {
                let fn_ident = format_ident!("__default_{}", unraw(field_ident));
                let value = match &**expr {
                    // `default = "main"` for a `String`: a literal is a `&str`, the field owns.
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(_),
                        ..
                    }) => quote_spanned!(expr.span()=> ::core::convert::Into::into(#expr)),
                    _ => expr.to_token_stream(),
                };
                default_fns.push(quote! {
                    #[doc(hidden)]
                    fn #fn_ident() -> #arg_ty { #krate::__private::Arg::new(#value) }
                });
                let path = Literal::string(&format!("{ident}::{fn_ident}"));
                Some(quote!(#[serde(default = #path)]))
            }
        };
        fields.push(quote! {
            #(#docs)*
            #rename
            #default
            #field_ident: #arg_ty,
        });
    }
    let doc = format!("The arguments of the `{name}` tool, generated by `#[tool]`.");
    let default_impl = (!default_fns.is_empty()).then(|| {
        quote! {
            #(#cfgs)*
            impl #ident {
                #(#default_fns)*
            }
        }
    });
    quote! {
        #(#cfgs)*
        #[doc = #doc]
        #[derive(#krate::__private::serde::Deserialize, #krate::__private::schemars::JsonSchema)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        #[schemars(crate = #schemars_crate)]
        #vis struct #ident {
            #(#fields)*
        }
        #(#readers)*
        #default_impl
    }
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

/// `T` of a return type `Json<T>` or `Result<Json<T>, E>`: the tool returns structured JSON of
/// that type, whose schema becomes the MCP `outputSchema` when it is an object.
fn json_payload(output: &ReturnType) -> Option<&syn::Type> {
    let ReturnType::Type(_, ty) = output else {
        return None;
    };
    let inner = generic_arg(ty, "Result").unwrap_or(ty);
    generic_arg(inner, "Json")
}

/// The first type argument of a path type whose last segment is `name`.
fn generic_arg<'a>(ty: &'a syn::Type, name: &str) -> Option<&'a syn::Type> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    let segment = path.path.segments.last()?;
    if segment.ident != name {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &segment.arguments else {
        return None;
    };
    args.args.iter().find_map(|arg| match arg {
        GenericArgument::Type(ty) => Some(ty),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::to_pascal;

    #[test]
    fn pascal_case() {
        assert_eq!(to_pascal("read_file"), "ReadFile");
        assert_eq!(to_pascal("_private__tool"), "PrivateTool");
        assert_eq!(to_pascal("x2_y"), "X2Y");
    }
}
