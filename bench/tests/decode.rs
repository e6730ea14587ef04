//! GPU tests of decode attention (issue 49, step ad1): grouped heads, head dims 64/96/128/256, one or a
//! few new tokens, contiguous and paged caches (both page orders, pages shuffled, unused pages holding
//! noise), ragged lengths including 0 and 1, one split and many, against the f64 reference; the KV
//! append then decode against the reference on the appended host cache; bad input refused before any
//! launch. Without a GPU each test says it was skipped and passes.
mod common;

use cudarc::driver::CudaSlice;
use common::{Half, rounded};
use half::{bf16, f16};
use kernel_lab_bench::{
    attention::decode::{BlockTable, CacheReady, DecodeDesc, DecodePlan, DecodeStep, KvLayout, check_block_table, reference_f64},
    families::attention::{LSE_TOL, o_tol},
    runtime::{gpu::{Gpu, gpu_or_skip}, verify},
    steps::gemm::Elem,
};

/// A shuffled page table: sequence b's pages are distinct random pages of the cache (the rest of the
/// cache holds noise that must never be read); entries past a sequence's pages are −1.
fn table_for(rng: &mut impl rand::Rng, lens: &[i32], page_size: usize, num_pages: usize, max_pages: usize) -> Vec<i32> {
    use rand::seq::SliceRandom;
    let mut pages: Vec<i32> = (0..num_pages as i32).collect();
    pages.shuffle(rng);
    let mut it = pages.into_iter();
    let mut t = vec![-1; lens.len() * max_pages];
    for (b, &l) in lens.iter().enumerate() {
        for p in 0..(l as usize).div_ceil(page_size) {
            t[b * max_pages + p] = it.next().expect("enough pages");
        }
    }
    t
}

struct Case {
    desc: DecodeDesc,
    lens: Vec<i32>,
}

