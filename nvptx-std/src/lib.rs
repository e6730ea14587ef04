//! `nvptx-std`: the device side of writing CUDA kernels in Rust on rustc's own `nvptx64-nvidia-cuda`
//! backend — the role rust-cuda's `cuda_std` plays. `#![no_std]`; build a kernel crate that depends on
//! it with the `ptx-builder` crate (from a `build.rs`), which installs the pinned nightly and links PTX.
//!
//! One thin, documented wrapper per PTX instruction or special register, named after what it does or
//! after its PTX, each with its PTX string and a `# Safety` list:
//!
//! | module | what |
//! |---|---|
//! | [`thread`] | `%tid`, `%ctaid`, `%ntid`, `%nctaid` (x, y, z), `%laneid`, `%globaltimer`, 1-D and 2-D indices |
//! | [`sync`] | `bar.sync` (block, named), `bar.warp.sync`, `fence.acq_rel.gpu`, `nanosleep`, `griddepcontrol` (programmatic dependent launch, sm_90) |
//! | [`shared`] | dynamic shared memory (plain Rust loads through it are `ld.shared`), `ld/st.shared` 32/64/128-bit, shared-window addresses |
//! | [`global`] | `ld.global.nc` (128-bit, `L1::no_allocate`; 32-bit), `ld.global.cg`, `st.global.v4` |
//! | [`warp`] | `shfl.sync` (bfly, down, idx), a warp sum, a block-wide reduction through shared slots |
//! | [`atomic`] | `atom.add.acq_rel.gpu`, relaxed stores |
//! | [`ldmatrix`], [`stmatrix`] | `ldmatrix`/`stmatrix` `.x1/.x2/.x4` (`.trans`); `stmatrix` needs sm_90 |
//! | [`mma`], [`wmma`] | `mma.sync.m16n8k16` (f16/bf16 → f32/f16), `wmma` 16×16×16 |
//! | [`cp_async`] | `cp.async.cg` (16 bytes, zero-fill), commit/wait groups |
//! | [`wgmma`], [`mbarrier`], [`tma`] | Hopper (sm_90a): `wgmma.mma_async` (f16, bf16, FP8 e4m3), `mbarrier`, TMA tensor loads/stores |
//! | [`fp8`] | `cvt` between f32/f16 and FP8 e4m3 (sm_89+) |
//! | [`math`] | `ex2.approx`, `lg2.approx` (softmax in base 2) |
//! | [`half16`] | f16 / bf16 held as bits: to and from f32 per type, the 8 elements of a 16-byte chunk, [`unroll8!`] |
//! | [`mod@printf`] | `printf!` over `vprintf` (C formats; output at the host's next synchronization) |
//! | [`cluster`] | thread-block clusters (sm_90): rank, cluster barrier, remote mbarrier arrivals, distributed shared memory (`mapa`, `ld.shared::cluster`); [`cluster_dims!`] |
//!
//! The fragment layouts these instructions imply (which lane holds which element) are data in
//! [`layout::fragment`]; tile layouts, swizzles and the bank model are the rest of [`layout`],
//! re-exported here. [`macro@kernel`] makes a function a kernel entry with its launch bounds (and, built by
//! `ptx-builder`, a typed host launcher); [`launch_bounds!`] gives an `extern "ptx-kernel"` entry CUDA's
//! `__launch_bounds__`. [`prelude`] holds rust-cuda's `cuda_std::prelude` names that exist here.
//!
//! ```ignore
//! // A kernel crate: Cargo.toml has crate-type = ["cdylib"] and depends on nvptx-std;
//! // its rust-toolchain.toml pins the nightly (see this crate's).
//! #![no_std]
//! #![feature(abi_ptx, asm_experimental_arch)] // `extern "ptx-kernel"`; `launch_bounds!` is `global_asm!`
//! use nvptx_std::{thread::index_1d, launch_bounds};
//!
//! /// `y[i] = a · x[i] + y[i]`.
//! #[unsafe(no_mangle)]
//! pub unsafe extern "ptx-kernel" fn saxpy(a: f32, x: *const f32, y: *mut f32, n: u32) {
//!     let i = index_1d();
//!     if i < n {
//!         // SAFETY: the launch gives n readable x and writable y.
//!         unsafe { *y.add(i as usize) += a * *x.add(i as usize) };
//!     }
//! }
//! launch_bounds!(saxpy, 256);
//! ```
//! (The examples here are `ignore`d by `cargo test`: they compile only for `nvptx64-nvidia-cuda`.)
//!
//! Rules every wrapper here follows :
//! * `#[inline(always)]`, so the wrapper is exactly its instruction in the caller.
//! * Warp- or block-collective asm (`bar`, `shfl`, `ldmatrix`, `stmatrix`, `mma`, `cp.async`) is never
//!   `options(pure)`: LLVM does not know inline asm is convergent, and a `pure` asm may be sunk into a
//!   branch or merged, which would deadlock or read the wrong lanes. Without `pure` it stays in place.
//! * Shared-memory addresses are 32-bit offsets in the `.shared` window (what `ldmatrix`, `cp.async`
//!   and `ld.shared` take); [`shared::addr_of`] converts a generic pointer into one.
#![no_std]
#![feature(asm_experimental_arch, stdarch_nvptx, core_intrinsics, gpu_intrinsics, gpu_launch_sized_workgroup_mem, link_llvm_intrinsics)]
#![allow(internal_features)]
#![deny(unsafe_op_in_unsafe_fn)]

