//! GPU tests of the runner's own kernels, each against a host reference that rounds where the kernel does
//! (bf16 through `half`), on random data with the outputs poisoned first: the residual add + RMSNorm (rows
//! off the 2048-element stride, with and without the add), the rotary embedding with biases into packed Q/K/V
//! and the KV cache (contiguous and paged), the cached rows a chunk attends to gathered (both layouts), SiLU·mul, the argmax (ties, NaNs, the next step's inputs advanced, each token posted into mapped host memory), the transpose (ragged tiles) and the embedding
//! gather (an id past the vocabulary). Without a GPU each test says it was skipped and passes.
use half::bf16;
use kernel_lab::{
    Gpu,
    cudarc::driver::{CudaSlice, LaunchConfig},
    runtime::{gpu::gpu_or_skip, verify},
};
use kernel_lab_llm::{grid, kernels as k, mapped::Mapped, ptx_for};
use rand::Rng;

fn b(x: f32) -> f32 {
    bf16::from_f32(x).to_f32()
}

fn bits(v: &[f32]) -> Vec<u16> {
    v.iter().map(|&x| bf16::from_f32(x).to_bits()).collect()
}

fn floats(v: &[u16]) -> Vec<f32> {
    v.iter().map(|&x| bf16::from_bits(x).to_f32()).collect()
}

fn random(rng: &mut impl Rng, n: usize, scale: f32) -> Vec<f32> {
    (0..n).map(|_| b(rng.random_range(-scale..scale))).collect()
}

fn cfg(blocks: u32, smem: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: smem }
}

/// Downloaded bits as bf16 floats, checking the poison is gone.
fn got(gpu: &Gpu, d: &CudaSlice<u16>, what: &str) -> Vec<f32> {
    let v = gpu.download(d).unwrap();
    assert!(!v.contains(&0xFFFF), "{what}: output not fully written (poison left)");
    floats(&v)
}

/// Positions where two bf16 vectors differ by more than one unit in the last place.
fn far(a: &[f32], w: &[f32]) -> usize {
    a.iter().zip(w).filter(|(x, y)| (*x - *y).abs() > 1e-6_f32.max(y.abs() / 128.0)).count()
}

#[test]
fn add_rmsnorm_matches_the_rounded_reference() {
    let Some(gpu) = gpu_or_skip("add_rmsnorm_matches_the_rounded_reference") else { return };
    let kern = k::add_rmsnorm_bf16::load(&gpu, ptx_for(&gpu).0, ptx_for(&gpu).1).unwrap();
    let mut rng = verify::rng(verify::fresh_seed());
    for (rows, hidden, add) in [(5usize, 4104usize, 1u32), (3, 64, 0), (2, 16384, 1)] {
        let (x, d, w) = (random(&mut rng, rows * hidden, 2.0), random(&mut rng, rows * hidden, 1.0), random(&mut rng, hidden, 1.5));
        let (mut dx, dd, dw) = (gpu.upload(&bits(&x)).unwrap(), gpu.upload(&bits(&d)).unwrap(), gpu.upload(&bits(&w)).unwrap());
        let mut dy = gpu.zeros::<u16>(rows * hidden).unwrap();
        gpu.poison(&mut dy).unwrap();
        // SAFETY: rows blocks of 256 threads, 32 bytes of shared memory; x, delta, y hold rows·hidden, w hidden;
        // hidden a multiple of 8 up to 16384; fresh (aligned) allocations.
        unsafe { k::add_rmsnorm_bf16::launch(&gpu, &kern, cfg(rows as u32, 32), &mut dx, &dd, &dw, &mut dy, hidden as u32, 1e-5, add).unwrap() };
        gpu.sync_after("add_rmsnorm").unwrap();
        let (gx, gy) = (floats(&gpu.download(&dx).unwrap()), got(&gpu, &dy, "add_rmsnorm"));
        for r in 0..rows {
            let row: Vec<f32> = (0..hidden).map(|c| if add != 0 { b(x[r * hidden + c] + d[r * hidden + c]) } else { x[r * hidden + c] }).collect();
            assert_eq!(&gx[r * hidden..][..hidden], &row[..], "rows {rows} hidden {hidden}: the residual stream");
            let ms: f64 = row.iter().map(|&v| v as f64 * v as f64).sum::<f64>() / hidden as f64;
            let inv = 1.0 / (ms + 1e-5).sqrt();
            let want: Vec<f32> = (0..hidden).map(|c| b(w[c] * b((row[c] as f64 * inv) as f32))).collect();
            let n = far(&gy[r * hidden..][..hidden], &want);
            assert!(n * 1000 <= hidden, "rows {rows} hidden {hidden} row {r}: {n} elements more than 1 ulp off");
        }
    }
}

