//! `config.json` of a Hugging Face checkpoint, read into what the runner honours — and refused, naming the
//! field, where it asks for something the runner does not do.
//!
//! Honoured: `architectures` / `model_type` (Llama, Mistral, Qwen2, Phi-3), `hidden_size`, `intermediate_size`,
//! `num_hidden_layers`, `num_attention_heads`, `num_key_value_heads` (default: the heads), `head_dim`
//! (default: hidden / heads), `vocab_size`, `rms_norm_eps`, `max_position_embeddings`, the rotary base and
//! scaling (`rope_theta` + `rope_scaling`, or transformers 5's `rope_parameters`: types `default`,
//! `linear`, `llama3`), `tie_word_embeddings`, `hidden_act` (must be `silu`), `attention_bias` (Llama:
//! must be false; Qwen2 has Q/K/V biases always), `mlp_bias` (must be false), `sliding_window` (Mistral, Phi-3;
//! Qwen2 with `use_sliding_window`: a window caps the sequence length, the runner does not slide),
//! `partial_rotary_factor` (must be 1), `torch_dtype` /
//! `dtype` (bf16 or f16; else the weights' own), `eos_token_id` (generation stops there). Everything else in
//! the file is ignored.
use serde_json::Value;

/// The model families the runner takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// `LlamaForCausalLM` (Llama 2, 3, 3.1 and their fine-tunes).
    Llama,
    /// `MistralForCausalLM`.
    Mistral,
    /// `Qwen2ForCausalLM` (biases on the Q, K and V projections).
    Qwen2,
    /// `Phi3ForCausalLM` (Phi-3: Llama's layers with Q, K, V stored as one `qkv_proj` and gate, up as one
    /// `gate_up_proj`).
    Phi3,
}

/// How the rotary frequencies are scaled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RopeScaling {
    /// Plain `θ^(−2i/D)`.
    None,
    /// Positions divided by `factor` (every frequency over `factor`).
    Linear { factor: f64 },
    /// Llama 3.1's: long wavelengths over `factor`, short ones kept, a smooth ramp between.
    Llama3 { factor: f64, low_freq_factor: f64, high_freq_factor: f64, original_max_position_embeddings: f64 },
}

/// What the runner reads of `config.json`.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub arch: Arch,
    pub hidden: usize,
    pub intermediate: usize,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub vocab: usize,
    pub eps: f32,
    /// Positions the model was trained to (and the runner's longest sequence unless a window is shorter).
    pub max_positions: usize,
    pub rope_theta: f64,
    pub rope_scaling: RopeScaling,
    pub tie_embeddings: bool,
    /// Q, K and V projections with biases (Qwen2).
    pub qkv_bias: bool,
    /// `Some(true)`: bf16, `Some(false)`: f16, `None`: whatever the weights are.
    pub bf16: Option<bool>,
    /// End-of-sequence token ids (`eos_token_id`, one or a list; empty when absent).
    pub eos: Vec<u32>,
}

/// A config error: the file and the field.
fn bad(field: &str, why: impl std::fmt::Display) -> String {
    format!("config.json: `{field}` {why}")
}

fn uint(v: &Value, field: &str) -> Result<usize, String> {
    match v.get(field) {
        Some(x) => x.as_u64().filter(|&n| n > 0).map(|n| n as usize).ok_or_else(|| bad(field, format!("must be a positive integer, is {x}"))),
        None => Err(bad(field, "is missing")),
    }
}

fn opt_uint(v: &Value, field: &str) -> Result<Option<usize>, String> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => uint(v, field).map(Some),
    }
}

fn float(v: &Value, field: &str) -> Result<Option<f64>, String> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x.as_f64().filter(|f| f.is_finite()).map(Some).ok_or_else(|| bad(field, format!("must be a number, is {x}"))),
    }
}

fn flag(v: &Value, field: &str, default: bool) -> Result<bool, String> {
    match v.get(field) {
        None | Some(Value::Null) => Ok(default),
        Some(x) => x.as_bool().ok_or_else(|| bad(field, format!("must be true or false, is {x}"))),
    }
}

