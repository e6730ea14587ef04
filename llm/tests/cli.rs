//! The `llm` command line on the CPU: a bad checkpoint directory, config field or prompt is refused with
//! exit code 2 and a message naming it, before any GPU is needed.
use std::process::Command;

fn llm(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_llm")).args(args).output().expect("runs the llm binary");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A directory holding `config` (and nothing else).
fn dir_with(tag: &str, config: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("llm-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("config.json"), config).unwrap();
    d
}

#[test]
fn bad_input_is_named_with_exit_code_2() {
    let (code, err) = llm(&["--model", "/nonexistent/ckpt", "--prompt-ids", "1,2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/nonexistent/ckpt/config.json"), "{err}");
    let (code, err) = llm(&["--model", "x"]);
    assert!(code == 2 && err.contains("--prompt"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1,a"]);
    assert!(code == 2 && err.contains("token id `a`"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1", "--sample", "0,5,0.9"]);
    assert!(code == 2 && err.contains("--sample"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1", "--prefill-chunk", "0"]);
    assert!(code == 2 && err.contains("--prefill-chunk must be at least 1"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1", "--requests", "8"]);
    assert!(code == 2 && err.contains("give --slots, --prompt-len and --requests together"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-len", "100", "--slots", "4"]);
    assert!(code == 2 && err.contains("give --slots, --prompt-len and --requests together"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-len", "100", "--slots", "4", "--rate", "3"]);
    assert!(code == 2 && err.contains("--rate times the arrivals of --requests"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-len", "100", "--slots", "4", "--requests", "9", "--rate", "0"]);
    assert!(code == 2 && err.contains("--rate 0: requests a second, above 0"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1;2", "--slots", "0"]);
    assert!(code == 2 && err.contains("--slots and --requests must be at least 1"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1", "--slots", "2", "--batch", "3"]);
    assert!(code == 2 && err.contains("--slots serves the prompts through B slots"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1;2", "--slots", "2", "--preempt"]);
    assert!(code == 2 && err.contains("--preempt is how --slots admits to a paged cache: give --slots and --page-size"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1;2", "--separate"]);
    assert!(code == 2 && err.contains("--separate is how --slots runs an admission: give --slots"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1", "--kv-pages", "8"]);
    assert!(code == 2 && err.contains("give --page-size too"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1", "--page-size", "24"]);
    assert!(code == 2 && err.contains("--page-size 24: a multiple of 16 from 16 to 256"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1", "--page-size", "16", "--kv-pages", "0"]);
    assert!(code == 2 && err.contains("--kv-pages must be at least 1"), "{err}");
    let d = dir_with("gelu", r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1,
        "num_attention_heads": 1, "vocab_size": 16, "rms_norm_eps": 1e-5, "max_position_embeddings": 64, "hidden_act": "gelu"}"#);
    let (code, err) = llm(&["--model", d.to_str().unwrap(), "--prompt-ids", "1"]);
    assert!(code == 2 && err.contains("`hidden_act`"), "{err}");
    let d2 = dir_with("noweights", r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1,
        "num_attention_heads": 1, "vocab_size": 16, "rms_norm_eps": 1e-5, "max_position_embeddings": 64}"#);
    let (code, err) = llm(&["--model", d2.to_str().unwrap(), "--prompt-ids", "1"]);
    assert!(code == 2 && err.contains("no *.safetensors"), "{err}");
    for d in [d, d2] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A checkpoint of zeros in a tiny Llama's shape (one layer, vocab 16) and a word-level tokenizer.json.
fn tiny_checkpoint(tag: &str) -> std::path::PathBuf {
    let config = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1,
        "num_attention_heads": 1, "vocab_size": 16, "rms_norm_eps": 1e-5, "max_position_embeddings": 64, "torch_dtype": "bfloat16",
        "tie_word_embeddings": true}"#;
    let d = dir_with(tag, config);
    let c = kernel_lab_llm::config::Config::parse(config).unwrap();
    let list = kernel_lab_llm::checkpoint::tensor_list(&c);
    let bufs: Vec<Vec<u8>> = list.iter().map(|(_, s)| vec![0u8; 2 * s.iter().product::<usize>()]).collect();
    let views: Vec<(String, safetensors::tensor::TensorView)> = list.iter().zip(&bufs)
        .map(|((n, s), b)| (n.clone(), safetensors::tensor::TensorView::new(safetensors::Dtype::BF16, s.clone(), b).unwrap())).collect();
    safetensors::serialize_to_file(views, None, &d.join("model.safetensors")).unwrap();
    std::fs::write(d.join("tokenizer.json"), r#"{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [], "normalizer": null,
        "pre_tokenizer": {"type": "Whitespace"}, "post_processor": null, "decoder": null,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hello": 1, "world": 2}, "unk_token": "[UNK]"}}"#).unwrap();
    d
}

#[test]
fn a_text_prompt_goes_through_the_tokenizer() {
    let d = tiny_checkpoint("tok");
    let out = Command::new(env!("CARGO_BIN_EXE_llm")).args(["--model", d.to_str().unwrap(), "--prompt", "hello world hello"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("prompt: 3 tokens [1, 2, 1]"), "{stdout}");
    // Without a GPU the run stops there with exit code 2; on a GPU it generates (exit 0; off Hopper on the
    // `mma.sync` prefill, a33); a GPU the lab's kernels do not run is refused with the reason (exit 1).
    let stderr = String::from_utf8_lossy(&out.stderr);
    let refused = out.status.code() == Some(1) && stderr.contains("sm_90a");
    assert!(matches!(out.status.code(), Some(0) | Some(2)) || refused, "{out:?}");
    std::fs::write(d.join("tokenizer.json"), "{not json").unwrap();
    let (code, err) = llm(&["--model", d.to_str().unwrap(), "--prompt", "hello"]);
    assert!(code == 2 && err.contains("tokenizer.json"), "{err}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_split_the_model_cannot_take_is_refused_without_a_gpu() {
    let d = tiny_checkpoint("tp");
    // One attention head: no split over two GPUs.
    let (code, err) = llm(&["--model", d.to_str().unwrap(), "--prompt-ids", "1", "--tp", "2"]);
    assert!(code == 2 && err.contains("1 attention heads do not divide over 2 GPUs"), "{err}");
    let (code, err) = llm(&["--model", d.to_str().unwrap(), "--prompt-ids", "1", "--tp-same-gpu", "2"]);
    assert!(code == 2 && err.contains("--tp-same-gpu 2"), "{err}");
    let (code, err) = llm(&["--model", d.to_str().unwrap(), "--prompt-ids", "1", "--tp", "2", "--fp8"]);
    // FP8 weights split as the 16-bit ones: the same refusal, for the heads.
    assert!(code == 2 && err.contains("1 attention heads do not divide over 2 GPUs"), "{err}");
    let (code, err) = llm(&["--model", d.to_str().unwrap(), "--prompt-ids", "1", "--tp", "0"]);
    assert!(code == 2 && err.contains("1 to 8 ranks"), "{err}");
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn several_prompts_make_the_batch() {
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1,2;3", "--batch", "4"]);
    assert!(code == 2 && err.contains("the batch is all of them"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1,2;3,b"]);
    assert!(code == 2 && err.contains("token id `b`"), "{err}");
}

#[test]
fn synthetic_weights_need_only_the_config() {
    // A config.json alone: refused without --synthetic-weights (no *.safetensors), taken with it. Without
    // a GPU the run stops after the checks (exit 2, naming the GPU); on Hopper it generates (exit 0) and
    // says the weights are synthetic.
    let d = dir_with("synthetic", r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2,
        "num_attention_heads": 2, "num_key_value_heads": 2, "vocab_size": 64, "rms_norm_eps": 1e-5, "max_position_embeddings": 64, "torch_dtype": "bfloat16"}"#);
    let m = d.to_str().unwrap();
    let (code, err) = llm(&["--model", m, "--prompt-len", "4", "--max-new", "4"]);
    assert!(code == 2 && err.contains("no *.safetensors"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_llm")).args(["--model", m, "--prompt-len", "4", "--max-new", "4", "--synthetic-weights"]).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let refused = out.status.code() == Some(1) && stderr.contains("sm_90a");
    match out.status.code() {
        Some(0) => assert!(stdout.contains("synthetic weights") && stdout.contains("decode"), "{stdout}"),
        Some(2) => assert!(stderr.contains("runs the model on a GPU"), "{stderr}"),
        _ => assert!(refused, "{out:?}"),
    }
    // The split is checked as for files: 2 heads do not divide over 4 GPUs.
    let (code, err) = llm(&["--model", m, "--prompt-len", "4", "--synthetic-weights", "--tp", "4"]);
    assert!(code == 2 && err.contains("do not divide over 4 GPUs"), "{err}");
    let _ = std::fs::remove_dir_all(d);
}


#[test]
fn a_chat_needs_its_template_and_takes_its_turns_from_standard_input() {
    let (code, err) = llm(&["--model", "x", "--chat", "--prompt-ids", "1"]);
    assert!(code == 2 && err.contains("--chat takes its turns from standard input"), "{err}");
    let (code, err) = llm(&["--model", "x", "--prompt-ids", "1", "--system", "Be brief."]);
    assert!(code == 2 && err.contains("belong to --chat"), "{err}");
    // The tiny checkpoint has a tokenizer but no tokenizer_config.json: refused, naming the file.
    let d = tiny_checkpoint("chat");
    let m = d.to_str().unwrap();
    let (code, err) = llm(&["--model", m, "--chat"]);
    assert!(code == 2 && err.contains("tokenizer_config.json"), "{err}");
    // A template that does not parse, named by its file.
    let bad = d.join("bad.jinja");
    std::fs::write(&bad, "{% for %}").unwrap();
    let (code, err) = llm(&["--model", m, "--chat", "--chat-template", bad.to_str().unwrap()]);
    assert!(code == 2 && err.contains("bad.jinja"), "{err}");
    // With a template the checks pass: without a GPU the run stops there (exit 2, naming the GPU); on
    // Hopper the conversation runs (exit 0); elsewhere the prefill kernel is refused (exit 1).
    std::fs::write(d.join("tokenizer_config.json"), r#"{"bos_token": "hello", "eos_token": "world",
        "chat_template": "{{ bos_token }}{% for m in messages %}{{ m['content'] }} world {% endfor %}{% if add_generation_prompt %}hello {% endif %}"}"#).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_llm")).args(["--model", m, "--chat", "--max-new", "4", "--max-len", "64"])
        .stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        let _ = stdin.write_all(b"hello world\nworld\n\n");
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    match out.status.code() {
        Some(0) => assert!(stderr.contains("tokens appended after"), "{stderr}"),
        Some(2) => assert!(stderr.contains("runs the model on a GPU"), "{stderr}"),
        _ => assert!(out.status.code() == Some(1) && stderr.contains("sm_90a"), "{out:?}"),
    }
    let _ = std::fs::remove_dir_all(d);
}