/// A chain of launches where each reads what the previous wrote (the residual stream and, as its delta,
/// the previous output) and overwrites what the one before it read: on Hopper the kernels are launched
/// with programmatic dependent launch (`pdl` prologue), so a missing wait would race. The chain run back
/// to back must equal, bit for bit, the same chain with the host waiting after every launch.
#[test]
fn a_chain_of_dependent_launches_equals_the_synchronized_chain() {
    let Some(gpu) = gpu_or_skip("a_chain_of_dependent_launches_equals_the_synchronized_chain") else { return };
    let kern = k::add_rmsnorm_bf16::load(&gpu, ptx_for(&gpu).0, ptx_for(&gpu).1).unwrap();
    eprintln!("add_rmsnorm from {} (launched with PDL: {})", ptx_for(&gpu).1, kern.pdl);
    let mut rng = verify::rng(verify::fresh_seed());
    let (rows, hidden, links) = (96usize, 4096usize, 64);
    let (x, d, w) = (random(&mut rng, rows * hidden, 2.0), random(&mut rng, rows * hidden, 1.0), random(&mut rng, hidden, 1.5));
    let run = |sync_each: bool| -> (Vec<u16>, Vec<u16>) {
        let (mut dx, dw) = (gpu.upload(&bits(&x)).unwrap(), gpu.upload(&bits(&w)).unwrap());
        let mut ys = [gpu.upload(&bits(&d)).unwrap(), gpu.zeros::<u16>(rows * hidden).unwrap()];
        gpu.poison(&mut ys[1]).unwrap();
        for i in 0..links {
            let (a, b) = ys.split_at_mut(1);
            let (src, dst) = if i % 2 == 0 { (&a[0], &mut b[0]) } else { (&b[0], &mut a[0]) };
            // SAFETY: rows blocks of 256 threads, 32 bytes of shared memory; x, delta, y hold rows·hidden,
            // w hidden; hidden a multiple of 8 up to 16384; y and delta distinct buffers, neither x.
            unsafe { k::add_rmsnorm_bf16::launch(&gpu, &kern, cfg(rows as u32, 32), &mut dx, src, &dw, dst, hidden as u32, 1e-5, 1).unwrap() };
            if sync_each {
                gpu.sync_after("add_rmsnorm").unwrap();
            }
        }
        gpu.sync_after("add_rmsnorm").unwrap();
        (gpu.download(&dx).unwrap(), gpu.download(&ys[links % 2]).unwrap())
    };
    let (sx, sy) = run(true);
    assert!(!sy.contains(&0xFFFF), "the synchronized chain left poison");
    assert!(floats(&sx).iter().all(|v| v.is_finite()), "the residual stream overflowed: pick smaller inputs");
    for rep in 0..3 {
        let (cx, cy) = run(false);
        assert!(cx == sx, "rep {rep}: the residual stream differs from the synchronized chain's");
        assert!(cy == sy, "rep {rep}: the last output differs from the synchronized chain's");
    }
}

