//! Shared memory: dynamic (launch-sized) and static allocations, and explicit `ld.shared` / `st.shared`
//! of 32, 64 and 128 bits on 32-bit `.shared`-window addresses.
//!
//! Two ways to touch shared memory, both compiled to `ld.shared`/`st.shared` (never generic `ld`/`st`;
//! a host test checks the PTX):
//! * plain Rust through the pointer [`dynamic`] returns: LLVM knows it points into `addrspace(3)`, so
//!   `*s.add(i)` becomes `ld.shared.f32 [%r]` (with `llc --nvptx-short-ptr`, 32-bit addresses);
//! * the explicit wrappers below on a 32-bit shared address from [`addr_of`] or [`static_alloc`], for
//!   vector widths and for addresses that come from a layout function.
use core::arch::asm;

/// The block's dynamic shared memory (the launch's `sharedMemBytes`), as `*mut T`.
///
/// PTX: `.extern .shared .align align_of::<T>() .b8 gpu_launch_sized_workgroup_mem[];`. Every call in a
/// kernel returns the same address; ask for a 16-byte-aligned `T` (e.g. [`Align16`]) before 128-bit access.
/// Reading or writing through it is `unsafe`: the host must launch with enough bytes, and accesses
/// must stay inside them.
#[inline(always)]
pub fn dynamic<T>() -> *mut T {
    core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<T>()
}

/// A 16-byte-aligned element type for [`dynamic`], so the shared buffer is declared `.align 16`.
#[repr(C, align(16))]
pub struct Align16(pub [u32; 4]);

/// The 32-bit `.shared`-window address of a generic pointer into shared memory.
///
/// PTX: `cvta.to.shared.u64 t, p; cvt.u32.u64 r, t;`
/// The result is what `ld.shared`, `ldmatrix`, `stmatrix` and `cp.async` take. Calling it on a pointer
/// that is not into shared memory gives a meaningless address (it is safe; using that address is not).
#[inline(always)]
pub fn addr_of<T>(p: *const T) -> u32 {
    let r: u32;
    // SAFETY: pure address arithmetic on a register; touches no memory.
    unsafe {
        asm!("{{ .reg .u64 t; cvta.to.shared.u64 t, {1}; cvt.u32.u64 {0}, t; }}",
             out(reg32) r, in(reg64) p, options(pure, nomem, nostack))
    };
    r
}

/// Declares a static `.shared` array of `BYTES` bytes aligned to 128 bytes, and returns its 32-bit address.
///
/// PTX: `{ .shared .align 128 .b8 s_static[BYTES]; mov.u32 r, s_static; }`. Each *inlined copy* of this
/// call declares its own array (TOOLCHAIN.md §3b): call it once per kernel, at the top, outside loops,
/// and pass the address on. It is deliberately not `pure`, so LLVM never merges two calls into one array.
/// The size counts toward the kernel's static shared memory (`ptxas -v`: `N bytes smem`).
#[inline(always)]
pub fn static_alloc<const BYTES: usize>() -> u32 {
    let r: u32;
    // SAFETY: declares storage and moves its address into a register; no memory is read or written.
    unsafe {
        asm!("{{ .shared .align 128 .b8 s_static[{n}]; mov.u32 {0}, s_static; }}",
             out(reg32) r, n = const BYTES, options(nomem, nostack))
    };
    r
}

/// [`static_alloc`] with a chosen alignment `ALIGN` (a power of two): e.g. 1024 for a tile the TMA
/// writes with `SWIZZLE_128B`, whose pattern XORs absolute address bits 7–9 into bits 4–6.
///
/// PTX: `{ .shared .align ALIGN .b8 s_static[BYTES]; mov.u32 r, s_static; }`. Same one-call-per-kernel
/// rule as [`static_alloc`].
#[inline(always)]
pub fn static_alloc_aligned<const BYTES: usize, const ALIGN: usize>() -> u32 {
    let r: u32;
    // SAFETY: declares storage and moves its address into a register; no memory is read or written.
    unsafe {
        asm!("{{ .shared .align {a} .b8 s_static[{n}]; mov.u32 {0}, s_static; }}",
             out(reg32) r, n = const BYTES, a = const ALIGN, options(nomem, nostack))
    };
    r
}