/// Runs `case` with each forced split (and the planned one), output poisoned, against the reference.
fn check<T: Half>(gpu: &Gpu, case: &Case, elem: Elem, seed: u64) {
    let d = case.desc;
    let mut rng = verify::rng(seed);
    let (q, fq) = rounded::<T>(&mut rng, d.q_elems());
    let (k, fk) = rounded::<T>(&mut rng, d.cache_elems());
    let (v, fv) = rounded::<T>(&mut rng, d.cache_elems());
    let max_len = *case.lens.iter().max().unwrap() as usize;
    let paged = match d.layout {
        KvLayout::Contiguous { .. } => None,
        KvLayout::PagedHeadsMajor { page_size, num_pages } | KvLayout::PagedTokensMajor { page_size, num_pages } => {
            let max_pages = max_len.div_ceil(page_size).max(1);
            let t = table_for(&mut rng, &case.lens, page_size, num_pages, max_pages);
            check_block_table(&d, &t, max_pages, &case.lens).unwrap();
            Some((t, max_pages))
        }
    };
    let (wo, wl) = reference_f64(&d, &fq, &fk, &fv, paged.as_ref().map(|(t, m)| (t.as_slice(), *m)), &case.lens);
    let (dq, dk, dv) = (gpu.upload(&q).unwrap(), gpu.upload(&k).unwrap(), gpu.upload(&v).unwrap());
    let lens = gpu.upload(&case.lens).unwrap();
    let table: Option<CudaSlice<i32>> = paged.as_ref().map(|(t, _)| gpu.upload(t).unwrap());
    let bt = table.as_ref().map(|t| BlockTable { table: t, max_pages: paged.as_ref().unwrap().1 });
    let mut plan = DecodePlan::<T>::new(gpu, d).unwrap();
    let steps = [DecodeStep::FusedCombine, DecodeStep::SeparateCombine];
    for (ready, (step, forced)) in [CacheReady::AfterPrevious, CacheReady::AtLaunch]
        .into_iter()
        .flat_map(|r| steps.into_iter().flat_map(|st| [None, Some(1), Some(3), Some(1000)].map(|f| (st, f))).map(move |x| (r, x)))
    {
        plan.use_step(step);
        plan.force_splits(forced);
        plan.set_cache_ready(ready);
        let mut o = gpu.zeros::<T>(d.q_elems()).unwrap();
        let mut lse = gpu.zeros::<f32>(d.rows()).unwrap();
        gpu.poison(&mut o).unwrap();
        gpu.poison(&mut lse).unwrap();
        let split = plan.run(&dq, &dk, &dv, bt, &lens, max_len, &mut o, &mut lse).unwrap();
        gpu.sync_after("decode attention").unwrap();
        let go: Vec<f64> = gpu.download(&o).unwrap().into_iter().map(|x| x.to() as f64).collect();
        let gl: Vec<f64> = gpu.download(&lse).unwrap().into_iter().map(f64::from).collect();
        let what = format!("{d:?} lens {:?} {elem:?} {step:?} {ready:?} forced {forced:?} → {split:?}", case.lens);
        assert!(go.iter().all(|x| x.is_finite()), "{what}: O not finite or not fully written");
        // Rows without keys: LSE −∞ exactly, O 0; the rest finite and within tolerance.
        for (i, (g, w)) in gl.iter().zip(&wl).enumerate() {
            assert!((*w == f64::NEG_INFINITY) == (*g == f64::NEG_INFINITY) && !g.is_nan(), "{what}: LSE row {i}: {g} vs {w}");
        }
        let keep: Vec<usize> = (0..wl.len()).filter(|&i| wl[i].is_finite()).collect();
        let (gl2, wl2): (Vec<f64>, Vec<f64>) = keep.iter().map(|&i| (gl[i], wl[i])).unzip();
        let (eo, el) = (verify::rel_l2(&go, &wo), if keep.is_empty() { 0.0 } else { verify::rel_l2(&gl2, &wl2) });
        assert!(eo <= o_tol(elem) && el <= LSE_TOL, "{what}: O rel L2 {eo:.2e}, LSE rel L2 {el:.2e}");
    }
    // An O one element into its buffer (2 bytes off, where ad2's merge stores 8 at a time): ad2's plan runs
    // ad1's combine for it, with the same results.
    plan.use_step(DecodeStep::FusedCombine);
    plan.force_splits(Some(3));
    plan.set_cache_ready(CacheReady::AfterPrevious);
    let mut big = gpu.zeros::<T>(d.q_elems() + 1).unwrap();
    let mut lse = gpu.zeros::<f32>(d.rows()).unwrap();
    gpu.poison(&mut big).unwrap();
    plan.run(&dq, &dk, &dv, bt, &lens, max_len, &mut big.slice_mut(1..), &mut lse).unwrap();
    gpu.sync_after("decode attention, O off 8 bytes").unwrap();
    let go: Vec<f64> = gpu.download(&big).unwrap()[1..].iter().map(|x| x.to() as f64).collect();
    assert!(go.iter().all(|x| x.is_finite()), "{d:?} {elem:?}: O off 8 bytes not finite or not fully written");
    let eo = verify::rel_l2(&go, &wo);
    assert!(eo <= o_tol(elem), "{d:?} {elem:?}: O off 8 bytes, rel L2 {eo:.2e}");
}