#[test]
fn rope_rotates_into_packed_qkv_and_the_cache() {
    let Some(gpu) = gpu_or_skip("rope_rotates_into_packed_qkv_and_the_cache") else { return };
    let kern = k::rope_bf16::load(&gpu, ptx_for(&gpu).0, ptx_for(&gpu).1).unwrap();
    let mut rng = verify::rng(verify::fresh_seed());
    let (tokens, heads, kv, d, max_len, slots) = (3usize, 4usize, 2usize, 64usize, 32usize, 2usize);
    let width = (heads + 2 * kv) * d;
    let (qkv, bias) = (random(&mut rng, tokens * width, 2.0), random(&mut rng, width, 0.5));
    let (pos, slot) = (vec![0i32, 5, 17], vec![0i32, 1, 0]);
    let inv = kernel_lab_llm::rope::inv_freq(10000.0, d, kernel_lab_llm::config::RopeScaling::None);
    let table = kernel_lab_llm::rope::table(&inv, max_len);
    let (dqkv, dbias, dpos, dslot, dtab) = (gpu.upload(&bits(&qkv)).unwrap(), gpu.upload(&bits(&bias)).unwrap(), gpu.upload(&pos).unwrap(),
                                           gpu.upload(&slot).unwrap(), gpu.upload(&table).unwrap());
    // A paged cache of 16-token pages (the block table `[slots][2]`, pages out of order) beside the
    // contiguous one: where K/V row (slot, position, head) lands in each.
    let (page_size, pages, blocks) = (16usize, 5usize, vec![3i32, 0, 4, 1]);
    let dblocks = gpu.upload(&blocks).unwrap();
    let at_contiguous = |s: usize, p: usize, h: usize| ((s * kv + h) * max_len + p) * d;
    let at_paged = |s: usize, p: usize, h: usize| ((blocks[s * 2 + p / page_size] as usize * kv + h) * page_size + p % page_size) * d;
    // The runner's grid (2 blocks a token here), then 1 block a token (each thread striding); contiguous,
    // then paged.
    let spread = grid::rope(tokens, heads, kv, d);
    assert_eq!(spread.grid_dim, (tokens as u32, 2, 1));
    for (launch, paged) in [(spread, false), (cfg(tokens as u32, 0), false), (spread, true)] {
    let rows = if paged { pages * page_size } else { slots * max_len };
    let cache_at = |s: usize, p: usize, h: usize| if paged { at_paged(s, p, h) } else { at_contiguous(s, p, h) };
    let mut out: Vec<CudaSlice<u16>> = [tokens * heads * d, tokens * kv * d, tokens * kv * d, rows * kv * d, rows * kv * d]
        .iter().map(|&n| gpu.zeros::<u16>(n).unwrap()).collect();
    for o in &mut out {
        gpu.poison(o).unwrap();
    }
    let [q, kk, v, ck, cv] = &mut out[..] else { unreachable!() };
    // SAFETY: one block row per token; the buffers in the layouts the kernel's contract names; positions <
    // max_len = the table's rows, slots < 2; paged, every (slot, position) on a page of the table, each < 5.
    unsafe {
        k::rope_bf16::launch(&gpu, &kern, launch, &dqkv, &dbias, &dpos, &dtab, q, kk, v, ck, cv, &dslot, max_len as u32, heads as u32, kv as u32, d as u32,
                             1, max_len as u32, 1, &dblocks, 2, if paged { page_size as u32 } else { 0 }).unwrap()
    };
    gpu.sync_after("rope").unwrap();
    let (gq, gk, gv, gck, gcv) = (got(&gpu, q, "q"), got(&gpu, kk, "k"), got(&gpu, v, "v"), floats(&gpu.download(ck).unwrap()), floats(&gpu.download(cv).unwrap()));
    let half = d / 2;
    for t in 0..tokens {
        let at = |col: usize| b(qkv[t * width + col] + bias[col]);
        for hh in 0..heads + kv {
            for j in 0..half {
                let (c, s) = (b(table[2 * (pos[t] as usize * half + j)]), b(table[2 * (pos[t] as usize * half + j) + 1]));
                let (x1, x2) = (at(hh * d + j), at(hh * d + j + half));
                let (o1, o2) = (b(b(x1 * c) - b(x2 * s)), b(b(x2 * c) + b(x1 * s)));
                let (g1, g2) = if hh < heads {
                    (gq[(t * heads + hh) * d + j], gq[(t * heads + hh) * d + j + half])
                } else {
                    let kh = hh - heads;
                    let cache = cache_at(slot[t] as usize, pos[t] as usize, kh);
                    assert_eq!((gck[cache + j], gck[cache + j + half]), (o1, o2), "token {t} K head {kh} dim {j}: the cache");
                    (gk[(t * kv + kh) * d + j], gk[(t * kv + kh) * d + j + half])
                };
                assert_eq!((g1, g2), (o1, o2), "token {t} head {hh} dim {j}");
            }
        }
        for e in 0..kv * d {
            let want = at((heads + kv) * d + e);
            assert_eq!(gv[t * kv * d + e], want, "token {t} V element {e}");
            assert_eq!(gcv[cache_at(slot[t] as usize, pos[t] as usize, e / d) + e % d], want, "token {t} V element {e}: the cache");
        }
    }
    }
}

