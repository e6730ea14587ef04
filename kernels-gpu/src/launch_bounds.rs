//! `launch_bounds!`: CUDA's `__launch_bounds__` for a Rust kernel.
//!
//! Rust cannot attach PTX performance directives to a function, so a kernel's file states them next to
//! the kernel:
//!
//! * `launch_bounds!(kernel, threads)` — `.maxntid threads, 1, 1`: the kernel is launched with at most
//!   `threads` threads per block, so ptxas may give each thread up to `65536 / threads` registers
//!   (capped at 255);
//! * `launch_bounds!(kernel, threads, min_blocks_per_sm)` — also `.minnctapersm min_blocks_per_sm`: ptxas
//!   keeps the registers low enough for that many resident blocks per SM (`setmaxnreg` needs both).
//!
//! The macro writes `//@entry-directive <kernel> <directive>` comment lines into the module with
//! `global_asm!`; `nvptx-link` (`builder/src/nvptx-link`) moves each directive into that kernel's `.entry` (between the
//! parameter list and the body). It also names `kernel` in a constant, so a renamed or misspelled
//! kernel is a compile error rather than a directive silently attached to nothing.
pub(crate) use nvptx_std::launch_bounds;
