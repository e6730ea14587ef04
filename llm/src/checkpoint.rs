//! A Hugging Face checkpoint directory: `config.json` and its `*.safetensors` files, memory-mapped, their
//! tensor tables read (the `safetensors` crate) and every tensor the model needs checked — present, of
//! the expected shape and dtype — before anything is copied to the GPU.
use std::{collections::HashMap, path::{Path, PathBuf}};

use kernel_lab::{Error, Result};
use safetensors::{Dtype, SafeTensors};

use crate::config::{Arch, Config};

/// The checkpoint: its config and, per tensor name, the file it lives in — or, made by
/// [`Checkpoint::synthetic`] from a `config.json` alone, one buffer of random values every tensor reads.
pub struct Checkpoint {
    /// The directory.
    pub dir: PathBuf,
    /// Its `config.json`.
    pub config: Config,
    source: Source,
    /// Per tensor, read once from its file's header: the file, the dtype, the shape and its bytes in the map.
    index: HashMap<String, Entry>,
    /// The weights' element type: bf16 (true) or f16.
    pub bf16: bool,
}

/// Where the tensors' bytes come from.
enum Source {
    /// The `*.safetensors` files, memory-mapped.
    Files(Vec<(PathBuf, memmap2::Mmap)>),
    /// One buffer as long as the largest tensor; each tensor is its first bytes.
    Synthetic(Vec<u8>),
}

/// Where one tensor lies.
struct Entry {
    file: usize,
    dtype: Dtype,
    shape: Vec<usize>,
    bytes: std::ops::Range<usize>,
}

fn invalid(msg: String) -> Error {
    Error::InvalidInput(msg)
}

