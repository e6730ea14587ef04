//! `Model::decode_greedy` (each step's graph launched before the last step's tokens are read) against
//! `Model::decode` step by step on a small synthetic Llama: the same tokens, a stop part way (the step
//! launched ahead discarded) and a continuation that picks up exactly where the kept steps ended, the
//! lengths the host keeps, and more steps than the cache holds refused before anything runs. Without a
//! Hopper GPU the test says it was skipped and passes.
use kernel_lab::{Gpu, runtime::gpu::gpu_or_skip};
use kernel_lab_llm::{checkpoint::Checkpoint, model::Model, sample::{Rng, Sampling}};

const CONFIG: &str = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
    "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 512, "rms_norm_eps": 1e-5, "max_position_embeddings": 256,
    "torch_dtype": "bfloat16"}"#;

fn model(gpu: &Gpu, dir: &std::path::Path, max_len: usize) -> Model<half::bf16> {
    let ck = Checkpoint::synthetic(dir, 5).unwrap();
    Model::<half::bf16>::from_checkpoint(gpu, None, ck, 2, max_len, Default::default()).unwrap()
}

#[test]
fn greedy_steps_launched_ahead_equal_the_steps_one_by_one() {
    let Some(gpu) = gpu_or_skip("greedy_steps_launched_ahead_equal_the_steps_one_by_one") else { return };
    if !gpu.runs(kernel_lab::runtime::ptx::Target::Sm90a) {
        eprintln!("skipped greedy_steps_launched_ahead_equal_the_steps_one_by_one: the runner's decode needs sm_90a");
        return;
    }
    let gpu = Gpu::with_stream(gpu.ctx.new_stream().unwrap()).unwrap();
    let dir = std::env::temp_dir().join(format!("llm-decode-greedy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), CONFIG).unwrap();
    let mut rng = Rng::new(1);
    let prompts: [&[u32]; 2] = [&[3, 17, 99, 250, 7], &[11, 400, 2]];
    const STEPS: usize = 14;
    let max_len = 5 + STEPS + 1;

    // Step by step (the first step eager, the second captures the graph, the rest replay it).
    let mut a = model(&gpu, &dir, max_len);
    let (mut next, _) = a.prefill(&prompts, Sampling::Greedy, &mut rng, false).unwrap();
    let first = next.clone();
    let mut want = vec![];
    for _ in 0..STEPS {
        next = a.decode(&next, Sampling::Greedy, &mut rng).unwrap();
        want.push(next.clone());
    }
    assert!(want.iter().flatten().any(|&t| t != want[0][0]), "the tokens never change: a weak check ({want:?})");

    // All at once: the same tokens, and the same lengths.
    let mut b = model(&gpu, &dir, max_len);
    let (next, _) = b.prefill(&prompts, Sampling::Greedy, &mut rng, false).unwrap();
    assert_eq!(next, first);
    let mut seen = 0;
    let got = b.decode_greedy(&next, STEPS, |t| {
        assert_eq!(t, want[seen].as_slice(), "step {seen}'s tokens as `stop` sees them");
        seen += 1;
        false
    }).unwrap();
    assert_eq!(got, want);
    assert_eq!(seen, STEPS);
    assert_eq!(b.lens()[..2], a.lens()[..2]);

    // Stopped after step 6 (step 7 already launched ahead, then discarded), continued by decode_greedy
    // and by decode: the tokens go on as if nothing had been discarded.
    let mut c = model(&gpu, &dir, max_len);
    let (next, _) = c.prefill(&prompts, Sampling::Greedy, &mut rng, false).unwrap();
    let mut count = 0;
    let part = c.decode_greedy(&next, STEPS, |_| {
        count += 1;
        count == 6
    }).unwrap();
    assert_eq!(part, want[..6]);
    assert_eq!(c.lens()[0], 5 + 6);
    let more = c.decode_greedy(&part[5], 4, |_| false).unwrap();
    assert_eq!(more, want[6..10]);
    let again = c.decode(&more[3], Sampling::Greedy, &mut rng).unwrap();
    assert_eq!(again, want[10]);

    // More steps than the cache has room for: refused, nothing run.
    let lens = c.lens()[..2].to_vec();
    let err = c.decode_greedy(&again, STEPS, |_| false).unwrap_err().to_string();
    assert!(err.contains("decode steps") && err.contains("cache"), "{err}");
    assert_eq!(c.lens()[..2], lens[..]);
    let _ = std::fs::remove_dir_all(dir);
}