#[test]
fn gather_kv_copies_cached_rows_into_packed_k_and_v() {
    let Some(gpu) = gpu_or_skip("gather_kv_copies_cached_rows_into_packed_k_and_v") else { return };
    let kern = k::gather_kv::load(&gpu, ptx_for(&gpu).0, ptx_for(&gpu).1).unwrap();
    let mut rng = verify::rng(verify::fresh_seed());
    let (kv, d, max_len, slots) = (3usize, 64usize, 48usize, 3usize);
    // Key rows: slot 2's positions 0..40, slot 0's 0..7 (a piece after 6 cached tokens), slot 1's 0..33.
    let rows: Vec<(i32, i32)> = (0..40).map(|p| (2, p)).chain((0..7).map(|p| (0, p))).chain((0..33).map(|p| (1, p))).collect();
    let (slot, pos): (Vec<i32>, Vec<i32>) = rows.iter().copied().unzip();
    let (dslot, dpos) = (gpu.upload(&slot).unwrap(), gpu.upload(&pos).unwrap());
    // Pages of 16 tokens: slot s's page j is `blocks[s · 3 + j]` (an unused entry -1).
    let (page_size, pages, blocks) = (16usize, 9usize, vec![4i32, 7, -1, 0, 8, 6, 2, 5, 1]);
    let dblocks = gpu.upload(&blocks).unwrap();
    for paged in [false, true] {
        let cache_rows = if paged { pages * page_size } else { slots * max_len };
        let (ck, cv) = (random(&mut rng, cache_rows * kv * d, 2.0), random(&mut rng, cache_rows * kv * d, 2.0));
        let (dck, dcv) = (gpu.upload(&bits(&ck)).unwrap(), gpu.upload(&bits(&cv)).unwrap());
        let (mut gk, mut gv) = (gpu.zeros::<u16>(rows.len() * kv * d).unwrap(), gpu.zeros::<u16>(rows.len() * kv * d).unwrap());
        gpu.poison(&mut gk).unwrap();
        gpu.poison(&mut gv).unwrap();
        // SAFETY: one block per row; every (slot, position) inside the cache (paged: on a page of the table,
        // < 9); k, v hold rows · kv · D; fresh (aligned) allocations; D a multiple of 8.
        unsafe {
            k::gather_kv::launch(&gpu, &kern, grid::rows(rows.len(), 0), &dck, &dcv, &dslot, &dpos, &mut gk, &mut gv, kv as u32, d as u32, max_len as u32,
                                 &dblocks, 3, if paged { page_size as u32 } else { 0 }).unwrap()
        };
        gpu.sync_after("gather_kv").unwrap();
        let (gk, gv) = (got(&gpu, &gk, "k"), got(&gpu, &gv, "v"));
        for (r, &(s, p)) in rows.iter().enumerate() {
            let (s, p) = (s as usize, p as usize);
            for h in 0..kv {
                let at = if paged { ((blocks[s * 3 + p / page_size] as usize * kv + h) * page_size + p % page_size) * d } else { ((s * kv + h) * max_len + p) * d };
                let row = (r * kv + h) * d;
                assert_eq!(&gk[row..row + d], &ck[at..at + d], "paged {paged}: key row {r} (slot {s}, position {p}) head {h}");
                assert_eq!(&gv[row..row + d], &cv[at..at + d], "paged {paged}: value row {r} (slot {s}, position {p}) head {h}");
            }
        }
    }
}