impl Checkpoint {
    /// Opens `dir`: parses `config.json`, maps every `*.safetensors` file and reads its tensor table.
    pub fn open(dir: &Path) -> Result<Checkpoint> {
        let cfg_path = dir.join("config.json");
        let text = std::fs::read_to_string(&cfg_path).map_err(|e| invalid(format!("{}: {e}", cfg_path.display())))?;
        let config = Config::parse(&text).map_err(|e| invalid(format!("{}: {e}", dir.display())))?;
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir).map_err(|e| invalid(format!("{}: {e}", dir.display())))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "safetensors"))
            .collect();
        paths.sort();
        if paths.is_empty() {
            return Err(invalid(format!("{}: no *.safetensors file", dir.display())));
        }
        let mut files = vec![];
        let mut index = HashMap::new();
        let mut dtypes = std::collections::BTreeSet::new();
        for (i, p) in paths.into_iter().enumerate() {
            let f = std::fs::File::open(&p).map_err(|e| invalid(format!("{}: {e}", p.display())))?;
            // SAFETY: the map is read-only and lives as long as `files`; nothing here writes the file, and
            // a checkpoint changed by another process while it is read is the user's to avoid (as with
            // every memory-mapped loader).
            let map = unsafe { memmap2::Mmap::map(&f) }.map_err(|e| invalid(format!("{}: cannot map: {e}", p.display())))?;
            let st = SafeTensors::deserialize(&map).map_err(|e| invalid(format!("{}: not a safetensors file: {e}", p.display())))?;
            for (name, view) in st.tensors() {
                if name.starts_with("model.") || name == "lm_head.weight" {
                    dtypes.insert(format!("{:?}", view.dtype()));
                }
                // The view's bytes as offsets into the map (the view borrows the header parse, not kept).
                let start = view.data().as_ptr() as usize - map.as_ptr() as usize;
                let entry = Entry { file: i, dtype: view.dtype(), shape: view.shape().to_vec(), bytes: start..start + view.data().len() };
                if let Some(e) = index.insert(name.clone(), entry) {
                    let first: &(PathBuf, memmap2::Mmap) = &files[e.file];
                    return Err(invalid(format!("tensor `{name}` is in two files ({} and {})", first.0.display(), p.display())));
                }
            }
            files.push((p, map));
        }
        let bf16 = match (config.bf16, dtypes.iter().map(String::as_str).collect::<Vec<_>>().as_slice()) {
            (_, ["BF16"]) => true,
            (_, ["F16"]) => false,
            (_, d) => return Err(invalid(format!("{}: the weights are {d:?}; the runner takes one of BF16 or F16", dir.display()))),
        };
        if config.bf16.is_some_and(|b| b != bf16) {
            return Err(invalid(format!("{}: config.json says {} but the weights are {}", dir.display(), if bf16 { "float16" } else { "bfloat16" },
                                       if bf16 { "BF16" } else { "F16" })));
        }
        Ok(Checkpoint { dir: dir.to_path_buf(), config, source: Source::Files(files), index, bf16 })
    }

    /// A model of `dir/config.json` with weights drawn at random (`seed`), no `*.safetensors` read: for
    /// timing and memory at shapes whose checkpoint is not at hand (a 70B model's 140 GB). Every tensor
    /// is the first bytes of one random buffer as long as the largest (16 MiB of draws, repeated), so
    /// layers share their values — the outputs mean nothing; the work and the bytes moved are the real
    /// model's. Values: ±[1/64, 1/32)
    /// (bf16) or ±[1/128, 1/64) (f16), every one finite; the dtype is the config's (bf16 if it says none).
    pub fn synthetic(dir: &Path, seed: u64) -> Result<Checkpoint> {
        let cfg_path = dir.join("config.json");
        let text = std::fs::read_to_string(&cfg_path).map_err(|e| invalid(format!("{}: {e}", cfg_path.display())))?;
        let config = Config::parse(&text).map_err(|e| invalid(format!("{}: {e}", dir.display())))?;
        let bf16 = config.bf16.unwrap_or(true);
        let list = tensor_list(&config);
        let largest = list.iter().map(|(_, s)| 2 * s.iter().product::<usize>()).max().unwrap_or(0);
        let mut buf = vec![0u8; largest];
        // A splitmix64 stream, four 16-bit values a draw: a sign and 7 (bf16) or 10 (f16) mantissa bits
        // under a fixed exponent; 16 MiB of it, repeated to the buffer's end (a 70B model's 2.1 GB
        // embedding in about a second).
        const BLOCK: usize = 16 << 20;
        let drawn = largest.min(BLOCK);
        let mut x = seed;
        for chunk in buf[..drawn].chunks_mut(8) {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            for (i, pair) in chunk.chunks_mut(2).enumerate() {
                let r = (z >> (16 * i)) as u16;
                let v = if bf16 { (r & 0x8000) | 0x3C80 | (r & 0x7F) } else { (r & 0x8000) | 0x2000 | (r & 0x3FF) };
                pair.copy_from_slice(&v.to_le_bytes()[..pair.len()]);
            }
        }
        let mut at = drawn;
        while at < largest {
            let n = drawn.min(largest - at);
            buf.copy_within(..n, at);
            at += n;
        }
        let dtype = if bf16 { Dtype::BF16 } else { Dtype::F16 };
        let index = list.into_iter().map(|(name, shape)| {
            let len = 2 * shape.iter().product::<usize>();
            (name, Entry { file: 0, dtype, shape, bytes: 0..len })
        }).collect();
        Ok(Checkpoint { dir: dir.to_path_buf(), config, source: Source::Synthetic(buf), index, bf16 })
    }

    /// Whether the weights are [`Checkpoint::synthetic`]'s.
    pub fn is_synthetic(&self) -> bool {
        matches!(self.source, Source::Synthetic(_))
    }

    /// The bytes of tensor `name`, checked to have `shape` and the checkpoint's dtype.
    pub fn tensor(&self, name: &str, shape: &[usize]) -> Result<&[u8]> {
        let e = self.index.get(name).ok_or_else(|| invalid(format!("{}: tensor `{name}` is missing", self.dir.display())))?;
        let (path, bytes): (&Path, &[u8]) = match &self.source {
            Source::Files(files) => (&files[e.file].0, &files[e.file].1),
            Source::Synthetic(buf) => (&self.dir, buf),
        };
        let want = if self.bf16 { Dtype::BF16 } else { Dtype::F16 };
        if e.dtype != want || e.shape != shape {
            return Err(invalid(format!("{}: tensor `{name}` is {:?} {:?}, {want:?} {shape:?} expected", path.display(), e.dtype, e.shape)));
        }
        Ok(&bytes[e.bytes.clone()])
    }

    /// Whether the checkpoint holds `name`.
    pub fn has(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Checks every tensor the model reads, naming the first missing or mis-shaped one; returns the
    /// bytes they hold.
    pub fn check_all(&self) -> Result<usize> {
        let mut bytes = 0;
        for (name, shape) in tensor_list(&self.config) {
            bytes += self.tensor(&name, &shape)?.len();
        }
        Ok(bytes)
    }
}

