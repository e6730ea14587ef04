//! `#[kernel]`: a CUDA kernel from a Rust function on rustc's `nvptx64-nvidia-cuda` backend.
//!
//! ```ignore
//! use nvptx_std::kernel;
//!
//! /// y[i] = a·x[i] + y[i] for i < n.
//! #[kernel(threads = 256)]
//! pub unsafe fn saxpy(a: f32, x: *const f32, y: *mut f32, n: u32) { /* … */ }
//! ```
//!
//! becomes the entry `saxpy` (`#[unsafe(no_mangle)] extern "ptx-kernel"`: its PTX name is the Rust
//! name), with launch bounds `.maxntid 256, 1, 1` (and `.minnctapersm M` with `blocks_per_sm = M`), and
//! — when the crate is built by `ptx-builder`, which sets `NVPTX_KERNEL_RECORDS` to a directory — a
//! record of its signature there, `saxpy.kernel`, from which `ptx-builder` writes a typed host launcher
//! (a wrong argument type or count is then a compile error on the host).
//!
//! The record, one `key value` per line (format 1):
//! ```text
//! kernel-record 1
//! name saxpy
//! unsafe 1
//! threads 256
//! blocks_per_sm 0
//! param a value f32
//! param x const f32
//! param y mut f32
//! param n value u32
//! ```
//! Parameters are scalars ([`SCALARS`]) or raw pointers to them (`*const T` → `const`, `*mut T` →
//! `mut`); anything else, a generic or an `async` function, a return value, or the attribute on an item
//! that is not a function is a `compile_error!` naming the item and the rule.
use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
use syn::{FnArg, Item, Pat, Type, parse::Parser, punctuated::Punctuated, spanned::Spanned};

/// The scalar types a kernel parameter (or a pointer's pointee) may have: what a PTX parameter holds and
/// the host can pass by value.
pub(crate) const SCALARS: [&str; 12] = ["u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize", "f32", "f64"];

/// Launch bounds from the attribute's arguments.
#[derive(Debug, Default, PartialEq)]
struct Bounds {
    threads: Option<u64>,
    blocks_per_sm: Option<u64>,
}

/// One parameter as recorded: its name, how it is passed (`value`, `const`, `mut`) and its scalar type.
#[derive(Debug, PartialEq)]
struct Param {
    name: String,
    pass: &'static str,
    ty: String,
}

fn error(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

fn parse_bounds(attr: proc_macro2::TokenStream) -> syn::Result<Bounds> {
    let metas = Punctuated::<syn::MetaNameValue, syn::Token![,]>::parse_terminated.parse2(attr)?;
    let mut b = Bounds::default();
    for m in metas {
        let key = m.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
        let value = match &m.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<u64>()?,
            v => return Err(error(v.span(), format!("#[kernel]: `{key}` takes an integer literal"))),
        };
        match key.as_str() {
            "threads" if (1..=1024).contains(&value) => b.threads = Some(value),
            "threads" => return Err(error(m.value.span(), format!("#[kernel]: threads = {value}: a block holds 1 to 1024 threads"))),
            "blocks_per_sm" if value >= 1 => b.blocks_per_sm = Some(value),
            "blocks_per_sm" => return Err(error(m.value.span(), "#[kernel]: blocks_per_sm must be at least 1")),
            _ => return Err(error(m.path.span(), format!("#[kernel]: unknown argument `{key}` (known: threads, blocks_per_sm)"))),
        }
    }
    if b.blocks_per_sm.is_some() && b.threads.is_none() {
        return Err(error(Span::call_site(), "#[kernel]: blocks_per_sm needs threads (PTX's .minnctapersm comes with .maxntid)"));
    }
    Ok(b)
}

/// The scalar name of `ty` if it is one of [`SCALARS`].
fn scalar(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            let id = p.path.get_ident()?.to_string();
            SCALARS.contains(&id.as_str()).then_some(id)
        }
        Type::Paren(p) => scalar(&p.elem),
        _ => None,
    }
}

