//! Replay microkernels: one warp issues exactly one shared-memory instruction at the per-lane byte
//! offsets the host gives, so Nsight Compute's wavefront and bank-conflict counters for the launch can be
//! compared with the bank model's prediction (`kernel-lab layout bankcheck`).
//!
//! Contract for every kernel here: one block of 32 threads, `REPLAY_SMEM` bytes of dynamic shared
//! memory; `g_addr[lane]` is a byte offset into it, aligned to the access width, or [`INACTIVE`] (LSU
//! forms only) for a lane that must not access; `g_out` has 128 writable `u32`. Apart from that one
//! instruction the kernels touch only global memory, so the launch's shared counters are its alone.
use crate::prim::{ldmatrix, shared, thread::lane_id};

/// `g_addr` value that makes a lane skip the access (LSU forms).
pub const INACTIVE: u32 = u32::MAX;
/// Dynamic shared memory of every replay kernel, bytes.
pub const REPLAY_SMEM: u32 = 48 * 1024;

#[cfg(lab_sm90)]
mod stmatrix;

#[inline(always)]
fn smem_base() -> u32 {
    shared::addr_of(shared::dynamic::<shared::Align16>())
}

macro_rules! replay_load {
    ($( $(#[$doc:meta])* $name:ident => $ld:path, $n:literal; )*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// See the module contract.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(g_addr: *const u32, g_out: *mut u32) {
            let lane = lane_id();
            // SAFETY: module contract: in-bounds, aligned offsets; lanes < 32 index `g_out[4·lane + k]`.
            unsafe {
                let a = *g_addr.add(lane as usize);
                if a != INACTIVE {
                    let v: [u32; $n] = bytemuck_cast($ld(smem_base() + a));
                    for k in 0..$n {
                        *g_out.add((4 * lane + k) as usize) = v[k as usize];
                    }
                }
            }
        }
    )*};
}

macro_rules! replay_store {
    ($( $(#[$doc:meta])* $name:ident => $st:path, $n:literal; )*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// See the module contract.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(g_addr: *const u32, g_out: *mut u32) {
            let lane = lane_id();
            // SAFETY: module contract: in-bounds, aligned offsets.
            unsafe {
                let a = *g_addr.add(lane as usize);
                if a != INACTIVE {
                    let v: [u32; $n] = core::array::from_fn(|k| lane * 4 + k as u32);
                    $st(smem_base() + a, from_array(v));
                    *g_out.add(lane as usize) = a;
                }
            }
        }
    )*};
}

/// Scalar or array result of a load as an array.
trait AsWords<const N: usize> { fn words(self) -> [u32; N]; }
impl AsWords<1> for u32 { fn words(self) -> [u32; 1] { [self] } }
impl<const N: usize> AsWords<N> for [u32; N] { fn words(self) -> [u32; N] { self } }
#[inline(always)]
fn bytemuck_cast<const N: usize, T: AsWords<N>>(v: T) -> [u32; N] { v.words() }

/// An array as the scalar or array a store takes.
trait FromWords<const N: usize> { fn from_words(v: [u32; N]) -> Self; }
impl FromWords<1> for u32 { fn from_words(v: [u32; 1]) -> u32 { v[0] } }
impl<const N: usize> FromWords<N> for [u32; N] { fn from_words(v: [u32; N]) -> Self { v } }
#[inline(always)]
fn from_array<const N: usize, T: FromWords<N>>(v: [u32; N]) -> T { T::from_words(v) }

replay_load! {
    /// One `ld.shared.u32` per active lane.
    bank_replay_ld_b32 => shared::ld_shared_u32, 1;
    /// One `ld.shared.v2.u32` per active lane.
    bank_replay_ld_b64 => shared::ld_shared_v2_u32, 2;
    /// One `ld.shared.v4.u32` per active lane.
    bank_replay_ld_b128 => shared::ld_shared_v4_u32, 4;
}

replay_store! {
    /// One `st.shared.u32` per active lane.
    bank_replay_st_b32 => shared::st_shared_u32, 1;
    /// One `st.shared.v2.u32` per active lane.
    bank_replay_st_b64 => shared::st_shared_v2_u32, 2;
    /// One `st.shared.v4.u32` per active lane.
    bank_replay_st_b128 => shared::st_shared_v4_u32, 4;
}

macro_rules! replay_ldmatrix {
    ($( $(#[$doc:meta])* $name:ident => $ld:path, $n:literal; )*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// See the module contract; every lane's offset is a valid 16-byte-aligned row address (lanes
        /// past `8 · matrices` are ignored by the instruction but still passed).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(g_addr: *const u32, g_out: *mut u32) {
            let lane = lane_id();
            // SAFETY: module contract; all 32 lanes run the collective.
            unsafe {
                let v = $ld(smem_base() + *g_addr.add(lane as usize));
                for k in 0..$n {
                    *g_out.add((4 * lane + k) as usize) = v[k as usize];
                }
            }
        }
    )*};
}

replay_ldmatrix! {
    /// One `ldmatrix.x1`.
    bank_replay_ldmatrix_x1 => ldmatrix::ldmatrix_x1, 1;
    /// One `ldmatrix.x2`.
    bank_replay_ldmatrix_x2 => ldmatrix::ldmatrix_x2, 2;
    /// One `ldmatrix.x4`.
    bank_replay_ldmatrix_x4 => ldmatrix::ldmatrix_x4, 4;
    /// One `ldmatrix.x1.trans`.
    bank_replay_ldmatrix_x1_trans => ldmatrix::ldmatrix_x1_trans, 1;
    /// One `ldmatrix.x2.trans`.
    bank_replay_ldmatrix_x2_trans => ldmatrix::ldmatrix_x2_trans, 2;
    /// One `ldmatrix.x4.trans`.
    bank_replay_ldmatrix_x4_trans => ldmatrix::ldmatrix_x4_trans, 4;
}
