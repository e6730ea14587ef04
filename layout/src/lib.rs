//! Layout math shared by the GPU kernels (`kernels-gpu`, compiled for `nvptx64-nvidia-cuda`) and the host
//! (`kernel-lab`, compiled for the CPU): index maps, swizzles, paddings and fragment maps.
//!
//! One source of truth: a kernel computes its shared-memory addresses with these functions, and the host's
//! bank-conflict model replays the very same functions on the CPU. If two places computed the same index,
//! one of them would be a bug waiting to happen.
#![no_std]

pub mod reduce;
pub mod attention;
pub mod bank;
pub mod copy;
pub mod pad;
pub mod swizzle;
pub mod tile;

pub use swizzle::{LayoutError, Swizzle, SwizzleFn};
pub use tile::{Layout, Padded, RowMajor, Swizzled};
pub mod sgemm;
pub mod hgemm;
pub mod hgemm_warp;
pub mod hopper;
pub mod fragment;
pub mod fp8;
pub mod random;
pub mod comm;