#[test]
fn silu_mul_argmax_transpose_and_embed() {
    let Some(gpu) = gpu_or_skip("silu_mul_argmax_transpose_and_embed") else { return };
    let mut rng = verify::rng(verify::fresh_seed());
    // SiLU·mul over 3 tokens of 4104 (3 blocks a token, the last one's threads partly idle; then 1
    // block a token, striding).
    let (tokens, inter) = (3usize, 4104usize);
    let gu = random(&mut rng, tokens * 2 * inter, 6.0);
    let kern = k::silu_mul_bf16::load(&gpu, ptx_for(&gpu).0, ptx_for(&gpu).1).unwrap();
    let dgu = gpu.upload(&bits(&gu)).unwrap();
    let mut dout = gpu.zeros::<u16>(tokens * inter).unwrap();
    let spread = grid::silu_mul(tokens, inter);
    assert_eq!(spread.grid_dim, (tokens as u32, 3, 1));
    for launch in [spread, cfg(tokens as u32, 0)] {
    gpu.poison(&mut dout).unwrap();
    // SAFETY: one block row per token; gu holds tokens·2·inter, out tokens·inter; inter % 8 == 0.
    unsafe { k::silu_mul_bf16::launch(&gpu, &kern, launch, &dgu, &mut dout, inter as u32).unwrap() };
    gpu.sync_after("silu_mul").unwrap();
    let g = got(&gpu, &dout, "silu_mul");
    let want: Vec<f32> = (0..tokens * inter).map(|i| {
        let (t, j) = (i / inter, i % inter);
        let x = gu[t * 2 * inter + j] as f64;
        b(b((x / (1.0 + (-x).exp())) as f32) * gu[t * 2 * inter + inter + j])
    }).collect();
    assert!(far(&g, &want) * 100 <= g.len(), "silu_mul: {} of {} more than 1 ulp off", far(&g, &want), g.len());
    }

    // Argmax over rows split across blocks (20000: 10 blocks of 2048 elements, vector loads) and one
    // row (4099, not a multiple of 8: single loads, 3 blocks): a planted maximum, a tie across blocks (the
    // first wins), a NaN skipped, a row of NaNs (−1), −0 and +0 tied at the top (the first wins); launched twice with new logits (each launch leaves
    // the counts at zero for the next).
    let kern = k::argmax_bf16::load(&gpu, ptx_for(&gpu).0, ptx_for(&gpu).1).unwrap();
    for (vocab, parts) in [(20000usize, 10u32), (4099, 3)] {
        assert_eq!(grid::argmax(5, vocab).grid_dim, (5, parts, 1));
        let mut partial = gpu.zeros::<u64>(5 * grid::ARGMAX_MAX_PARTS).unwrap();
        let mut count = gpu.zeros::<u32>(5).unwrap();
        // The token ring in mapped host memory: 4 slots of 6 rows (one more than launched), counts per row.
        let mut ring = Mapped::new(&gpu, 4 * 6).unwrap();
        let mut ticks = gpu.zeros::<u32>(6).unwrap();
        for round in 0..2 {
            let mut logits = random(&mut rng, 5 * vocab, 3.0);
            let top = [17 + round, 400, vocab - 1];
            logits[top[0]] = 9.0;
            logits[vocab + 400] = 9.0;
            logits[vocab + vocab - 3] = 9.0;
            logits[2 * vocab + 5] = f32::NAN;
            logits[2 * vocab + vocab - 1] = 8.5;
            logits[3 * vocab..4 * vocab].fill(f32::NAN);
            for x in &mut logits[4 * vocab..] {
                *x = -x.abs() - 1.0;
            }
            logits[4 * vocab + 5] = -0.0;
            logits[4 * vocab + vocab - 2] = 0.0;
            let dl = gpu.upload(&bits(&logits)).unwrap();
            let mut di = gpu.upload(&[-7i32; 5]).unwrap();
            // The second round advances the next step's inputs (a greedy decode step): ids = max(out, 0),
            // positions and lengths + 1; the first leaves them alone.
            let (pos0, lens0) = ([10i32, 20, 30, 40, 50], [11i32, 21, 31, 41, 51]);
            let (mut ids, mut pos, mut lens) = (gpu.upload(&[-5i32; 5]).unwrap(), gpu.upload(&pos0).unwrap(), gpu.upload(&lens0).unwrap());
            // SAFETY: the runner's grid and shared memory; logits hold 5·vocab, out 5, partial
            // 5·ARGMAX_MAX_PARTS ≥ 5·parts, count 5 (zero, and left zero by each launch); ids, pos, lens 5;
            // the ring 4 · 6 words of mapped host memory, ticks 6 counts, 5 ≤ 6 rows.
            unsafe {
                k::argmax_bf16::launch(&gpu, &kern, grid::argmax(5, vocab), &dl, &mut di, vocab as u32, &mut partial, &mut count, &mut ids, &mut pos, &mut lens,
                                       round as u32, &mut ring, &mut ticks, 4, 6).unwrap()
            };
            let want = vec![top[0] as i32, top[1] as i32, top[2] as i32, -1, 5];
            assert_eq!(gpu.download(&di).unwrap(), want, "argmax over {vocab}, round {round}");
            // Each row's token posted with its count (round + 1) in slot `round`, straight into host memory; the
            // sixth row untouched.
            assert_eq!(gpu.download(&ticks).unwrap(), [vec![round as u32 + 1; 5], vec![0]].concat(), "argmax over {vocab}: the ring's counts");
            for r in 0..=round {
                let got: Vec<u64> = (0..6).map(|b| ring.read(r * 6 + b).unwrap()).collect();
                let posted: Vec<(u32, i32)> = got[..5].iter().map(|&w| ((w >> 32) as u32, w as u32 as i32)).collect();
                assert_eq!(posted.iter().map(|p| p.0).collect::<Vec<_>>(), vec![r as u32 + 1; 5], "argmax over {vocab}, round {round}: slot {r}'s counts");
                assert_eq!(got[5], 0, "argmax over {vocab}: a row not launched is not posted");
                if r == round {
                    assert_eq!(posted.iter().map(|p| p.1).collect::<Vec<_>>(), want, "argmax over {vocab}, round {round}: the posted tokens");
                }
            }
            assert_eq!(gpu.download(&count).unwrap(), vec![0; 5], "argmax over {vocab}: the counts left at zero");
            let (gi, gp, gl) = (gpu.download(&ids).unwrap(), gpu.download(&pos).unwrap(), gpu.download(&lens).unwrap());
            if round == 1 {
                assert_eq!(gi, want.iter().map(|&t| t.max(0)).collect::<Vec<_>>(), "argmax over {vocab}: the next ids");
                assert_eq!((gp, gl), (pos0.map(|p| p + 1).to_vec(), lens0.map(|l| l + 1).to_vec()), "argmax over {vocab}: positions and lengths advanced");
            } else {
                assert_eq!((gi, gp, gl), (vec![-5; 5], pos0.to_vec(), lens0.to_vec()), "argmax over {vocab}: nothing advanced without the flag");
            }
        }
    }

    // Transpose of 37 × 70 (tiles cut at both edges).
    let (rows, cols) = (37usize, 70usize);
    let src: Vec<u16> = (0..rows * cols).map(|i| i as u16).collect();
    let kern = k::transpose16::load(&gpu, ptx_for(&gpu).0, ptx_for(&gpu).1).unwrap();
    let ds = gpu.upload(&src).unwrap();
    let mut dt = gpu.zeros::<u16>(rows * cols).unwrap();
    gpu.poison(&mut dt).unwrap();
    let tc = LaunchConfig { grid_dim: (cols.div_ceil(32) as u32, rows.div_ceil(32) as u32, 1), block_dim: (256, 1, 1), shared_mem_bytes: 32 * 33 * 4 };
    // SAFETY: grid ⌈cols/32⌉ × ⌈rows/32⌉, 4224 bytes of shared memory; both hold rows·cols.
    unsafe { k::transpose16::launch(&gpu, &kern, tc, &ds, &mut dt, rows as u32, cols as u32).unwrap() };
    let t = gpu.download(&dt).unwrap();
    assert!((0..rows * cols).all(|i| t[(i % cols) * rows + i / cols] == src[i]), "transpose");

    // Embedding gather: rows 2 and 0, and an id past the vocabulary (a zero row).
    let (vocab, hidden) = (4usize, 16usize);
    let table: Vec<u16> = (0..vocab * hidden).map(|i| 1000 + i as u16).collect();
    let kern = k::embed_bf16::load(&gpu, ptx_for(&gpu).0, ptx_for(&gpu).1).unwrap();
    let (dtab, dids) = (gpu.upload(&table).unwrap(), gpu.upload(&[2i32, 0, 9]).unwrap());
    let mut de = gpu.zeros::<u16>(3 * hidden).unwrap();
    gpu.poison(&mut de).unwrap();
    // SAFETY: 3 blocks; ids 3, table vocab·hidden, out 3·hidden; hidden % 8 == 0.
    unsafe { k::embed_bf16::launch(&gpu, &kern, cfg(3, 0), &dids, &dtab, &mut de, hidden as u32, vocab as u32).unwrap() };
    let e = gpu.download(&de).unwrap();
    assert_eq!((&e[..hidden], &e[hidden..2 * hidden], &e[2 * hidden..]), (&table[2 * hidden..3 * hidden], &table[..hidden], &[0u16; 16][..]));
}

