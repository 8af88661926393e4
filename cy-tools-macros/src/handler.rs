//! The body of the generated definition's handler: take the application objects, call the
//! function (awaited, or on the blocking pool when it is not `async`), and convert what it
//! returns.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{GenericArgument, PathArguments, ReturnType, Type};

use crate::ast::{ParamKind, ToolFn};
use crate::attr::Kind;

/// The handler's body, for the tool (resource, prompt) called `name`.
pub(crate) fn body(tool: &ToolFn, name: &Literal, krate: &TokenStream, kind: Kind) -> TokenStream {
    let sig = &tool.item.sig;
    let call_args = tool.params.iter().map(|p| {
        let cfgs = &p.attrs.cfgs;
        let arg = match &p.kind {
            ParamKind::Ctx => quote!(__ctx),
            ParamKind::Call => quote!(__call),
            ParamKind::Service(cap) => {
                let accessor = syn::Ident::new(cap.name(), Span::call_site());
                quote!(__ctx.#accessor())
            }
            ParamKind::State(_) => format_ident!("__state_{}", p.index).into_token_stream(),
            ParamKind::Receiver(_) => {
                let var = format_ident!("__state_{}", p.index);
                quote!(#var.get())
            }
            ParamKind::Args(_) => quote!(__params),
            // `valid` refused patterns, so every field has a name.
            ParamKind::Field(f) => match &f.ident {
                Some(ident) => quote!(__params.#ident.0),
                None => TokenStream::new(),
            },
        };
        // A parameter under `#[cfg]` is passed only when it exists.
        quote!(#(#cfgs)* #arg)
    });
    let ret_span = match &sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => sig.ident.span(),
    };
    // The call carries the return type's span, so a type that cannot be returned is reported
    // there.
    let mut fn_ident = sig.ident.clone();
    fn_ident.set_span(ret_span);
    let callee = match &tool.method {
        Some(method) => {
            let self_ty = &method.self_ty;
            quote_spanned!(ret_span=> <#self_ty>::#fn_ident)
        }
        None => fn_ident.into_token_stream(),
    };
    let convert = quote_spanned! {ret_span=> {
        #[allow(unused_imports)]
        use #krate::__private::{
            PickAny as _, PickIntoToolResult as _, PickResult as _, PickSerialize as _,
            PickSerializeResult as _,
        };
        (&&&&&#krate::__private::Returned::of(&__out)).kind().convert(__out)
    }};
    let is_async = sig.asyncness.is_some();
    let states = state_lets(tool, name, krate, is_async, kind);
    // A resource or a prompt (always `async`, `catalog` checked) converts what it returns
    // with its own trait, named on the return type's span when the type does not convert.
    let catalog_convert = match kind {
        Kind::Tool => None,
        Kind::Resource => Some(quote_spanned! {ret_span=>
            #krate::__private::IntoReadOutput::into_read_output(__out)
        }),
        Kind::Prompt => Some(quote_spanned! {ret_span=>
            #krate::__private::IntoPromptReply::into_prompt_reply(__out)
        }),
    };
    if let Some(convert) = catalog_convert {
        let call = quote_spanned! {ret_span=>
            #krate::__private::box_mapped(#callee(#(#call_args),*), |__out| #convert)
        };
        return quote!(#(#states)* #call);
    }
    // Spanned on the return type too, so a body whose future is not `Send` (or, for a sync
    // function, whose arguments are not) is reported there.
    if is_async {
        let call = quote_spanned! {ret_span=>
            #krate::__private::box_converted(#callee(#(#call_args),*), |__out| #convert)
        };
        quote!(#(#states)* #call)
    } else {
        quote_spanned! {ret_span=>
            #krate::__private::run_blocking(#name, __ctx, __call, move |__ctx, __call| {
                #(#states)*
                let __out = #callee(#(#call_args),*);
                #convert
            })
        }
    }
}

/// Each `State<'_, T>`, and a method's `&self`: taken from the context before the body starts.
/// Binding checked that the session holds each, so the error is only reached when a handler is
/// called on a context it was not bound to.
fn state_lets<'a>(
    tool: &'a ToolFn,
    name: &'a Literal,
    krate: &'a TokenStream,
    is_async: bool,
    kind: Kind,
) -> impl Iterator<Item = TokenStream> + 'a {
    tool.params.iter().filter_map(move |p| {
        let ty = state_type(tool, &p.kind)?;
        let var = format_ident!("__state_{}", p.index);
        let fail = if kind != Kind::Tool {
            quote!(return #krate::__private::state_failed(error))
        } else if is_async {
            quote!(return #krate::__private::ready(error))
        } else {
            quote!(return error)
        };
        Some(quote_spanned! {ty.span()=>
            let #var = match #krate::__private::State::<#ty>::from_ctx(&__ctx, #name) {
                ::core::result::Result::Ok(state) => state,
                ::core::result::Result::Err(error) => #fail,
            };
        })
    })
}

/// The application state type a parameter takes: `T` of `State<'_, T>`, or a method's own type.
pub(crate) fn state_type<'a>(tool: &'a ToolFn, kind: &'a ParamKind) -> Option<&'a Type> {
    match kind {
        ParamKind::State(Some(ty)) => Some(ty),
        ParamKind::Receiver(_) => tool.method.as_ref().map(|m| &*m.self_ty),
        _ => None,
    }
}

/// `.with_output_schema(...)` for a tool returning `Json<T>` or `Result<Json<T>, E>`, spanned
/// on `T`, so a `T` without `JsonSchema` is reported there.
pub(crate) fn output_schema(output: &ReturnType, krate: &TokenStream) -> Option<TokenStream> {
    let ReturnType::Type(_, ty) = output else {
        return None;
    };
    let inner = generic_arg(ty, "Result").unwrap_or(ty);
    let payload = generic_arg(inner, "Json")?;
    Some(quote_spanned! {payload.span()=>
        .with_output_schema(#krate::__private::output_schema_of::<#payload>)
    })
}

/// The first type argument of a path type whose last segment is `name`.
fn generic_arg<'a>(ty: &'a Type, name: &str) -> Option<&'a Type> {
    let Type::Path(path) = ty else {
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