macro_rules! ld_st_shared {
    ($( $(#[$ld_doc:meta])* $ld:ident / $(#[$st_doc:meta])* $st:ident : $suffix:literal, $ty:ty ),* $(,)?) => {$(
        $(#[$ld_doc])*
        ///
        /// # Safety
        /// `addr` is a `.shared`-window address inside an allocation of this block, aligned to the
        /// access width, and no other thread writes it without a barrier in between.
        #[inline(always)]
        pub unsafe fn $ld(addr: u32) -> $ty {
            let v: $ty;
            // SAFETY: forwarded to the caller. `readonly` (not `pure`): it reads memory that barriers order.
            unsafe { asm!(concat!("ld.shared.", $suffix, " {0}, [{1}];"), out(reg32) v, in(reg32) addr,
                          options(nostack, readonly)) };
            v
        }
        $(#[$st_doc])*
        ///
        /// # Safety
        /// `addr` is a `.shared`-window address inside an allocation of this block, aligned to the
        /// access width, and no other thread accesses it without a barrier in between.
        #[inline(always)]
        pub unsafe fn $st(addr: u32, v: $ty) {
            // SAFETY: forwarded to the caller.
            unsafe { asm!(concat!("st.shared.", $suffix, " [{0}], {1};"), in(reg32) addr, in(reg32) v,
                          options(nostack)) };
        }
    )*};
}

ld_st_shared! {
    /// `ld.shared.u32 r, [addr];` — one 32-bit word (one bank).
    ld_shared_u32 / /// `st.shared.u32 [addr], v;` — one 32-bit word.
    st_shared_u32 : "u32", u32,
    /// `ld.shared.f32 r, [addr];`
    ld_shared_f32 / /// `st.shared.f32 [addr], v;`
    st_shared_f32 : "f32", f32,
}

/// `ld.shared.u16 r, [addr];` — one 16-bit element (half a bank word; lanes reading the two halves of
/// one word are served by one access): the gather of elements whose rows sit at any 2-byte offset.
///
/// # Safety
/// As [`ld_shared_u32`], with `addr` 2-byte aligned.
#[inline(always)]
pub unsafe fn ld_shared_u16(addr: u32) -> u16 {
    let v: u16;
    // SAFETY: forwarded to the caller. `readonly` (not `pure`): it reads memory that barriers order.
    unsafe { asm!("ld.shared.u16 {0}, [{1}];", out(reg16) v, in(reg32) addr, options(nostack, readonly)) };
    v
}

/// `ld.shared.v2.u32 {a, b}, [addr];` — 64 bits (two consecutive banks); the hardware serves a warp's
/// 256 bytes in two halves (wavefronts) of 16 lanes.
///
/// # Safety
/// As [`ld_shared_u32`], with `addr` 8-byte aligned.
#[inline(always)]
pub unsafe fn ld_shared_v2_u32(addr: u32) -> [u32; 2] {
    let (a, b): (u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.shared.v2.u32 {{{0}, {1}}}, [{2}];", out(reg32) a, out(reg32) b, in(reg32) addr,
                  options(nostack, readonly)) };
    [a, b]
}

/// `st.shared.v2.u32 [addr], {a, b};` — 64 bits.
///
/// # Safety
/// As [`st_shared_u32`], with `addr` 8-byte aligned.
#[inline(always)]
pub unsafe fn st_shared_v2_u32(addr: u32, v: [u32; 2]) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.shared.v2.u32 [{0}], {{{1}, {2}}};", in(reg32) addr, in(reg32) v[0], in(reg32) v[1],
                  options(nostack)) };
}

/// `ld.shared.v4.u32 {a, b, c, d}, [addr];` — 128 bits (four consecutive banks); a warp's 512 bytes are
/// served in four quarter-warp wavefronts when conflict-free.
///
/// # Safety
/// As [`ld_shared_u32`], with `addr` 16-byte aligned.
#[inline(always)]
pub unsafe fn ld_shared_v4_u32(addr: u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller.
    unsafe { asm!("ld.shared.v4.u32 {{{0}, {1}, {2}, {3}}}, [{4}];", out(reg32) a, out(reg32) b,
                  out(reg32) c, out(reg32) d, in(reg32) addr, options(nostack, readonly)) };
    [a, b, c, d]
}

/// `st.shared.v4.u32 [addr], {a, b, c, d};` — 128 bits.
///
/// # Safety
/// As [`st_shared_u32`], with `addr` 16-byte aligned.
#[inline(always)]
pub unsafe fn st_shared_v4_u32(addr: u32, v: [u32; 4]) {
    // SAFETY: forwarded to the caller.
    unsafe { asm!("st.shared.v4.u32 [{0}], {{{1}, {2}, {3}, {4}}};", in(reg32) addr, in(reg32) v[0],
                  in(reg32) v[1], in(reg32) v[2], in(reg32) v[3], options(nostack)) };
}

/// `ld.shared.v4.f32` as four `f32` (bit-cast of [`ld_shared_v4_u32`]).
///
/// # Safety
/// As [`ld_shared_v4_u32`].
#[inline(always)]
pub unsafe fn ld_shared_v4_f32(addr: u32) -> [f32; 4] {
    // SAFETY: forwarded to the caller.
    unsafe { ld_shared_v4_u32(addr) }.map(f32::from_bits)
}

/// `st.shared.v4.f32` of four `f32` (bit-cast of [`st_shared_v4_u32`]).
///
/// # Safety
/// As [`st_shared_v4_u32`].
#[inline(always)]
pub unsafe fn st_shared_v4_f32(addr: u32, v: [f32; 4]) {
    // SAFETY: forwarded to the caller.
    unsafe { st_shared_v4_u32(addr, v.map(f32::to_bits)) }
}