/// The all-reduce fused with the residual add and RMSNorm (`AllReduce::all_reduce_add_rmsnorm`, what
/// the runner uses between sublayers when split over ranks) against the pair it replaces — the
/// one-shot all-reduce, then this crate's `add_rmsnorm` on every rank — bit for bit: ranks sharing
/// this GPU (2 and 3), one row, rows off the 8-chunk stride, and more rows than blocks (70 > 64: a
/// block takes several), three calls in a row each (the staging halves and epochs alternate with
/// the one-shot's). The partial sums are left as they were; every output fully written.
#[test]
fn the_fused_all_reduce_norm_equals_one_shot_then_add_rmsnorm() {
    use kernel_lab::comm::{Algo, AllReduce, AllReduceOptions, Group, ResidualNorm};
    let Some(gpu) = gpu_or_skip("the_fused_all_reduce_norm_equals_one_shot_then_add_rmsnorm") else { return };
    let mut rng = verify::rng(verify::fresh_seed());
    for world in [2usize, 3] {
        let ar = AllReduce::new(Group::same_gpu(&gpu, world).unwrap(), AllReduceOptions { use_nccl: false, ..Default::default() }).unwrap();
        let g = ar.group();
        let kerns: Vec<_> = g.ranks().iter().map(|r| k::add_rmsnorm_bf16::load(r, ptx_for(r).0, ptx_for(r).1).unwrap()).collect();
        for (rows, hidden) in [(1usize, 4096usize), (7, 1000), (70, 2048)] {
            let n = rows * hidden;
            let (x, w) = (random(&mut rng, n, 2.0), random(&mut rng, hidden, 1.5));
            let mut xs: [Vec<Vec<u16>>; 2] = Default::default();
            let mut ys: [Vec<Vec<u16>>; 2] = Default::default();
            for call in 0..3 {
                let parts: Vec<Vec<f32>> = (0..world).map(|_| random(&mut rng, n, 1.0)).collect();
                for (fused, (xo, yo)) in xs.iter_mut().zip(ys.iter_mut()).enumerate() {
                    let mut d: Vec<_> = g.ranks().iter().zip(&parts).map(|(r, p)| r.upload(&bits(p)).unwrap()).collect();
                    let mut dx: Vec<_> = g.ranks().iter().map(|r| r.upload(&bits(&x)).unwrap()).collect();
                    let dw: Vec<_> = g.ranks().iter().map(|r| r.upload(&bits(&w)).unwrap()).collect();
                    let mut dy: Vec<_> = g.ranks().iter().map(|r| r.zeros::<u16>(n).unwrap()).collect();
                    for (r, y) in g.ranks().iter().zip(dy.iter_mut()) {
                        r.poison(y).unwrap();
                    }
                    if fused == 1 {
                        // SAFETY (the views): the buffers hold bf16 bits as u16 (2 bytes, every pattern valid).
                        let mut v: Vec<_> = d.iter().zip(dx.iter_mut()).zip(&dw).zip(dy.iter_mut()).map(|(((p, xx), ww), yy)| unsafe { ResidualNorm {
                            partial: p.transmute::<bf16>(n).unwrap(), residual: xx.transmute_mut::<bf16>(n).unwrap(),
                            weight: ww.transmute::<bf16>(hidden).unwrap(), out: yy.transmute_mut::<bf16>(n).unwrap(),
                        } }).collect();
                        ar.all_reduce_add_rmsnorm(&mut v, hidden, 1e-5).unwrap();
                    } else {
                        // SAFETY: as above.
                        let mut v: Vec<_> = d.iter_mut().map(|p| unsafe { p.transmute_mut::<bf16>(n) }.unwrap()).collect();
                        ar.all_reduce_in_place_with(Algo::OneShot, &mut v.iter_mut().collect::<Vec<_>>()).unwrap();
                        drop(v);
                        for (r, rank) in g.ranks().iter().enumerate() {
                            // SAFETY: rows blocks of 256 threads, 32 bytes of shared memory; x, delta, y hold
                            // rows·hidden, w hidden; hidden a multiple of 8 up to 16384; distinct fresh buffers.
                            unsafe { k::add_rmsnorm_bf16::launch(rank, &kerns[r], cfg(rows as u32, 32), &mut dx[r], &d[r], &dw[r], &mut dy[r], hidden as u32, 1e-5, 1).unwrap() };
                        }
                    }
                    ar.check().unwrap();
                    for (r, rank) in g.ranks().iter().enumerate() {
                        if fused == 1 {
                            assert_eq!(rank.download(&d[r]).unwrap(), bits(&parts[r]), "world {world} rows {rows}: rank {r}'s partial sums were changed");
                        }
                        let yv = rank.download(&dy[r]).unwrap();
                        assert!(!yv.contains(&0xFFFF), "world {world} rows {rows} fused {fused}: rank {r}'s output not fully written");
                        xo.push(rank.download(&dx[r]).unwrap());
                        yo.push(yv);
                    }
                }
                let at = xs[0].len() - world;
                for r in 0..world {
                    assert!(xs[1][at + r] == xs[0][at + r], "world {world} rows {rows} hidden {hidden} call {call}: rank {r}'s residual differs from the unfused pair's");
                    assert!(ys[1][at + r] == ys[0][at + r], "world {world} rows {rows} hidden {hidden} call {call}: rank {r}'s normed rows differ from the unfused pair's");
                    assert!(ys[1][at + r] == ys[1][at], "world {world} rows {rows}: rank {r}'s output differs from rank 0's");
                }
            }
        }
    }
}
