//! `stmatrix` replays (sm_90).
use super::smem_base;
use crate::prim::{stmatrix, thread::lane_id};

macro_rules! replay_stmatrix {
    ($( $(#[$doc:meta])* $name:ident => $st:path, $n:literal; )*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// See the module contract of `bankcheck` (sm_90).
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(g_addr: *const u32, g_out: *mut u32) {
            let lane = lane_id();
            // SAFETY: module contract; all 32 lanes run the collective.
            unsafe {
                let a = *g_addr.add(lane as usize);
                $st(smem_base() + a, [lane; $n]);
                *g_out.add(lane as usize) = a;
            }
        }
    )*};
}

replay_stmatrix! {
    /// One `stmatrix.x1`.
    bank_replay_stmatrix_x1 => stmatrix::stmatrix_x1, 1;
    /// One `stmatrix.x2`.
    bank_replay_stmatrix_x2 => stmatrix::stmatrix_x2, 2;
    /// One `stmatrix.x4`.
    bank_replay_stmatrix_x4 => stmatrix::stmatrix_x4, 4;
    /// One `stmatrix.x1.trans`.
    bank_replay_stmatrix_x1_trans => stmatrix::stmatrix_x1_trans, 1;
    /// One `stmatrix.x2.trans`.
    bank_replay_stmatrix_x2_trans => stmatrix::stmatrix_x2_trans, 2;
    /// One `stmatrix.x4.trans`.
    bank_replay_stmatrix_x4_trans => stmatrix::stmatrix_x4_trans, 4;
}
