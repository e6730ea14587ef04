//! GPU test of prefill in chunks and of sequences appended to the cache (`Model::extend`): a prompt
//! prefilled in chunks, continued after a cached part, or joining a batch whose other slots hold other
//! sequences gives the logits of the same prompt prefilled whole, up to the rounding of GEMMs of other
//! row counts; bad requests are refused naming what is wrong. Twenty decode steps after the whole and the
//! chunked prefill (their first eager, the next captured as a graph, the rest replayed; each sequence
//! crossing a page) give the same logits, and the paged cache's the contiguous one's. Requests served by
//! continuous batching (`serve`: admissions, sequences moved between slots) get replies whose every token
//! is the model's choice for the reply so far, as a prefill of the request alone says; on the paged cache
//! also when the pool runs short and a sequence is preempted and recomputed. On a contiguous
//! cache and on a paged one (16-token pages, a pool of 20 shared by 3 slots; its running out refused,
//! its pages given back). A small random-weight Llama (2 layers, 4/2 heads of 64) on random token ids,
//! fresh each run. Off Hopper (or with `KERNEL_LAB_WITHHOLD=sm_90a`) the prefill attention is a33 on
//! `mma.sync`. Without a GPU the test says it was skipped and passes.
use kernel_lab::{
    Gpu,
    runtime::{gpu::gpu_or_skip, verify},
};
use kernel_lab_llm::{
    checkpoint::Checkpoint,
    model::{DecodeAhead, Model, Paging, WeightFormat},
    sample::{Rng, Sampling},
    serve::{self, Admission, Batching, ModelEngine, Request, WallClock},
};
use rand::Rng as _;

const CONFIG: &str = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512, "rms_norm_eps": 1e-5, "max_position_embeddings": 512,
    "torch_dtype": "bfloat16"}"#;

/// Relative L2 distance of `a` from the reference `w`.
fn rel_l2(a: &[f32], w: &[f32]) -> f64 {
    assert_eq!(a.len(), w.len());
    let num: f64 = a.iter().zip(w).map(|(&x, &y)| (x as f64 - y as f64).powi(2)).sum();
    let den: f64 = w.iter().map(|&y| (y as f64).powi(2)).sum();
    (num / den.max(1e-30)).sqrt()
}

/// Rows `[from, to)` of `[rows][vocab]` logits.
fn rows(l: &[f32], vocab: usize, from: usize, to: usize) -> &[f32] {
    &l[from * vocab..to * vocab]
}

/// Whether `token` is the reference row's best or within `eps` of it (a near-tie the rounding may flip).
fn agrees(row: &[f32], token: u32, eps: f32) -> bool {
    let best = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    row.get(token as usize).is_some_and(|&x| x >= best - eps)
}

/// Chunked and appended logits against the whole prompt's: within `TOL`, and the tokens the same but at
/// near-ties. A prompt part run without its cached prefix is far further off (the test can tell).
const TOL: f64 = 2e-2;