/// Every tensor a model of `c` reads, with its shape (Hugging Face's names; `[out, in]` for a projection).
pub fn tensor_list(c: &Config) -> Vec<(String, Vec<usize>)> {
    let (h, d, i) = (c.hidden, c.head_dim, c.intermediate);
    let mut v = vec![("model.embed_tokens.weight".to_string(), vec![c.vocab, h]), ("model.norm.weight".to_string(), vec![h])];
    if !c.tie_embeddings {
        v.push(("lm_head.weight".to_string(), vec![c.vocab, h]));
    }
    for l in 0..c.layers {
        let p = format!("model.layers.{l}");
        v.push((format!("{p}.input_layernorm.weight"), vec![h]));
        v.push((format!("{p}.post_attention_layernorm.weight"), vec![h]));
        if c.arch == Arch::Phi3 {
            // Phi-3 stores Q, K, V as one tensor, and gate, up as another: [`fused_rows`].
            v.push((format!("{p}.self_attn.qkv_proj.weight"), vec![c.qkv_width(), h]));
        } else {
            for (name, rows) in [("q_proj", c.heads * d), ("k_proj", c.kv_heads * d), ("v_proj", c.kv_heads * d)] {
                v.push((format!("{p}.self_attn.{name}.weight"), vec![rows, h]));
                if c.qkv_bias {
                    v.push((format!("{p}.self_attn.{name}.bias"), vec![rows]));
                }
            }
        }
        v.push((format!("{p}.self_attn.o_proj.weight"), vec![h, c.heads * d]));
        if c.arch == Arch::Phi3 {
            v.push((format!("{p}.mlp.gate_up_proj.weight"), vec![2 * i, h]));
        } else {
            v.push((format!("{p}.mlp.gate_proj.weight"), vec![i, h]));
            v.push((format!("{p}.mlp.up_proj.weight"), vec![i, h]));
        }
        v.push((format!("{p}.mlp.down_proj.weight"), vec![h, i]));
    }
    v
}

