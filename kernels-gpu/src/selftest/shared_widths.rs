//! `st.shared.v4` / `ld.shared` of 32, 64 and 128 bits, and plain Rust access to dynamic shared memory.
use crate::prim::{shared, sync::sync_threads, thread::thread_idx_x};

/// With 64 threads and `w = g_in` (256 words), thread `t` stores `w[4t..4t+4]` with `st.shared.v4.u32`
/// at word `4t`, then writes `g_out[4t..4t+4] =`
/// `[ld.u32 word 255-t, ld.v2 words (128+2t, 129+2t), plain-Rust load of word (3t+1) % 256]`,
/// and `g_out[256 + 4t .. +4] = ld.v4 words 4·(63-t) ..`.
///
/// # Safety
/// One block of 64 threads and 1024 bytes of dynamic shared memory; `g_in` has 256 readable `u32`,
/// `g_out` 512 writable `u32`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn selftest_shared_widths(g_in: *const u32, g_out: *mut u32) {
    let s_words = shared::dynamic::<shared::Align16>() as *mut u32;
    let s = shared::addr_of(s_words);
    let t = thread_idx_x();
    // SAFETY: every address is a word < 256 of the 1024 launched bytes, aligned to its width (4t, 2t
    // even, 4(63-t)); the barrier separates the stores from the loads.
    unsafe {
        let w = g_in.add(4 * t as usize);
        shared::st_shared_v4_u32(s + 16 * t, [*w, *w.add(1), *w.add(2), *w.add(3)]);
        sync_threads();
        let o = g_out.add(4 * t as usize);
        *o = shared::ld_shared_u32(s + 4 * (255 - t));
        let v2 = shared::ld_shared_v2_u32(s + 4 * (128 + 2 * t));
        *o.add(1) = v2[0];
        *o.add(2) = v2[1];
        *o.add(3) = *s_words.add(((3 * t + 1) % 256) as usize);
        let v4 = shared::ld_shared_v4_u32(s + 16 * (63 - t));
        let o4 = g_out.add(256 + 4 * t as usize);
        for k in 0..4 {
            *o4.add(k) = v4[k];
        }
    }
}