pub use layout;

pub mod atomic;
pub mod cluster;
pub mod cp_async;
pub mod fp8;
pub mod global;
pub mod half16;
pub mod ldmatrix;
pub mod math;
pub mod mbarrier;
pub mod mma;
pub mod printf;
pub mod shared;
pub mod stmatrix;
pub mod sync;
pub mod thread;
pub mod tma;
pub mod warp;
pub mod wgmma;
pub mod wmma;

/// CUDA's `__launch_bounds__` for a kernel, stated next to it:
///
/// * `launch_bounds!(kernel, threads)` — `.maxntid threads, 1, 1`: launched with at most `threads`
///   threads per block, so ptxas may give each thread up to `65536 / threads` registers (capped at 255);
/// * `launch_bounds!(kernel, threads, min_blocks_per_sm)` — also `.minnctapersm`: ptxas keeps the
///   registers low enough for that many resident blocks per SM (`setmaxnreg` needs both).
///
/// Rust cannot attach PTX directives to a function: the macro writes `//@entry-directive <kernel>
/// <directive>` lines with `global_asm!`, and `ptx-builder`'s linker step moves each into that kernel's
/// `.entry`. It also names `kernel` in a constant, so a renamed or misspelled kernel is a compile error.
/// The calling crate needs `#![feature(asm_experimental_arch)]` (inline assembly on nvptx is unstable).
///
/// ```ignore
/// #[unsafe(no_mangle)]
/// pub unsafe extern "ptx-kernel" fn my_kernel(x: *mut f32) { /* … */ }
/// nvptx_std::launch_bounds!(my_kernel, 256, 2);
/// ```
/// rust-cuda's `cuda_std::prelude` names that exist here: `kernel`, `thread` (with `index_1d`,
/// `index_2d`, `thread_idx_{x,y,z}`, `block_idx_{x,y,z}`, `block_dim_{x,y,z}`, `grid_dim_{x,y,z}`,
/// `sync_threads`), `printf!`. With `cuda_std = { package = "nvptx-std", path = … }` in a kernel crate's
/// manifest, kernels written against those names compile unchanged. Not here: `alloc` (no device heap:
/// `Vec`, `Box`, `format!`), `print!`/`println!` with Rust formatting (use `printf!`), `f16` and
/// `GpuFloat` (use `half` bits and `core::f32::math`), `#[address_space(shared)]` statics (an NVVM
/// attribute; use `shared::static_alloc` or `shared::dynamic`).
pub mod prelude {
    pub use crate::{kernel, printf, thread};
}

/// `#[kernel]`, `#[kernel(threads = 256)]`, `#[kernel(threads = 128, blocks_per_sm = 2)]`: a function
/// made a kernel entry (its PTX name is its Rust name) with its launch bounds, and — built by
/// `ptx-builder` — a typed host launcher (`$OUT_DIR/<crate>_launchers.rs`). See the `nvptx-macros` crate.
pub use nvptx_macros::kernel;

#[macro_export]
macro_rules! launch_bounds {
    ($kernel:ident, $threads:literal) => {
        const _: () = { let _ = $kernel; };
        core::arch::global_asm!(concat!("//@entry-directive ", stringify!($kernel), " .maxntid ", stringify!($threads), ", 1, 1"));
    };
    ($kernel:ident, $threads:literal, $min_blocks_per_sm:literal) => {
        const _: () = { let _ = $kernel; };
        core::arch::global_asm!(
            concat!("//@entry-directive ", stringify!($kernel), " .maxntid ", stringify!($threads), ", 1, 1"),
            concat!("//@entry-directive ", stringify!($kernel), " .minnctapersm ", stringify!($min_blocks_per_sm)),
        );
    };
}

/// `cluster_dims!(kernel, n)`: the kernel runs in clusters of `n` CTAs along x — `.reqnctapercluster n,
/// 1, 1` in its entry (CUDA's `__cluster_dims__`), so an ordinary launch forms the clusters (its grid's x
/// must be a multiple of `n`). Written next to the kernel like [`launch_bounds!`].
#[macro_export]
macro_rules! cluster_dims {
    ($kernel:ident, $n:literal) => {
        const _: () = { let _ = $kernel; };
        core::arch::global_asm!(concat!("//@entry-directive ", stringify!($kernel), " .reqnctapercluster ", stringify!($n), ", 1, 1"));
    };
}

/// A kernel that panics (bounds check, overflow in debug) traps: the launch fails with
/// `CUDA_ERROR_ILLEGAL_INSTRUCTION` / `LAUNCH_FAILED`, which the host reports naming the kernel.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` aborts the kernel; it has no preconditions.
    unsafe { core::arch::nvptx::trap() }
}