/// Where layer `layer`'s projection `name` (`self_attn.q_proj`, `…k_proj`, `…v_proj`, `mlp.gate_proj`,
/// `mlp.up_proj`) lies among the checkpoint's tensors: the tensor holding it, that tensor's shape, and the
/// projection's first row in it — its own `[rows][hidden]` tensor, or (Phi-3) rows of the fused
/// `qkv_proj` (Q's rows, then K's, then V's) or `gate_up_proj` (gate's, then up's).
pub fn fused_rows(c: &Config, layer: usize, name: &str) -> (String, [usize; 2], usize) {
    let (h, d, i) = (c.hidden, c.head_dim, c.intermediate);
    let p = format!("model.layers.{layer}");
    let own = |rows: usize| (format!("{p}.{name}.weight"), [rows, h], 0);
    match (c.arch, name) {
        (Arch::Phi3, "self_attn.q_proj") => (format!("{p}.self_attn.qkv_proj.weight"), [c.qkv_width(), h], 0),
        (Arch::Phi3, "self_attn.k_proj") => (format!("{p}.self_attn.qkv_proj.weight"), [c.qkv_width(), h], c.heads * d),
        (Arch::Phi3, "self_attn.v_proj") => (format!("{p}.self_attn.qkv_proj.weight"), [c.qkv_width(), h], (c.heads + c.kv_heads) * d),
        (Arch::Phi3, "mlp.gate_proj") => (format!("{p}.mlp.gate_up_proj.weight"), [2 * i, h], 0),
        (Arch::Phi3, "mlp.up_proj") => (format!("{p}.mlp.gate_up_proj.weight"), [2 * i, h], i),
        (_, "self_attn.q_proj") => own(c.heads * d),
        (_, "self_attn.k_proj" | "self_attn.v_proj") => own(c.kv_heads * d),
        _ => own(i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 1,
        "num_attention_heads": 1, "num_key_value_heads": 1, "vocab_size": 16, "rms_norm_eps": 1e-5, "max_position_embeddings": 256,
        "torch_dtype": "bfloat16", "tie_word_embeddings": true}"#;

    /// A directory holding `config` and one safetensors file of `tensors` (bf16 zeros of each shape).
    fn write_checkpoint(tag: &str, config: &str, tensors: &[(String, Vec<usize>)], dtype: Dtype) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("llm-ckpt-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("config.json"), config).unwrap();
        let bufs: Vec<Vec<u8>> = tensors.iter().map(|(_, s)| vec![0u8; 2 * s.iter().product::<usize>()]).collect();
        let views: Vec<(String, safetensors::tensor::TensorView)> = tensors.iter().zip(&bufs)
            .map(|((n, s), b)| (n.clone(), safetensors::tensor::TensorView::new(dtype, s.clone(), b).unwrap())).collect();
        safetensors::serialize_to_file(views, None, &dir.join("model.safetensors")).unwrap();
        dir
    }

    #[test]
    fn a_complete_checkpoint_opens_and_checks() {
        let c = Config::parse(TINY).unwrap();
        let dir = write_checkpoint("ok", TINY, &tensor_list(&c), Dtype::BF16);
        let ck = Checkpoint::open(&dir).unwrap();
        assert!(ck.bf16 && !ck.has("lm_head.weight"));
        assert_eq!(ck.check_all().unwrap(), 2 * (16 * 64 + 64 + 2 * 64 + 3 * 64 * 64 + 64 * 64 + 3 * 128 * 64));
        assert_eq!(ck.tensor("model.norm.weight", &[64]).unwrap().len(), 128);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_synthetic_checkpoint_has_every_tensor_of_the_config_with_finite_small_values() {
        let dir = std::env::temp_dir().join(format!("llm-ckpt-synthetic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // No config.json yet: named.
        let e = Checkpoint::synthetic(&dir, 1).err().unwrap().to_string();
        assert!(e.contains("config.json"), "{e}");
        std::fs::write(dir.join("config.json"), TINY).unwrap();
        let ck = Checkpoint::synthetic(&dir, 7).unwrap();
        assert!(ck.is_synthetic() && ck.bf16);
        // The same bytes a real checkpoint of this config holds, every tensor of its shape.
        assert_eq!(ck.check_all().unwrap(), 2 * (16 * 64 + 64 + 2 * 64 + 3 * 64 * 64 + 64 * 64 + 3 * 128 * 64));
        assert!(ck.tensor("model.norm.weight", &[65]).is_err() && ck.tensor("lm_head.weight", &[16, 64]).is_err());
        let w = ck.tensor("model.layers.0.mlp.up_proj.weight", &[128, 64]).unwrap();
        let vals: Vec<f32> = w.chunks(2).map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32()).collect();
        assert!(vals.iter().all(|v| v.is_finite() && v.abs() >= 1.0 / 64.0 && v.abs() < 1.0 / 32.0));
        // Both signs, many distinct values; another seed, other values.
        assert!(vals.iter().any(|&v| v < 0.0) && vals.iter().any(|&v| v > 0.0));
        assert!(vals.iter().map(|v| v.to_bits()).collect::<std::collections::BTreeSet<_>>().len() > 100);
        let other = Checkpoint::synthetic(&dir, 8).unwrap();
        assert_ne!(other.tensor("model.layers.0.mlp.up_proj.weight", &[128, 64]).unwrap(), w);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn phi_3s_fused_projections_are_found_by_their_rows() {
        let cfg = TINY.replace("LlamaForCausalLM", "Phi3ForCausalLM").replace("\"num_attention_heads\": 1, \"num_key_value_heads\": 1", "\"num_attention_heads\": 2, \"num_key_value_heads\": 1")
                      .replace("\"hidden_size\": 64", "\"hidden_size\": 128");
        let c = Config::parse(&cfg).unwrap();
        let list = tensor_list(&c);
        assert!(list.iter().any(|(n, s)| n == "model.layers.0.self_attn.qkv_proj.weight" && s == &[256, 128]));
        assert!(list.iter().any(|(n, s)| n == "model.layers.0.mlp.gate_up_proj.weight" && s == &[256, 128]));
        assert!(!list.iter().any(|(n, _)| n.contains("q_proj") || n.contains("up_proj.weight") && !n.contains("gate_up")));
        assert_eq!(fused_rows(&c, 0, "self_attn.v_proj"), ("model.layers.0.self_attn.qkv_proj.weight".into(), [256, 128], 192));
        assert_eq!(fused_rows(&c, 0, "mlp.up_proj").2, 128);
        let dir = write_checkpoint("phi3", &cfg, &list, Dtype::BF16);
        let ck = Checkpoint::open(&dir).unwrap();
        ck.check_all().unwrap();
        let (name, shape, _) = fused_rows(&c, 0, "self_attn.k_proj");
        assert_eq!(ck.tensor(&name, &shape).unwrap().len(), 2 * 256 * 128);
        // A Llama config over Phi-3's tensors: the missing one named.
        let llama = Config::parse(&cfg.replace("Phi3ForCausalLM", "LlamaForCausalLM")).unwrap();
        assert_eq!(fused_rows(&llama, 0, "mlp.up_proj"), ("model.layers.0.mlp.up_proj.weight".into(), [128, 128], 0));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn missing_misshaped_and_wrong_dtype_tensors_are_named() {
        let c = Config::parse(TINY).unwrap();
        let mut list = tensor_list(&c);
        list.retain(|(n, _)| n != "model.layers.0.mlp.up_proj.weight");
        let dir = write_checkpoint("missing", TINY, &list, Dtype::BF16);
        let e = Checkpoint::open(&dir).unwrap().check_all().unwrap_err().to_string();
        assert!(e.contains("`model.layers.0.mlp.up_proj.weight` is missing"), "{e}");
        let mut list = tensor_list(&c);
        list[1].1 = vec![65];
        let dir2 = write_checkpoint("shape", TINY, &list, Dtype::BF16);
        let e = Checkpoint::open(&dir2).unwrap().check_all().unwrap_err().to_string();
        assert!(e.contains("`model.norm.weight` is BF16 [65], BF16 [64] expected"), "{e}");
        let dir3 = write_checkpoint("dtype", TINY, &tensor_list(&c), Dtype::F16);
        let e = Checkpoint::open(&dir3).err().unwrap().to_string();
        assert!(e.contains("config.json says float16 but the weights are F16") || e.contains("bfloat16"), "{e}");
        for d in [dir, dir2, dir3] {
            let _ = std::fs::remove_dir_all(&d);
        }
    }
}