fn param_of(arg: &FnArg, kernel: &str) -> syn::Result<Param> {
    let FnArg::Typed(pt) = arg else {
        return Err(error(arg.span(), format!("#[kernel] `{kernel}`: a kernel takes no `self`")));
    };
    let Pat::Ident(id) = &*pt.pat else {
        return Err(error(pt.pat.span(), format!("#[kernel] `{kernel}`: name each parameter (no patterns)")));
    };
    let name = id.ident.to_string();
    let rule = || format!("#[kernel] `{kernel}`: parameter `{name}` must be a scalar ({}) , a raw pointer to one (*const T, *mut T) or a slice of them (&[T], &mut [T])", SCALARS.join(", "));
    let (pass, ty) = match &*pt.ty {
        Type::Ptr(p) => (if p.mutability.is_some() { "mut" } else { "const" }, scalar(&p.elem).ok_or_else(|| error(pt.ty.span(), rule()))?),
        // `&[T]` / `&mut [T]`: a pointer and a length, as rust-cuda's kernels take their inputs.
        Type::Reference(r) if r.lifetime.is_none() => match &*r.elem {
            Type::Slice(sl) => (if r.mutability.is_some() { "slice_mut" } else { "slice" }, scalar(&sl.elem).ok_or_else(|| error(pt.ty.span(), rule()))?),
            _ => return Err(error(pt.ty.span(), rule())),
        },
        t => ("value", scalar(t).ok_or_else(|| error(pt.ty.span(), rule()))?),
    };
    Ok(Param { name, pass, ty })
}

/// The record of a kernel (the module doc's format).
fn record(name: &str, is_unsafe: bool, b: &Bounds, params: &[Param]) -> String {
    let mut r = format!("kernel-record 1\nname {name}\nunsafe {}\nthreads {}\nblocks_per_sm {}\n", is_unsafe as u8, b.threads.unwrap_or(0), b.blocks_per_sm.unwrap_or(0));
    for p in params {
        r += &format!("param {} {} {}\n", p.name, p.pass, p.ty);
    }
    r
}

fn expand(attr: proc_macro2::TokenStream, item: proc_macro2::TokenStream) -> syn::Result<proc_macro2::TokenStream> {
    let bounds = parse_bounds(attr)?;
    let item: Item = syn::parse2(item)?;
    let Item::Fn(f) = item else {
        let what = match &item {
            Item::Struct(_) => "a struct",
            Item::Enum(_) => "an enum",
            Item::Static(_) => "a static",
            Item::Const(_) => "a const",
            Item::Mod(_) => "a module",
            Item::Impl(_) => "an impl block",
            Item::Trait(_) => "a trait",
            _ => "not a function",
        };
        return Err(error(item.span(), format!("#[kernel] applies to a function; this item is {what}")));
    };
    let sig = &f.sig;
    let name = sig.ident.to_string();
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(error(sig.generics.span(), format!("#[kernel] `{name}`: a kernel cannot be generic (PTX has one entry per name); write one kernel per type")));
    }
    if let Some(a) = &sig.asyncness {
        return Err(error(a.span(), format!("#[kernel] `{name}`: a kernel cannot be async")));
    }
    if let Some(c) = &sig.constness {
        return Err(error(c.span(), format!("#[kernel] `{name}`: a kernel cannot be const")));
    }
    if let Some(abi) = &sig.abi {
        return Err(error(abi.span(), format!("#[kernel] `{name}`: write a plain `fn`; #[kernel] adds extern \"ptx-kernel\"")));
    }
    if let Some(v) = &sig.variadic {
        return Err(error(v.span(), format!("#[kernel] `{name}`: a kernel cannot be variadic")));
    }
    if let syn::ReturnType::Type(_, t) = &sig.output
        && !matches!(&**t, Type::Tuple(tt) if tt.elems.is_empty())
    {
        return Err(error(t.span(), format!("#[kernel] `{name}`: a kernel returns nothing (write results through a pointer)")));
    }
    let params = sig.inputs.iter().map(|a| param_of(a, &name)).collect::<syn::Result<Vec<_>>>()?;
    let (attrs, vis, block, ident, inputs, unsafety) = (&f.attrs, &f.vis, &f.block, &sig.ident, &sig.inputs, &sig.unsafety);
    let mut directives = vec![];
    if let Some(t) = bounds.threads {
        directives.push(format!("//@entry-directive {name} .maxntid {t}, 1, 1"));
    }
    if let Some(m) = bounds.blocks_per_sm {
        directives.push(format!("//@entry-directive {name} .minnctapersm {m}"));
    }
    let asm = (!directives.is_empty()).then(|| quote! { ::core::arch::global_asm!(#(#directives),*); });
    if let Some(dir) = std::env::var_os("NVPTX_KERNEL_RECORDS") {
        let dir = std::path::PathBuf::from(dir);
        let path = dir.join(format!("{name}.kernel"));
        let text = record(&name, unsafety.is_some(), &bounds, &params);
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, text)) {
            return Err(error(ident.span(), format!("#[kernel] `{name}`: cannot write its record {}: {e}", path.display())));
        }
    }
    Ok(quote! {
        #(#attrs)*
        #[unsafe(no_mangle)]
        #vis #unsafety extern "ptx-kernel" fn #ident(#inputs) #block
        #asm
    })
}

