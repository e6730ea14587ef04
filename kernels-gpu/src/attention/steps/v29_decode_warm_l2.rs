//! Decode step ad4 (issues 49 and 51): ad3 that also asks the L2 for the next kernel's bytes.
//!
//! At batch 1 decode attention is latency-bound: in the runner's Llama-3-8B step it takes ~6–7 µs a
//! layer to read 8 MiB of cache (the copy rate would take ~2), so the DRAM idles most of that time, and
//! the O projection after it then streams its 32 MiB of weights from DRAM at ~67% of the copy rate
//! (11.8 µs a layer in the graph where 7.9 is the bytes' time: session 63). ad4 takes a byte range from the
//! host (`warm`, `warm_bytes`: the O projection's weights) and, before anything else, each CTA asks the
//! L2 for its share of it (`util::l2::warm_l2_share`: `cp.async.bulk.prefetch.L2`, warp 0's lanes, 32 KiB
//! requests); then it is ad3. The host warms only what fits the L2 beside the cache this call reads.
//!
//! Prediction (before any run, H200, the runner's batch-1 step, 2048-token context): the weights' fetch
//! (~7.9 µs at the copy rate) overlaps attention's ~6 µs, and the O projection reads most of them from the
//! L2: ~3 µs a layer less, the step's GPU time 4.29 → ~4.19 ms. Against it: session 55 had the O
//! projection's own CTAs (resident beside attention's) prefetch their whole split before their PDL wait,
//! and gained nothing — if those were resident and early, this will gain nothing either.
use super::decode_body::decode;
use crate::hgemm::elem::{Bf16, F16};
use layout::attention::{DecodeCache as Cache, DecodeDims as Dims};

macro_rules! decode4_entry {
    ($name:ident, $e:ty, $d:literal) => {
        /// Decode attention (step ad4) for head dim `$d`: see the module doc.
        ///
        /// # Safety
        /// As ad3's entry (`attn_decode3_d*`), and `warm` 16-byte aligned with `warm..warm + warm_bytes`
        /// inside one live global allocation (or `warm_bytes` 0).
        #[unsafe(no_mangle)]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(q: *const u16, k: *const u16, v: *const u16, seq_lens: *const i32, cache: Cache, dims: Dims,
                                                o: *mut u16, lse: *mut f32, o_part: *mut f32, lse_part: *mut f32, counters: *mut u32,
                                                warm: *const u8, warm_bytes: u64) {
            // SAFETY: forwarded (the range is the caller's; a prefetch writes nothing).
            unsafe {
                crate::util::l2::warm_l2_share(warm, warm_bytes);
                decode::<$e, $d, true, true>(q, k, v, seq_lens, cache, dims, o, lse, o_part, lse_part, counters)
            }
        }
        crate::launch_bounds::launch_bounds!($name, 128);
    };
}

decode4_entry!(attn_decode4_d64_f16, F16, 64);
decode4_entry!(attn_decode4_d96_f16, F16, 96);
decode4_entry!(attn_decode4_d128_f16, F16, 128);
decode4_entry!(attn_decode4_d256_f16, F16, 256);
decode4_entry!(attn_decode4_d64_bf16, Bf16, 64);
decode4_entry!(attn_decode4_d96_bf16, Bf16, 96);
decode4_entry!(attn_decode4_d128_bf16, Bf16, 128);
decode4_entry!(attn_decode4_d256_bf16, Bf16, 256);