/// A checkpoint directory holding [`CONFIG`] (`llm-TAG-PID` under the temporary directory; the caller removes
/// it) and `gpu` on a stream of its own: the default stream cannot be captured, and decode steps should run as
/// graphs.
fn setup(tag: &str, gpu: &Gpu) -> (std::path::PathBuf, Gpu) {
    let dir = std::env::temp_dir().join(format!("llm-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), CONFIG).unwrap();
    (dir, Gpu::with_stream(gpu.ctx.new_stream().unwrap()).unwrap())
}

#[test]
fn chunks_continuations_and_joins_give_the_whole_prompts_logits() {
    let what = "chunks_continuations_and_joins_give_the_whole_prompts_logits";
    let Some(gpu) = gpu_or_skip(what) else { return };
    let seed = verify::fresh_seed();
    let (dir, gpu) = setup("chunked", &gpu);
    let mut contiguous = None;
    for paging in [None, Some(Paging { page_size: 16, pages: 20 })] {
        let ck = Checkpoint::synthetic(&dir, seed).unwrap();
        let m = match paging {
            None => Model::<half::bf16>::from_checkpoint(&gpu, None, ck, 3, 256, WeightFormat::AsStored),
            Some(p) => Model::<half::bf16>::from_checkpoint_paged(&gpu, None, ck, 3, 256, p, WeightFormat::AsStored),
        };
        let decoded = exercise(m.unwrap(), seed, paging.is_some(), contiguous.as_deref());
        contiguous.get_or_insert(decoded);
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// Twenty decode steps of both sequences on `feed`'s tokens: each step's logits (`[2][vocab]`).
fn decode_feed(m: &mut Model<half::bf16>, feed: &[[u32; 2]], rng: &mut Rng) -> Vec<Vec<f32>> {
    feed.iter().map(|f| {
        m.decode(f, Sampling::Greedy, rng).unwrap();
        m.decode_logits().unwrap()
    }).collect()
}

/// The worst relative L2 distance of decode logits `a` from `w`, step by step.
fn worst_step(a: &[Vec<f32>], w: &[Vec<f32>]) -> f64 {
    a.iter().zip(w).map(|(x, y)| rel_l2(x, y)).fold(0.0, f64::max)
}

/// The test's steps on one model (`paged`: its cache is the 20-page pool); returns the decode logits after
/// the whole prompts, which the paged run compares with the contiguous run's (`contiguous`).
fn exercise(mut m: Model<half::bf16>, seed: u64, paged: bool, contiguous: Option<&[Vec<f32>]>) -> Vec<Vec<f32>> {
    let mut r = verify::rng(seed);
    let vocab = m.config.vocab;
    let seed_paged = format!("seed {seed}, paged {paged}");
    let seed = &seed_paged;
    let mut rng = Rng::new(1);
    let (p0, p1): (Vec<u32>, Vec<u32>) = ((0..70).map(|_| r.random_range(0..vocab as u32)).collect(), (0..131).map(|_| r.random_range(0..vocab as u32)).collect());
    let feed: Vec<[u32; 2]> = (0..20).map(|_| [r.random_range(0..vocab as u32), r.random_range(0..vocab as u32)]).collect();
    let g = Sampling::Greedy;

    // The reference: both prompts whole in one step, then 20 decode steps (positions 70..90 and 131..151:
    // each sequence crosses a 16-token page).
    let (na, la) = m.prefill(&[&p0, &p1], g, &mut rng, true).unwrap();
    let reference = decode_feed(&mut m, &feed, &mut rng);
    assert_eq!(m.lens()[..2], [90, 151]);
    if let Some(c) = contiguous {
        let e = worst_step(&reference, c);
        assert!(e < TOL, "{seed}: the paged cache's decode logits {e:.3e} from the contiguous cache's");
        // The graph replayed on the device (positions advanced by the argmax), pages taken first.
        assert!(m.replay_decode(2, 4).unwrap().is_some(), "{seed}: no graph of batch 2 was captured");
        assert_eq!(m.lens()[..2], [94, 155]);
        assert_eq!(m.decode_logits().unwrap().len(), 2 * vocab);
    }
    let la = la.unwrap();
    assert_eq!(la.len(), (70 + 131) * vocab);
    let (a0, a1) = (rows(&la, vocab, 0, 70), rows(&la, vocab, 70, 201));
    let last = |l: &[f32], i: usize| -> Vec<f32> { l[(i - 1) * vocab..i * vocab].to_vec() };
    let eps = |row: &[f32]| 4e-2 * row.iter().fold(0f32, |a, &x| a.max(x.abs()));
    let mut report = vec![];

    // The same prompts in chunks of 24 tokens (a chunk holds p0's tail and p1's head; p1 spans six).
    m.set_prefill_chunk(24);
    let (nb, lb) = m.prefill(&[&p0, &p1], g, &mut rng, true).unwrap();
    let e = rel_l2(&lb.unwrap(), &la);
    report.push(("chunks of 24", e));
    assert!(e < TOL, "{seed}: chunked prefill's logits {e:.3e} from the whole prompts'");
    for (i, (&t, row)) in nb.iter().zip([last(&la, 70), last(&la, 201)]).enumerate() {
        assert!(agrees(&row, t, eps(&row)), "{seed}: chunked prefill's next token of sequence {i} ({t}) is not the whole prompt's best");
    }
    assert_eq!(m.lens()[..2], [70, 131]);
    // Decode steps after it read the chunks' cache.
    let e = worst_step(&decode_feed(&mut m, &feed, &mut rng), &reference);
    report.push(("20 decode steps after the chunks", e));
    assert!(e < TOL, "{seed}: decode logits after the chunked prefill {e:.3e} from the whole prompts'");

    // Continuations: the prompts' heads first (whole), then their tails appended after the cached rows.
    m.set_prefill_chunk(0);
    m.prefill(&[&p0[..30], &p1[..100]], g, &mut rng, false).unwrap();
    let (nc, lc) = m.extend(&[(0, &p0[30..]), (1, &p1[100..])], g, &mut rng, true).unwrap();
    let lc = lc.unwrap();
    let want: Vec<f32> = rows(a0, vocab, 30, 70).iter().chain(rows(a1, vocab, 100, 131)).copied().collect();
    let e = rel_l2(&lc, &want);
    report.push(("continued after 30 / 100 cached", e));
    assert!(e < TOL, "{seed}: continuation logits {e:.3e} from the whole prompts'");
    assert_eq!(nc.len(), 2);
    for (i, (&t, &w)) in nc.iter().zip(&na).enumerate() {
        let row = if i == 0 { last(&la, 70) } else { last(&la, 201) };
        assert!(t == w || agrees(&row, t, eps(&row)), "{seed}: continued sequence {i}'s next token {t}, whole {w}");
    }
    assert_eq!(m.lens()[..3], [70, 131, 0]);

    // The guard: p0's tail prefilled as a prompt of its own (no cached prefix) is far from its rows in
    // the whole prompt, so the comparisons above can fail.
    let (_, lg) = m.prefill(&[&p0[30..]], g, &mut rng, true).unwrap();
    let guard = rel_l2(&lg.unwrap(), rows(a0, vocab, 30, 70));
    report.push(("guard: tail without its prefix", guard));

    // Joining: p1 alone in slot 0, then p0 appended into the empty slot 1 in chunks of 16, and a third
    // sequence (p0's head) into slot 2 beside it; slot 0 untouched.
    m.prefill(&[&p1], g, &mut rng, false).unwrap();
    m.set_prefill_chunk(16);
    let (nd, ld) = m.extend(&[(1, &p0), (2, &p0[..9])], g, &mut rng, true).unwrap();
    let ld = ld.unwrap();
    let e = rel_l2(rows(&ld, vocab, 0, 70), a0).max(rel_l2(rows(&ld, vocab, 70, 79), rows(a0, vocab, 0, 9)));
    report.push(("joined into slots 1, 2 (chunks of 16)", e));
    assert!(e < TOL, "{seed}: joined sequences' logits {e:.3e} from the whole prompts'");
    assert!(agrees(&last(&la, 70), nd[0], eps(&last(&la, 70))), "{seed}: the joined sequence's next token");
    assert_eq!(m.lens()[..3], [131, 70, 9]);

    // Released and refilled a piece at a time: p0 as 10 tokens, then 60 more in chunks of 7.
    m.release(1).unwrap();
    m.set_prefill_chunk(7);
    m.extend(&[(1, &p0[..10])], g, &mut rng, false).unwrap();
    let (_, le) = m.extend(&[(1, &p0[10..])], g, &mut rng, true).unwrap();
    let e = rel_l2(&le.unwrap(), rows(a0, vocab, 10, 70));
    report.push(("released, refilled 10 + 60 (chunks of 7)", e));
    assert!(e < TOL, "{seed}: refilled slot's logits {e:.3e} from the whole prompt's");
    assert_eq!(m.lens()[..3], [131, 70, 9]);
    // Decode over the three slots after all that.
    let d = m.decode(&[1, 2, 3], g, &mut rng).unwrap();
    assert_eq!(d.len(), 3);
    assert_eq!(m.lens()[..3], [132, 71, 10]);
    // A mixed step (`Model::mixed`, whole: no chunk): slots 0 and 1 decode one token each while p0's first
    // 20 tokens start in slot 2; the newcomer's next token is the whole prompt's choice there (or a near-tie),
    // and the decoding slots go on as after a decode step. (Their tokens are checked against solo prefills by
    // the serving below.)
    m.release(2).unwrap();
    m.set_prefill_chunk(0);
    let mx = m.mixed(&[4, 5], &[(2, &p0[..20])], g, &mut rng).unwrap();
    assert_eq!((mx.len(), &m.lens()[..3]), (3, &[133, 72, 20][..]), "{seed}");
    assert!(agrees(&last(a0, 20), mx[2], eps(&last(a0, 20))), "{seed}: the mixed step's newcomer's next token");
    let d = m.decode(&mx, g, &mut rng).unwrap();
    assert_eq!((d.len(), &m.lens()[..3]), (3, &[134, 73, 21][..]));
    let e = m.mixed(&[1], &[(0, &p0[..2])], g, &mut rng).unwrap_err().to_string();
    assert!(e.contains("slot 0 is not an empty slot after the 1 decoding ones"), "{e}");
    let e = m.mixed(&[], &[(2, &p0[..2])], g, &mut rng).unwrap_err().to_string();
    assert!(e.contains("at least one of each"), "{e}");
    assert_eq!(m.lens()[..3], [134, 73, 21], "a refused mixed step changed nothing");
    // In chunks of 7: slot 0 decodes while p0's first 4 tokens and p1's first 9 start in slots 1 and 2 — the
    // mixed pass takes the decode row, the 4 and 2 of the 9, `extend` the other 7 (two new sequences, one split).
    m.release(1).unwrap();
    m.release(2).unwrap();
    m.set_prefill_chunk(7);
    let mx = m.mixed(&[6], &[(1, &p0[..4]), (2, &p1[..9])], g, &mut rng).unwrap();
    assert_eq!((mx.len(), &m.lens()[..3]), (3, &[135, 4, 9][..]), "{seed}");
    assert!(agrees(&last(a0, 4), mx[1], eps(&last(a0, 4))), "{seed}: the chunked mixed step's first newcomer's next token");
    assert!(agrees(&last(a1, 9), mx[2], eps(&last(a1, 9))), "{seed}: the chunked mixed step's split newcomer's next token");
    m.release(1).unwrap();
    m.extend(&[(1, &p1[..74])], g, &mut rng, false).unwrap();
    assert_eq!(m.lens()[..3], [135, 74, 9]);

    let worst = report.iter().filter(|(w, _)| !w.starts_with("guard")).map(|x| x.1).fold(0.0, f64::max);
    eprintln!("{seed}: rel L2 from the whole prompts' logits: {report:?}");
    assert!(guard > 4.0 * worst && guard > 4.0 * 1e-3, "{seed}: without its prefix a tail's logits are only {guard:.3e} off (the others {worst:.3e}): the test cannot tell");

    // Refused before anything runs, naming what is wrong.
    let bad = |r: kernel_lab::Result<(Vec<u32>, Option<Vec<f32>>)>, want: &str| {
        let e = r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains(want), "expected an error containing `{want}`, got `{e}`");
    };
    bad(m.extend(&[(3, &p0[..2])], g, &mut rng, false), "slot 3 is outside the cache's 3 slots");
    bad(m.extend(&[(0, &p0[..2]), (0, &p0[..2])], g, &mut rng, false), "slot 0 is listed twice");
    bad(m.extend(&[(0, &p1)], g, &mut rng, false), "slot 0 holds 135 tokens and 131 are appended");
    bad(m.extend(&[(1, &[])], g, &mut rng, false), "1..=182 new tokens fit");
    bad(m.extend(&[(1, &[vocab as u32])], g, &mut rng, false), "outside the vocabulary");
    assert!(m.release(3).is_err());
    assert_eq!(m.lens()[..3], [135, 74, 9], "a refused request changed nothing");
    bad(m.truncate(2, 10).map(|_| (vec![], None)), "slot 2 holds 9 tokens: it cannot be cut to 10");
    if paged {
        // 9 + 5 + 1 of the 20 pages held: slot 2's 100 more tokens need 6 more.
        assert_eq!(m.pages(), Some((5, 20, 16)));
        bad(m.extend(&[(2, &p1[..100])], g, &mut rng, false), "6 more pages of 16 tokens needed, 5 of 20 free");
        assert_eq!((m.lens()[2], m.pages()), (9, Some((5, 20, 16))), "a refused request took no page");
        m.release(0).unwrap();
        assert_eq!(m.pages(), Some((14, 20, 16)));
        let (n, _) = m.extend(&[(2, &p0[..40])], g, &mut rng, false).unwrap();
        assert_eq!((n.len(), m.lens()[2], m.pages()), (1, 49, Some((11, 20, 16))));
    }

    // Continuous batching: 7 requests through the 3 slots; every reply token checked against a prefill of
    // the request alone with the reply so far (the model's choice there, or a near-tie).
    let requests: Vec<Request> = (0..7).map(|i| Request::new((0..5 + 9 * i).map(|_| r.random_range(0..vocab as u32)).collect(), 6 + i % 4)).collect();
    // Mixed (the default): 3 admitted, then one beside the two running as each leaves, in the pass that advances
    // them (4 mixed steps), 16 decode steps; separate: 3 admitted, then one as each leaves (moves 2→0, 2→1,
    // 2→0, 2→0, 2→1, 1→0), 20 decode steps. Deterministic without stop tokens (the CPU test checks both).
    let mut runs = vec![];
    // Mixed whole (`Step::Mixed`: decode attention for the running rows, prefill for the prompts) and in
    // chunks of 7 (the running rows' cached keys gathered with the prompts').
    for (batching, chunk, want) in [(Batching::Mixed, 0, (5, 4, 16, 3)), (Batching::Separate, 0, (5, 0, 20, 3)), (Batching::Mixed, 7, (5, 4, 16, 3))] {
        m.set_prefill_chunk(chunk);
        let (served, sum) = serve::serve_with(&mut ModelEngine { model: &mut m, sampling: g, rng: Rng::new(2) }, &requests, &[], Admission::Reserve, batching,
                                              &mut WallClock::start(), &mut |_, _| {}).unwrap();
        assert_eq!((sum.admissions, sum.mixed_steps, sum.decode_steps, sum.widest), want, "{seed}: {batching:?} {sum:?}");
        assert_eq!(sum.generated, requests.iter().map(|q| q.max_new).sum::<usize>(), "{seed}: {batching:?}");
        assert!(m.lens().iter().all(|&l| l == 0), "{seed}: every slot empty after serving");
        if paged {
            assert_eq!(m.pages(), Some((20, 20, 16)), "{seed}: every page back in the pool");
        }
        runs.push((requests.clone(), served));
    }
    if paged {
        // Preemption: three requests of 80 prompt tokens and 60 reply tokens (9 pages each at their longest)
        // admitted together into the 20 pages; at 97 cached tokens each would need a 7th page, so the newest
        // gives its 6 back after 16 steps and comes back, its 17 tokens recomputed with its prompt, when one
        // of the others ends: 16 + 43 + 42 decode steps (the CPU test checks the same schedule on its engine).
        let requests: Vec<Request> = (0..3).map(|_| Request::new((0..80).map(|_| r.random_range(0..vocab as u32)).collect(), 60)).collect();
        let (served, sum) = serve::serve_with(&mut ModelEngine { model: &mut m, sampling: g, rng: Rng::new(3) }, &requests, &[], Admission::Preempt, Batching::Mixed,
                                              &mut WallClock::start(), &mut |_, _| {}).unwrap();
        assert_eq!((sum.admissions, sum.preemptions, sum.decode_steps, sum.widest), (2, 1, 101, 3), "{seed}: {sum:?}");
        assert_eq!(m.pages(), Some((20, 20, 16)), "{seed}: every page back in the pool after preemption");
        runs.push((requests, served));
    }
    for (i, (q, s)) in runs.iter().flat_map(|(q, s)| q.iter().zip(s)).enumerate() {
        assert_eq!(s.tokens.len(), q.max_new, "{seed}: request {i} ran to its budget");
        let seq: Vec<u32> = q.prompt.iter().chain(&s.tokens[..q.max_new - 1]).copied().collect();
        let (_, l) = m.prefill(&[&seq], g, &mut rng, true).unwrap();
        let l = l.unwrap();
        for (j, &t) in s.tokens.iter().enumerate() {
            let row = &l[(q.prompt.len() - 1 + j) * vocab..][..vocab];
            assert!(agrees(row, t, eps(row)), "{seed}: served request {i}'s token {j} ({t}) is not the model's choice after its prompt and reply so far");
        }
    }
    reference
}

/// `Model::decode_steps` (greedy on one GPU: each step launched before the host reads the one before, the tokens
/// read from the argmax's ring in mapped host memory) gives
/// the tokens of `Model::decode` in a loop, step for step; a stop takes back the step run ahead of it, so
/// that the plain steps after it, and a second `decode_steps`, go on exactly as the loop did; steps beyond
/// the cache are refused before any runs. Contiguous and paged caches (a sequence crossing pages while
/// steps run ahead), 3 sequences of 37, 70 and 131 tokens.
#[test]
fn decode_steps_run_ahead_gives_the_loops_tokens_and_a_stop_takes_back_the_step_ahead() {
    let what = "decode_steps_run_ahead_gives_the_loops_tokens_and_a_stop_takes_back_the_step_ahead";
    let Some(gpu) = gpu_or_skip(what) else { return };
    let seed = verify::fresh_seed();
    // (Session 109's first run of this test was on the default stream: every step eager, no graph to replay.)
    let (dir, gpu) = setup("steps", &gpu);
    let g = Sampling::Greedy;
    for paging in [None, Some(Paging { page_size: 16, pages: 40 })] {
        let ck = Checkpoint::synthetic(&dir, seed).unwrap();
        let mut m = match paging {
            None => Model::<half::bf16>::from_checkpoint(&gpu, None, ck, 3, 256, WeightFormat::AsStored),
            Some(p) => Model::<half::bf16>::from_checkpoint_paged(&gpu, None, ck, 3, 256, p, WeightFormat::AsStored),
        }.unwrap();
        // The loop below without the ring (the argmax told ring length 0), then the steps with it.
        m.set_decode_ahead(DecodeAhead::Off).unwrap();
        let tag = format!("seed {seed}, paged {}", paging.is_some());
        let mut r = verify::rng(seed);
        let vocab = m.config.vocab as u32;
        let prompts: Vec<Vec<u32>> = [37, 70, 131].iter().map(|&l| (0..l).map(|_| r.random_range(0..vocab)).collect()).collect();
        let ps: Vec<&[u32]> = prompts.iter().map(Vec::as_slice).collect();
        let mut rng = Rng::new(1);
        // The loop: 14 plain steps (the first eager, the next captured, the rest replayed).
        let (first, _) = m.prefill(&ps, g, &mut rng, false).unwrap();
        let mut cur = first.clone();
        let mut want = vec![];
        for _ in 0..14 {
            cur = m.decode(&cur, g, &mut rng).unwrap();
            want.push(cur.clone());
        }
        assert_eq!(m.lens()[..3], [51, 84, 145], "{tag}");
        // The run-ahead form (`Model::set_decode_ahead` drops the graphs: the first step eager again).
        {
            let ahead = DecodeAhead::Ring;
            m.set_decode_ahead(ahead).unwrap();
            let tag = format!("{tag}, {ahead:?}");
            // All 14 run ahead.
            let (again, _) = m.prefill(&ps, g, &mut rng, false).unwrap();
            assert_eq!(again, first, "{tag}: the same prompts' first tokens");
            let got = m.decode_steps(&first, 14, g, &mut rng, |_| false).unwrap();
            assert_eq!(got, want, "{tag}: decode_steps' tokens against the loop's");
            assert_eq!(m.lens()[..3], [51, 84, 145], "{tag}");
            // A stop after the fifth step: five steps' tokens kept, the sixth (run ahead) taken back; then one
            // plain step and a second decode_steps go on where the loop did.
            m.prefill(&ps, g, &mut rng, false).unwrap();
            let mut calls = 0;
            let got = m.decode_steps(&first, 14, g, &mut rng, |ids| {
                calls += 1;
                assert_eq!(ids.len(), 3);
                calls == 5
            }).unwrap();
            assert_eq!((calls, got.as_slice()), (5, &want[..5]), "{tag}: the steps up to the stop");
            assert_eq!(m.lens()[..3], [42, 75, 136], "{tag}: the step run ahead of the stop was taken back");
            let next = m.decode(&want[4], g, &mut rng).unwrap();
            assert_eq!(next, want[5], "{tag}: the plain step after a stop");
            let rest = m.decode_steps(&next, 8, g, &mut rng, |_| false).unwrap();
            assert_eq!(rest, want[6..], "{tag}: decode_steps after a stop and a plain step");
            // The replay after a run ahead ended without a stop goes on from the device's inputs.
            assert!(m.replay_decode(3, 2).unwrap().is_some(), "{tag}: no graph of batch 3 to replay");
            assert_eq!(m.lens()[..3], [53, 86, 147], "{tag}");
            // Steps the cache has no room for are refused before any runs.
            let e = m.decode_steps(&want[0], 256, g, &mut rng, |_| false).unwrap_err().to_string();
            assert!(e.contains("256 decode steps") && e.contains("sequence 0 holds 53"), "{tag}: {e}");
            assert_eq!(m.lens()[..3], [53, 86, 147], "{tag}: a refused run changed nothing");
        }
    }
    let _ = std::fs::remove_dir_all(dir);
}