impl Config {
    /// Parses `config.json`'s text.
    pub fn parse(text: &str) -> Result<Config, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("config.json is not JSON: {e}"))?;
        let archs: Vec<&str> = v.get("architectures").and_then(Value::as_array).map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        let model_type = v.get("model_type").and_then(Value::as_str).unwrap_or("");
        let arch = match (archs.first().copied(), model_type) {
            (Some("LlamaForCausalLM"), _) | (None, "llama") => Arch::Llama,
            (Some("MistralForCausalLM"), _) | (None, "mistral") => Arch::Mistral,
            (Some("Qwen2ForCausalLM"), _) | (None, "qwen2") => Arch::Qwen2,
            (Some("Phi3ForCausalLM"), _) | (None, "phi3") => Arch::Phi3,
            (a, t) => return Err(format!("config.json: architecture {a:?} (model_type {t:?}) is not supported: LlamaForCausalLM, MistralForCausalLM, \
                                           Qwen2ForCausalLM, Phi3ForCausalLM")),
        };
        let hidden = uint(&v, "hidden_size")?;
        let heads = uint(&v, "num_attention_heads")?;
        let kv_heads = opt_uint(&v, "num_key_value_heads")?.unwrap_or(heads);
        let head_dim = opt_uint(&v, "head_dim")?.unwrap_or(hidden / heads);
        if heads % kv_heads != 0 {
            return Err(bad("num_key_value_heads", format!("= {kv_heads} does not divide num_attention_heads = {heads}")));
        }
        match v.get("hidden_act").and_then(Value::as_str) {
            None | Some("silu") => {}
            Some(a) => return Err(bad("hidden_act", format!("is {a:?}: only \"silu\" is supported"))),
        }
        if flag(&v, "mlp_bias", false)? {
            return Err(bad("mlp_bias", "is true: MLP biases are not supported"));
        }
        if let Some(f) = float(&v, "partial_rotary_factor")?.filter(|&f| f != 1.0) {
            return Err(bad("partial_rotary_factor", format!("is {f}: the runner rotates every dimension of a head")));
        }
        let qkv_bias = match arch {
            Arch::Qwen2 => true,
            _ if flag(&v, "attention_bias", false)? => return Err(bad("attention_bias", "is true: attention biases are supported for Qwen2 only")),
            _ => false,
        };
        let mut max_positions = uint(&v, "max_position_embeddings")?;
        let windowed = match arch {
            Arch::Mistral | Arch::Phi3 => true,
            Arch::Qwen2 => flag(&v, "use_sliding_window", false)?,
            Arch::Llama => false,
        };
        if windowed && let Some(w) = opt_uint(&v, "sliding_window")? {
            // The runner attends to every earlier token: with a window, sequences stop at its length.
            max_positions = max_positions.min(w);
        }
        // The rotary parameters: transformers 5's `rope_parameters`, or `rope_theta` + `rope_scaling`.
        let rope = v.get("rope_parameters").filter(|r| !r.is_null()).or_else(|| v.get("rope_scaling").filter(|r| !r.is_null()));
        let rope_theta = float(&v, "rope_theta")?.or(rope.and_then(|r| r.get("rope_theta")).and_then(Value::as_f64)).unwrap_or(10000.0);
        let rope_scaling = match rope {
            None => RopeScaling::None,
            Some(r) => {
                let kind = r.get("rope_type").or_else(|| r.get("type")).and_then(Value::as_str).unwrap_or("default");
                let f = |name: &str| float(r, name)?.ok_or_else(|| bad(&format!("rope_scaling.{name}"), "is missing"));
                match kind {
                    "default" => RopeScaling::None,
                    "linear" => RopeScaling::Linear { factor: f("factor")? },
                    "llama3" => RopeScaling::Llama3 { factor: f("factor")?, low_freq_factor: f("low_freq_factor")?, high_freq_factor: f("high_freq_factor")?,
                                                      original_max_position_embeddings: f("original_max_position_embeddings")? },
                    other => return Err(bad("rope_scaling.rope_type", format!("is {other:?}: default, linear and llama3 are supported"))),
                }
            }
        };
        let bf16 = match v.get("torch_dtype").or_else(|| v.get("dtype")).and_then(Value::as_str) {
            Some("bfloat16") => Some(true),
            Some("float16") => Some(false),
            None | Some("float32") => None,
            Some(d) => return Err(bad("torch_dtype", format!("is {d:?}: bfloat16 or float16"))),
        };
        let eos = match v.get("eos_token_id") {
            None | Some(Value::Null) => vec![],
            Some(Value::Array(a)) => a.iter().map(|x| x.as_u64().map(|n| n as u32).ok_or_else(|| bad("eos_token_id", format!("holds {x}, not a token id"))))
                                      .collect::<Result<_, _>>()?,
            Some(x) => vec![x.as_u64().ok_or_else(|| bad("eos_token_id", format!("is {x}, not a token id")))? as u32],
        };
        let eps = float(&v, "rms_norm_eps")?.ok_or_else(|| bad("rms_norm_eps", "is missing"))? as f32;
        let c = Config { arch, hidden, intermediate: uint(&v, "intermediate_size")?, layers: uint(&v, "num_hidden_layers")?, heads, kv_heads, head_dim,
                         vocab: uint(&v, "vocab_size")?, eps, max_positions, rope_theta, rope_scaling, tie_embeddings: flag(&v, "tie_word_embeddings", false)?,
                         qkv_bias, bf16, eos };
        c.check_kernels()?;
        Ok(c)
    }

    /// The shapes the kernels take: head dims the attention kernels are built for, rows in 16-byte chunks.
    fn check_kernels(&self) -> Result<(), String> {
        if ![64, 96, 128].contains(&self.head_dim) {
            return Err(bad("head_dim", format!("= {}: the prefill attention kernels take 64, 96 and 128", self.head_dim)));
        }
        for (field, n) in [("hidden_size", self.hidden), ("intermediate_size", self.intermediate)] {
            if n % 8 != 0 {
                return Err(bad(field, format!("= {n} is not a multiple of 8 (rows are read 16 bytes at a time)")));
            }
        }
        if self.hidden > 16384 {
            return Err(bad("hidden_size", format!("= {} exceeds the RMSNorm kernel's 16384", self.hidden)));
        }
        Ok(())
    }

    /// Columns of the fused Q, K, V projection.
    pub fn qkv_width(&self) -> usize {
        (self.heads + 2 * self.kv_heads) * self.head_dim
    }

    /// Whether the model splits evenly over `world` GPUs (tensor parallelism): the query heads, the K/V
    /// heads and the intermediate size divide by `world`, and each rank's intermediate columns are a
    /// multiple of 8 (the row kernels' vectors). The reason when not.
    pub fn check_split(&self, world: usize) -> Result<(), String> {
        if world == 0 {
            return Err("a split over 0 GPUs".into());
        }
        for (what, n) in [("attention heads", self.heads), ("K/V heads", self.kv_heads), ("intermediate size", self.intermediate)] {
            if n % world != 0 {
                return Err(format!("{n} {what} do not divide over {world} GPUs (tensor parallelism splits them evenly)"));
            }
        }
        if (self.intermediate / world) % 8 != 0 {
            return Err(format!("{} intermediate columns per GPU over {world} GPUs: the row kernels need a multiple of 8", self.intermediate / world));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_need_heads_kv_heads_and_mlp_to_divide() {
        let c = Config::parse(LLAMA3).unwrap();
        for w in [1, 2, 4, 8] {
            assert_eq!(c.check_split(w), Ok(()), "Llama-3-8B over {w}");
        }
        assert!(c.check_split(3).unwrap_err().contains("32 attention heads do not divide over 3 GPUs"));
        assert!(c.check_split(16).unwrap_err().contains("8 K/V heads do not divide over 16 GPUs"));
        assert!(c.check_split(0).is_err());
    }

    const LLAMA3: &str = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "rms_norm_eps": 1e-5, "max_position_embeddings": 131072,
        "rope_theta": 500000.0, "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
        "rope_type": "llama3"}, "torch_dtype": "bfloat16", "hidden_act": "silu", "tie_word_embeddings": false}"#;

    #[test]
    fn llama_3_1_reads_with_its_rope_scaling() {
        let c = Config::parse(LLAMA3).unwrap();
        assert_eq!((c.arch, c.heads, c.kv_heads, c.head_dim, c.qkv_width(), c.bf16), (Arch::Llama, 32, 8, 128, 6144, Some(true)));
        assert!(c.eos.is_empty());
        let with_eos = LLAMA3.replacen("\"hidden_act\"", "\"eos_token_id\": [128001, 128009], \"hidden_act\"", 1);
        assert_eq!(Config::parse(&with_eos).unwrap().eos, vec![128001, 128009]);
        assert!(matches!(c.rope_scaling, RopeScaling::Llama3 { factor: 8.0, .. }) && c.rope_theta == 500000.0);
    }

    #[test]
    fn transformers_5_rope_parameters_and_qwen2_biases() {
        let t = r#"{"architectures": ["Qwen2ForCausalLM"], "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24, "num_attention_heads": 14,
            "num_key_value_heads": 2, "vocab_size": 151936, "rms_norm_eps": 1e-6, "max_position_embeddings": 32768, "sliding_window": 4096,
            "use_sliding_window": false, "rope_parameters": {"rope_type": "default", "rope_theta": 1000000.0}, "dtype": "bfloat16", "tie_word_embeddings": true}"#;
        let c = Config::parse(t).unwrap();
        assert_eq!((c.arch, c.head_dim, c.qkv_bias, c.tie_embeddings, c.max_positions, c.rope_theta), (Arch::Qwen2, 64, true, true, 32768, 1e6));
    }

    #[test]
    fn what_the_runner_does_not_do_is_named() {
        let with = |k: &str, v: &str| LLAMA3.replacen("\"hidden_act\": \"silu\"", &format!("\"hidden_act\": \"silu\", \"{k}\": {v}"), 1);
        assert!(Config::parse(&with("attention_bias", "true")).unwrap_err().contains("attention_bias"));
        assert!(Config::parse(&with("mlp_bias", "true")).unwrap_err().contains("mlp_bias"));
        assert!(Config::parse(&LLAMA3.replace("\"silu\"", "\"gelu\"")).unwrap_err().contains("hidden_act"));
        assert!(Config::parse(&LLAMA3.replace("LlamaForCausalLM", "GPT2LMHeadModel")).unwrap_err().contains("not supported"));
        assert!(Config::parse(&LLAMA3.replace("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 5")).unwrap_err().contains("does not divide"));
        assert!(Config::parse(&LLAMA3.replace("\"vocab_size\": 128256,", "")).unwrap_err().contains("`vocab_size` is missing"));
        assert!(Config::parse(&LLAMA3.replace("\"llama3\"", "\"yarn\"")).unwrap_err().contains("yarn"));
        assert!(Config::parse(&LLAMA3.replace("\"num_attention_heads\": 32", "\"num_attention_heads\": 16")).unwrap_err().contains("head_dim"));
        // Mistral's window caps the sequences.
        let m = LLAMA3.replace("LlamaForCausalLM", "MistralForCausalLM").replacen("\"hidden_act\"", "\"sliding_window\": 4096, \"hidden_act\"", 1);
        assert_eq!(Config::parse(&m).unwrap().max_positions, 4096);
        assert!(Config::parse(&with("partial_rotary_factor", "0.75")).unwrap_err().contains("partial_rotary_factor"));
        assert!(Config::parse(&with("partial_rotary_factor", "1.0")).is_ok());
    }

    /// Phi-3-mini-4k-instruct's config.json (its fields as published): head dim 96, a window of 2047
    /// tokens capping the sequences; the 128k variant's `longrope` is refused, named.
    const PHI3: &str = r#"{"architectures": ["Phi3ForCausalLM"], "attention_bias": false, "bos_token_id": 1, "embd_pdrop": 0.0, "eos_token_id": 32000,
        "hidden_act": "silu", "hidden_size": 3072, "initializer_range": 0.02, "intermediate_size": 8192, "max_position_embeddings": 4096,
        "model_type": "phi3", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "original_max_position_embeddings": 4096,
        "pad_token_id": 32000, "resid_pdrop": 0.0, "rms_norm_eps": 1e-05, "rope_scaling": null, "rope_theta": 10000.0, "sliding_window": 2047,
        "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 32064}"#;

    #[test]
    fn phi_3_reads_as_llama_with_its_window() {
        let c = Config::parse(PHI3).unwrap();
        assert_eq!((c.arch, c.head_dim, c.qkv_width(), c.max_positions, c.eos.as_slice()), (Arch::Phi3, 96, 9216, 2047, &[32000u32][..]));
        let long = PHI3.replace("\"rope_scaling\": null", "\"rope_scaling\": {\"type\": \"longrope\", \"short_factor\": [1.0], \"long_factor\": [1.0]}");
        assert!(Config::parse(&long).unwrap_err().contains("longrope"));
    }
}