fn cases() -> Vec<Case> {
    let c = |batch, heads, kv_heads, head_dim, q_len, layout, lens: &[i32]| Case {
        desc: DecodeDesc { batch, heads, kv_heads, head_dim, q_len, scale: None, layout },
        lens: lens.to_vec(),
    };
    vec![
        c(3, 32, 8, 128, 1, KvLayout::Contiguous { max_len: 1000 }, &[1000, 1, 517]),
        c(2, 8, 8, 64, 1, KvLayout::PagedHeadsMajor { page_size: 16, num_pages: 40 }, &[0, 333]),
        c(2, 16, 8, 256, 2, KvLayout::PagedTokensMajor { page_size: 64, num_pages: 12 }, &[200, 129]),
        c(1, 12, 4, 96, 4, KvLayout::Contiguous { max_len: 301 }, &[300]),
        c(4, 28, 4, 128, 2, KvLayout::PagedHeadsMajor { page_size: 256, num_pages: 9 }, &[1, 255, 256, 700]),
        c(2, 4, 1, 64, 3, KvLayout::PagedTokensMajor { page_size: 32, num_pages: 70 }, &[2, 2049]),
        // The fused combine past 16 splits (forced 1000: one a 64-key unit): 32 at D = 128, 24 at D = 96,
        // 34 at D = 256 (beyond the 32 whose weights come by shuffles).
        c(1, 32, 8, 128, 1, KvLayout::Contiguous { max_len: 2048 }, &[2000]),
        c(1, 12, 4, 96, 1, KvLayout::Contiguous { max_len: 1536 }, &[1500]),
        c(1, 16, 8, 256, 2, KvLayout::PagedHeadsMajor { page_size: 64, num_pages: 40 }, &[2170]),
        // ad5's lanes all in use: one split of 2048 keys (forced 1) walks 32 tiles a warp; 2047 leaves the last
        // tile ragged.
        c(2, 8, 8, 64, 1, KvLayout::PagedTokensMajor { page_size: 16, num_pages: 260 }, &[2048, 2047]),
    ]
}

#[test]
fn decode_matches_the_f64_reference_on_every_layout() {
    let Some(gpu) = gpu_or_skip("decode_matches_the_f64_reference_on_every_layout") else { return };
    let seed = verify::fresh_seed();
    for (i, case) in cases().iter().enumerate() {
        check::<f16>(&gpu, case, Elem::F16, seed ^ i as u64);
        check::<bf16>(&gpu, case, Elem::Bf16, seed ^ (i as u64) << 8);
    }
}