/// Makes a function a CUDA kernel entry (see the crate docs): `#[kernel]`, `#[kernel(threads = 256)]`,
/// `#[kernel(threads = 128, blocks_per_sm = 2)]`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(attr: &str, item: &str) -> Result<String, String> {
        expand(attr.parse().unwrap(), item.parse().unwrap()).map(|t| t.to_string()).map_err(|e| e.to_string())
    }

    #[test]
    fn a_function_becomes_an_entry_with_its_bounds() {
        let out = run("threads = 256, blocks_per_sm = 2", "/// doc\npub unsafe fn saxpy(a: f32, x: *const f32, y: *mut f32, n: u32) { let _ = (a, x, y, n); }").unwrap();
        assert!(out.contains("no_mangle") && out.contains("extern \"ptx-kernel\" fn saxpy"), "{out}");
        assert!(out.contains("pub unsafe extern"), "{out}");
        assert!(out.contains("//@entry-directive saxpy .maxntid 256, 1, 1") && out.contains("//@entry-directive saxpy .minnctapersm 2"), "{out}");
        assert!(out.contains("doc"), "doc comments kept: {out}");
        let plain = run("", "pub fn k(n: u32) {}").unwrap();
        assert!(!plain.contains("global_asm") && plain.contains("pub extern \"ptx-kernel\" fn k"), "{plain}");
    }

    #[test]
    fn the_record_lists_the_signature() {
        let params = vec![Param { name: "x".into(), pass: "const", ty: "f32".into() }, Param { name: "n".into(), pass: "value", ty: "u32".into() }];
        let r = record("k", true, &Bounds { threads: Some(128), blocks_per_sm: None }, &params);
        assert_eq!(r, "kernel-record 1\nname k\nunsafe 1\nthreads 128\nblocks_per_sm 0\nparam x const f32\nparam n value u32\n");
        let item: syn::ItemFn = syn::parse_str("unsafe fn k(x: *mut i64, y: usize) {}").unwrap();
        let p: Vec<Param> = item.sig.inputs.iter().map(|a| param_of(a, "k").unwrap()).collect();
        assert_eq!(p, vec![Param { name: "x".into(), pass: "mut", ty: "i64".into() }, Param { name: "y".into(), pass: "value", ty: "usize".into() }]);
    }

    #[test]
    fn what_cannot_be_a_kernel_is_refused_by_name() {
        for (attr, item, want) in [
            ("", "struct S;", "applies to a function; this item is a struct"),
            ("", "fn k<T>(x: T) {}", "`k`: a kernel cannot be generic"),
            ("", "async fn k() {}", "cannot be async"),
            ("", "fn k() -> u32 { 0 }", "returns nothing"),
            ("", "fn k(x: &Vec<f32>) {}", "parameter `x` must be a scalar"),
            ("", "fn k(x: &'static [f32]) {}", "parameter `x` must be a scalar"),
            ("", "fn k(x: *const Foo) {}", "parameter `x` must be a scalar"),
            ("", "unsafe extern \"ptx-kernel\" fn k() {}", "write a plain `fn`"),
            ("threads = 2048", "fn k() {}", "1 to 1024 threads"),
            ("blocks_per_sm = 2", "fn k() {}", "needs threads"),
            ("warps = 2", "fn k() {}", "unknown argument `warps`"),
            ("threads = \"x\"", "fn k() {}", "integer literal"),
        ] {
            let e = run(attr, item).unwrap_err();
            assert!(e.contains(want), "{item}: {e}");
        }
    }
}