#[test]
fn appended_rows_are_attended() {
    let Some(gpu) = gpu_or_skip("appended_rows_are_attended") else { return };
    let mut rng = verify::rng(verify::fresh_seed());
    for layout in [KvLayout::Contiguous { max_len: 100 }, KvLayout::PagedHeadsMajor { page_size: 16, num_pages: 20 }, KvLayout::PagedTokensMajor { page_size: 32, num_pages: 10 }] {
        let d = DecodeDesc { batch: 2, heads: 8, kv_heads: 2, head_dim: 128, q_len: 2, scale: None, layout };
        let lens = [37i32, 90];
        let (q, fq) = rounded::<f16>(&mut rng, d.q_elems());
        let (k, mut fk) = rounded::<f16>(&mut rng, d.cache_elems());
        let (v, mut fv) = rounded::<f16>(&mut rng, d.cache_elems());
        let new = d.batch * d.q_len * d.kv_heads * d.head_dim;
        let (kn, fkn) = rounded::<f16>(&mut rng, new);
        let (vn, fvn) = rounded::<f16>(&mut rng, new);
        let paged = match layout {
            KvLayout::Contiguous { .. } => None,
            KvLayout::PagedHeadsMajor { page_size, num_pages } | KvLayout::PagedTokensMajor { page_size, num_pages } => {
                let mp = 90usize.div_ceil(page_size);
                Some((table_for(&mut rng, &lens, page_size, num_pages, mp), mp))
            }
        };
        // The host cache with the new rows where the append must put them.
        for b in 0..2 {
            for t in 0..2 {
                let pos = lens[b] as usize - 2 + t;
                for h in 0..2 {
                    let at = match (layout, paged.as_ref()) {
                        (KvLayout::Contiguous { max_len }, _) => ((b * 2 + h) * max_len + pos) * 128,
                        (KvLayout::PagedHeadsMajor { page_size, .. }, Some((tb, mp))) => ((tb[b * mp + pos / page_size] as usize * 2 + h) * page_size + pos % page_size) * 128,
                        (KvLayout::PagedTokensMajor { page_size, .. }, Some((tb, mp))) => ((tb[b * mp + pos / page_size] as usize * page_size + pos % page_size) * 2 + h) * 128,
                        _ => unreachable!(),
                    };
                    let src = ((b * 2 + t) * 2 + h) * 128;
                    fk[at..at + 128].copy_from_slice(&fkn[src..src + 128]);
                    fv[at..at + 128].copy_from_slice(&fvn[src..src + 128]);
                }
            }
        }
        let (wo, _) = reference_f64(&d, &fq, &fk, &fv, paged.as_ref().map(|(t, m)| (t.as_slice(), *m)), &lens);
        let (dq, mut dk, mut dv) = (gpu.upload(&q).unwrap(), gpu.upload(&k).unwrap(), gpu.upload(&v).unwrap());
        let (dkn, dvn, dl) = (gpu.upload(&kn).unwrap(), gpu.upload(&vn).unwrap(), gpu.upload(&lens).unwrap());
        let table = paged.as_ref().map(|(t, _)| gpu.upload(t).unwrap());
        let bt = table.as_ref().map(|t| BlockTable { table: t, max_pages: paged.as_ref().unwrap().1 });
        let mut plan = DecodePlan::<f16>::new(&gpu, d).unwrap();
        // At launch first, while the new rows still hold the old random values: decode (launched with PDL
        // after the append, which releases it at its start) must read them only after the append's writes.
        // Then, on the appended cache, the default; both against the reference.
        for ready in [CacheReady::AtLaunch, CacheReady::AfterPrevious] {
            plan.set_cache_ready(ready);
            let mut o = gpu.zeros::<f16>(d.q_elems()).unwrap();
            let mut lse = gpu.zeros::<f32>(d.rows()).unwrap();
            gpu.poison(&mut o).unwrap();
            // Append and decode back to back on the stream (nothing between them).
            plan.append(&dkn, &dvn, &mut dk, &mut dv, bt, &dl).unwrap();
            plan.run(&dq, &dk, &dv, bt, &dl, 90, &mut o, &mut lse).unwrap();
            gpu.sync_after("append + decode").unwrap();
            let go: Vec<f64> = gpu.download(&o).unwrap().into_iter().map(|x| x.to_f64()).collect();
            let e = verify::rel_l2(&go, &wo);
            assert!(e <= o_tol(Elem::F16), "{layout:?} {ready:?}: append then decode: O rel L2 {e:.2e}");
        }
    }
}

#[test]
fn bad_decode_input_gives_clear_errors() {
    let Some(gpu) = gpu_or_skip("bad_decode_input_gives_clear_errors") else { return };
    let d = DecodeDesc::new(2, 8, 2, 64, 64);
    assert!(DecodePlan::<f32>::new(&gpu, d).err().unwrap().to_string().contains("f16 or bf16"));
    assert!(DecodePlan::<f16>::new(&gpu, DecodeDesc { kv_heads: 3, ..d }).err().unwrap().to_string().contains("does not divide"));
    let mut plan = DecodePlan::<f16>::new(&gpu, d).unwrap();
    let q = gpu.zeros::<f16>(d.q_elems()).unwrap();
    let kv = gpu.zeros::<f16>(d.cache_elems()).unwrap();
    let lens = gpu.upload(&[3i32, 4]).unwrap();
    let mut o = gpu.zeros::<f16>(d.q_elems() + 1).unwrap();
    let mut lse = gpu.zeros::<f32>(d.rows()).unwrap();
    let e = plan.run(&q, &kv, &kv, None, &lens, 64, &mut o, &mut lse).unwrap_err().to_string();
    assert!(e.contains("O holds 1025 elements, 1024 expected"), "{e}");
    let mut o = gpu.zeros::<f16>(d.q_elems()).unwrap();
    let t = gpu.upload(&[0i32, 1]).unwrap();
    let e = plan.run(&q, &kv, &kv, Some(BlockTable { table: &t, max_pages: 1 }), &lens, 64, &mut o, &mut lse).unwrap_err().to_string();
    assert!(e.contains("contiguous"), "{e}");
}
