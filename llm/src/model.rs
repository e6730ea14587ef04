//! The forward pass: weights on the GPU (projections transposed to the `K × N` operand the lab's GEMM
//! takes, Q/K/V and gate/up fused), a contiguous KV cache `[slots][kv_heads][max_len][D]` per layer, and
//! the launches of one prefill or decode step.
//!
//! ```text
//! h = embed(ids)                                       residual stream [tokens][hidden]
//! per layer:  x = rmsnorm(h (+= delta))                 add_rmsnorm (the previous layer's MLP output added)
//!             qkv = x · Wqkv                            GEMM
//!             q, k, v, cache ← rope(qkv + b)            rope (K, V also into the cache)
//!             o = attention(q, k | cache, v | cache)    prefill a19 (causal) / decode ad1
//!             delta = o · Wo;  x = rmsnorm(h += delta)  GEMM, add_rmsnorm
//!             gu = x · Wgu;  a = silu(g) · u;  delta = a · Wdown
//! x = rmsnorm(h += delta);  logits = x · Wlm            (prefill: the last token of each sequence only)
//! ```
use std::collections::HashMap;

use half::{bf16, f16};
use kernel_lab::{
    Error, Gpu, Result,
    error::DriverContext,
    attention::{
        decode::{DecodeDesc, DecodePlan},
        prefill::{PrefillDesc, PrefillPlan},
    },
    cudarc::driver::{CudaSlice, CudaView, CudaViewMut, LaunchConfig},
    gemm::{Element, GemmDesc, GemmPlan},
    runtime::gpu::Kernel,
    steps::gemm::Elem,
};

use crate::{MODULE, PTX, checkpoint::Checkpoint, config::Config, kernels as k, rope, sample::{self, Rng, Sampling}};

/// One layer's weights (16-bit bits).
struct Layer {
    attn_norm: CudaSlice<u16>,
    /// `[hidden][qkv_width]`: Q's, K's, V's columns.
    qkv: CudaSlice<u16>,
    /// `[qkv_width]` (Qwen2).
    qkv_bias: Option<CudaSlice<u16>>,
    /// `[heads·D][hidden]`.
    o: CudaSlice<u16>,
    mlp_norm: CudaSlice<u16>,
    /// `[hidden][2·inter]`: gate's columns, then up's.
    gate_up: CudaSlice<u16>,
    /// `[inter][hidden]`.
    down: CudaSlice<u16>,
}

/// The runner's kernels for one element type.
struct Kernels {
    bf16: bool,
    embed: Kernel,
    add_rmsnorm: Kernel,
    rope: Kernel,
    silu_mul: Kernel,
    argmax: Kernel,
    transpose: Kernel,
}

/// Calls the launcher of `$name` for the model's element type (`_bf16` or `_f16`; same signature).
macro_rules! launch {
    ($ks:expr, $name:ident, $bf:ident, $f:ident, $cfg:expr, $($arg:expr),* $(,)?) => {
        if $ks.k.bf16 { k::$bf::launch(&$ks.gpu, &$ks.k.$name, $cfg, $($arg),*) } else { k::$f::launch(&$ks.gpu, &$ks.k.$name, $cfg, $($arg),*) }
    };
}

/// `blocks` blocks of 256 threads with `smem` bytes of dynamic shared memory.
fn cfg(blocks: usize, smem: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (crate::kernels::embed_bf16::MAX_THREADS, 1, 1), shared_mem_bytes: smem }
}

/// `s`'s first `n` elements as `T` (a 16-bit element type: every bit pattern is a value).
fn view<T: Element>(s: &CudaSlice<u16>, n: usize) -> Result<CudaView<'_, T>> {
    // SAFETY: T is f16 or bf16 (checked by `Model::load`): 2 bytes, no invalid bit pattern.
    unsafe { s.transmute::<T>(n) }.ok_or_else(|| Error::InvalidInput(format!("buffer of {} elements viewed as {n}", s.len())))
}

/// [`view`], mutable.
fn view_mut<T: Element>(s: &mut CudaSlice<u16>, n: usize) -> Result<CudaViewMut<'_, T>> {
    let len = s.len();
    // SAFETY: as `view`.
    unsafe { s.transmute_mut::<T>(n) }.ok_or_else(|| Error::InvalidInput(format!("buffer of {len} elements viewed as {n}")))
}

/// Work buffers for up to `tokens` tokens (grown as needed).
#[derive(Default)]
struct Scratch {
    tokens: usize,
    bufs: Option<Bufs>,
}

struct Bufs {
    h: CudaSlice<u16>,
    x: CudaSlice<u16>,
    qkv: CudaSlice<u16>,
    q: CudaSlice<u16>,
    k: CudaSlice<u16>,
    v: CudaSlice<u16>,
    attn: CudaSlice<u16>,
    delta: CudaSlice<u16>,
    gu: CudaSlice<u16>,
    act: CudaSlice<u16>,
    lse: CudaSlice<f32>,
    ids: CudaSlice<i32>,
    pos: CudaSlice<i32>,
    slot: CudaSlice<i32>,
    /// The rows of x the LM head reads (each sequence's last token).
    rows: CudaSlice<i32>,
}

/// A loaded model with its KV cache.
pub struct Model<T: Element> {
    gpu: Gpu,
    /// The checkpoint's config.
    pub config: Config,
    k: Kernels,
    embed: CudaSlice<u16>,
    layers: Vec<Layer>,
    norm: CudaSlice<u16>,
    /// `[hidden][vocab]`.
    lm_head: CudaSlice<u16>,
    cos_sin: CudaSlice<f32>,
    /// Per layer: K and V caches `[slots][kv_heads][max_len][D]`.
    cache: Vec<(CudaSlice<u16>, CudaSlice<u16>)>,
    slots: usize,
    max_len: usize,
    /// Tokens held per slot.
    lens: Vec<usize>,
    gemms: HashMap<(usize, usize, usize), GemmPlan<T>>,
    prefill: PrefillPlan<T>,
    /// Per decode batch size: its plan and its sequences' lengths on the device.
    decode: HashMap<usize, (DecodePlan<T>, CudaSlice<i32>)>,
    /// Per decode batch size, the step captured as a CUDA graph (after one eager step warmed its plans),
    /// when the stream can capture (not the legacy default stream) and `graphs_on`.
    graphs: HashMap<usize, kernel_lab::cudarc::driver::CudaGraph>,
    /// Decode steps run eagerly per batch size (the first one warms the plans for the capture).
    eager_steps: HashMap<usize, usize>,
    /// Capture decode steps as CUDA graphs (default: on, where the stream can capture).
    pub graphs_on: bool,
    scratch: Scratch,
    last: CudaSlice<u16>,
    logits: CudaSlice<u16>,
    next: CudaSlice<i32>,
    dummy: CudaSlice<u16>,
}

/// The device's free and total memory.
fn fits(gpu: &Gpu, what: &str, bytes: usize) -> Result<()> {
    kernel_lab::runtime::budget::check(gpu, what, bytes as u64, 0)
}

impl<T: Element> Model<T> {
    /// Loads the checkpoint at `dir` (checked whole first) for up to `slots` sequences of up to `max_len`
    /// tokens each. Refused before anything is allocated when a tensor is missing or mis-shaped, the
    /// dtype is not `T`'s, or weights plus cache exceed the free memory; a failure part-way frees what
    /// was allocated (the buffers drop).
    pub fn load(gpu: &Gpu, dir: &std::path::Path, slots: usize, max_len: usize) -> Result<Model<T>> {
        let ck = Checkpoint::open(dir)?;
        let c = ck.config.clone();
        let bf16 = match T::ELEM {
            Elem::Bf16 => true,
            Elem::F16 => false,
            Elem::F32 => return Err(Error::InvalidInput("the runner takes bf16 or f16 (half::bf16, half::f16)".into())),
        };
        if bf16 != ck.bf16 {
            return Err(Error::InvalidInput(format!("{}: the weights are {} but the model was asked for {}", dir.display(), if ck.bf16 { "bf16" } else { "f16" }, T::NAME)));
        }
        if slots == 0 || slots > 65_535 || max_len == 0 || max_len > c.max_positions {
            return Err(Error::InvalidInput(format!("{slots} sequences of {max_len} tokens: need 1..=65535 sequences and 1..={} tokens (max_position_embeddings or the window)",
                                                   c.max_positions)));
        }
        // The decode kernels' limits (query heads per K/V head, head dim, batch), before anything is loaded.
        DecodeDesc::new(slots, c.heads, c.kv_heads, c.head_dim, max_len).validate()?;
        let weight_bytes = ck.check_all()?;
        let cache_bytes = 2 * c.layers * slots * c.kv_heads * max_len * c.head_dim * 2;
        let largest = [c.vocab * c.hidden, c.qkv_width() * c.hidden, 2 * c.intermediate * c.hidden].into_iter().max().unwrap_or(0) * 2;
        let lm_extra = if c.tie_embeddings { c.vocab * c.hidden * 2 } else { 0 };
        fits(gpu, "the model's weights, KV cache and load staging", weight_bytes + lm_extra + cache_bytes + largest)?;
        let load = |name: &str| -> Result<Kernel> { gpu.load_kernel(PTX, MODULE, name, k::embed_bf16::MAX_THREADS, 0) };
        let e = if bf16 { "bf16" } else { "f16" };
        let kern = Kernels { bf16, embed: load(&format!("embed_{e}"))?, add_rmsnorm: load(&format!("add_rmsnorm_{e}"))?, rope: load(&format!("rope_{e}"))?,
                             silu_mul: load(&format!("silu_mul_{e}"))?, argmax: load(&format!("argmax_{e}"))?, transpose: load("transpose16")? };
        let mut staging = gpu.zeros::<u16>(largest / 2)?;
        let ks = Ks { gpu, k: &kern };
        // A vector as it is; a projection (HF's `[out][in]`, several stacked) transposed to `[in][out]`.
        let plain = |name: &str, n: usize| -> Result<CudaSlice<u16>> {
            let b = ck.tensor(name, &[n])?;
            let mut d = gpu.zeros::<u16>(n)?;
            copy_bytes(gpu, b, &mut d, 0)?;
            Ok(d)
        };
        let mut stacked = |parts: &[(&str, usize)], cols: usize| -> Result<CudaSlice<u16>> {
            let rows: usize = parts.iter().map(|p| p.1).sum();
            let mut at = 0;
            for &(name, r) in parts {
                copy_bytes(gpu, ck.tensor(name, &[r, cols])?, &mut staging, at)?;
                at += r * cols;
            }
            let mut out = gpu.zeros::<u16>(rows * cols)?;
            ks.transpose(&staging, &mut out, rows, cols)?;
            Ok(out)
        };
        let (h, d, inter) = (c.hidden, c.head_dim, c.intermediate);
        let mut layers = vec![];
        for l in 0..c.layers {
            let p = format!("model.layers.{l}");
            let (qn, kn, vn) = (format!("{p}.self_attn.q_proj.weight"), format!("{p}.self_attn.k_proj.weight"), format!("{p}.self_attn.v_proj.weight"));
            let qkv = stacked(&[(&qn, c.heads * d), (&kn, c.kv_heads * d), (&vn, c.kv_heads * d)], h)?;
            let qkv_bias = if c.qkv_bias {
                let mut b = gpu.zeros::<u16>(c.qkv_width())?;
                let mut at = 0;
                for (name, n) in [("q_proj", c.heads * d), ("k_proj", c.kv_heads * d), ("v_proj", c.kv_heads * d)] {
                    copy_bytes(gpu, ck.tensor(&format!("{p}.self_attn.{name}.bias"), &[n])?, &mut b, at)?;
                    at += n;
                }
                Some(b)
            } else {
                None
            };
            let o = stacked(&[(&format!("{p}.self_attn.o_proj.weight"), h)], c.heads * d)?;
            let gate_up = stacked(&[(&format!("{p}.mlp.gate_proj.weight"), inter), (&format!("{p}.mlp.up_proj.weight"), inter)], h)?;
            let down = stacked(&[(&format!("{p}.mlp.down_proj.weight"), h)], inter)?;
            layers.push(Layer { attn_norm: plain(&format!("{p}.input_layernorm.weight"), h)?, qkv, qkv_bias, o,
                                mlp_norm: plain(&format!("{p}.post_attention_layernorm.weight"), h)?, gate_up, down });
        }
        let mut embed = gpu.zeros::<u16>(c.vocab * h)?;
        copy_bytes(gpu, ck.tensor("model.embed_tokens.weight", &[c.vocab, h])?, &mut embed, 0)?;
        let lm_name = if c.tie_embeddings { "model.embed_tokens.weight" } else { "lm_head.weight" };
        let lm_head = stacked(&[(lm_name, c.vocab)], h)?;
        let norm = plain("model.norm.weight", h)?;
        drop(staging);
        let table = rope::table(&rope::inv_freq(c.rope_theta, d, c.rope_scaling), max_len);
        let cos_sin = gpu.upload(&table)?;
        let per = slots * c.kv_heads * max_len * d;
        let cache = (0..c.layers).map(|_| Ok((gpu.zeros::<u16>(per)?, gpu.zeros::<u16>(per)?))).collect::<Result<Vec<_>>>()?;
        let prefill = PrefillPlan::<T>::new(gpu, PrefillDesc::new(c.heads, c.kv_heads, d).causal())?;
        gpu.sync_after("loading the model")?;
        Ok(Model { gpu: gpu.clone(), config: c.clone(), k: kern, embed, layers, norm, lm_head, cos_sin, cache, slots, max_len, lens: vec![0; slots],
                   gemms: HashMap::new(), prefill, decode: HashMap::new(), graphs: HashMap::new(),
                   eager_steps: HashMap::new(), graphs_on: !gpu.stream.cu_stream().is_null(), scratch: Scratch::default(),
                   last: gpu.zeros::<u16>(slots * h)?, logits: gpu.zeros::<u16>(slots * c.vocab)?, next: gpu.zeros::<i32>(slots)?, dummy: gpu.zeros::<u16>(8)? })
    }

    /// Sequences the cache holds room for, and tokens each.
    pub fn capacity(&self) -> (usize, usize) {
        (self.slots, self.max_len)
    }

    /// Tokens each slot holds.
    pub fn lens(&self) -> &[usize] {
        &self.lens
    }

    /// Grows the work buffers to `tokens` tokens.
    fn ensure(&mut self, tokens: usize) -> Result<()> {
        if self.scratch.tokens >= tokens && self.scratch.bufs.is_some() {
            return Ok(());
        }
        let c = &self.config;
        let g = &self.gpu;
        let n = tokens.max(self.slots);
        let z = |len: usize| g.zeros::<u16>(len);
        fits(g, "the forward pass's work buffers", n * 2 * (4 * c.hidden + c.qkv_width() + 2 * c.heads * c.head_dim + 2 * c.kv_heads * c.head_dim + 3 * c.intermediate))?;
        self.scratch = Scratch { tokens: n, bufs: Some(Bufs {
            h: z(n * c.hidden)?, x: z(n * c.hidden)?, qkv: z(n * c.qkv_width())?, q: z(n * c.heads * c.head_dim)?, k: z(n * c.kv_heads * c.head_dim)?,
            v: z(n * c.kv_heads * c.head_dim)?, attn: z(n * c.heads * c.head_dim)?, delta: z(n * c.hidden)?, gu: z(n * 2 * c.intermediate)?,
            act: z(n * c.intermediate)?, lse: g.zeros::<f32>(n * c.heads)?, ids: g.zeros::<i32>(n)?, pos: g.zeros::<i32>(n)?, slot: g.zeros::<i32>(n)?,
            rows: g.zeros::<i32>(n)? }) };
        // New buffers: graphs captured over the old ones are stale, and the next step of each batch size
        // runs eagerly again first (its GEMMs encode tensor maps for the new buffers outside any capture).
        self.graphs.clear();
        self.eager_steps.clear();
        Ok(())
    }

    /// Prefills `prompts` (token ids) into slots `0..prompts.len()` (their caches restarted) and returns
    /// each sequence's next token by `sampling`; with `all_logits`, also every position's logits
    /// (`[tokens][vocab]` f32, prompts in order) for comparing with a reference.
    pub fn prefill(&mut self, prompts: &[&[u32]], sampling: Sampling, rng: &mut Rng, all_logits: bool) -> Result<(Vec<u32>, Option<Vec<f32>>)> {
        let c = self.config.clone();
        if prompts.is_empty() || prompts.len() > self.slots {
            return Err(Error::InvalidInput(format!("{} prompts for {} cache slots", prompts.len(), self.slots)));
        }
        for (b, p) in prompts.iter().enumerate() {
            if p.is_empty() || p.len() > self.max_len {
                return Err(Error::InvalidInput(format!("prompt {b} has {} tokens: 1..={} fit the cache", p.len(), self.max_len)));
            }
            if let Some(&t) = p.iter().find(|&&t| t as usize >= c.vocab) {
                return Err(Error::InvalidInput(format!("prompt {b}: token id {t} is outside the vocabulary of {}", c.vocab)));
            }
        }
        let tokens: usize = prompts.iter().map(|p| p.len()).sum();
        self.ensure(tokens)?;
        let ids: Vec<i32> = prompts.iter().flat_map(|p| p.iter().map(|&t| t as i32)).collect();
        let pos: Vec<i32> = prompts.iter().flat_map(|p| 0..p.len() as i32).collect();
        let slot: Vec<i32> = prompts.iter().enumerate().flat_map(|(b, p)| std::iter::repeat_n(b as i32, p.len())).collect();
        let mut cu = vec![0u32];
        for p in prompts {
            cu.push(cu.last().copied().unwrap_or(0) + p.len() as u32);
        }
        {
            let b = self.scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
            let s = &self.gpu.stream;
            s.memcpy_htod(&ids, &mut b.ids.slice_mut(..tokens)).during(|| "copying ids".into())?;
            s.memcpy_htod(&pos, &mut b.pos.slice_mut(..tokens)).during(|| "copying positions".into())?;
            s.memcpy_htod(&slot, &mut b.slot.slice_mut(..tokens)).during(|| "copying slots".into())?;
        }
        self.layers_forward(tokens, Some(&cu))?;
        for (b, p) in prompts.iter().enumerate() {
            self.lens[b] = p.len();
        }
        for l in &mut self.lens[prompts.len()..] {
            *l = 0;
        }
        let full = if all_logits { Some(self.head_all(tokens)?) } else { None };
        // The last token of each sequence: gathered rows of the final normed x, then the LM head.
        let last: Vec<i32> = cu[1..].iter().map(|&e| e as i32 - 1).collect();
        self.upload_rows(&last)?;
        self.head_launch(prompts.len(), sampling)?;
        let next = self.head_read(prompts.len(), sampling, rng)?;
        Ok((next, full))
    }

    /// One decode step: `tokens[b]` appended to slot `b` (`b < tokens.len()`, every slot prefilled); returns
    /// each sequence's next token.
    pub fn decode(&mut self, tokens: &[u32], sampling: Sampling, rng: &mut Rng) -> Result<Vec<u32>> {
        let c = self.config.clone();
        let n = tokens.len();
        if n == 0 || n > self.slots {
            return Err(Error::InvalidInput(format!("{n} sequences for {} cache slots", self.slots)));
        }
        for (b, &t) in tokens.iter().enumerate() {
            if self.lens[b] == 0 || self.lens[b] >= self.max_len {
                return Err(Error::InvalidInput(format!("sequence {b} holds {} tokens: decode needs 1..{} (the cache's length)", self.lens[b], self.max_len)));
            }
            if t as usize >= c.vocab {
                return Err(Error::InvalidInput(format!("sequence {b}: token id {t} is outside the vocabulary of {}", c.vocab)));
            }
        }
        self.ensure(n)?;
        let ids: Vec<i32> = tokens.iter().map(|&t| t as i32).collect();
        let pos: Vec<i32> = self.lens[..n].iter().map(|&l| l as i32).collect();
        let slot: Vec<i32> = (0..n as i32).collect();
        let lens: Vec<i32> = pos.iter().map(|&p| p + 1).collect();
        {
            let b = self.scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
            let s = &self.gpu.stream;
            s.memcpy_htod(&ids, &mut b.ids.slice_mut(..n)).during(|| "copying ids".into())?;
            s.memcpy_htod(&pos, &mut b.pos.slice_mut(..n)).during(|| "copying positions".into())?;
            s.memcpy_htod(&slot, &mut b.slot.slice_mut(..n)).during(|| "copying slots".into())?;
        }
        if !self.decode.contains_key(&n) {
            let plan = DecodePlan::<T>::new(&self.gpu, DecodeDesc::new(n, c.heads, c.kv_heads, c.head_dim, self.max_len))?;
            self.decode.insert(n, (plan, self.gpu.zeros::<i32>(n)?));
        }
        if let Some((_, dev)) = self.decode.get_mut(&n) {
            self.gpu.stream.memcpy_htod(&lens, dev).during(|| "copying lengths".into())?;
        }
        let rows: Vec<i32> = (0..n as i32).collect();
        self.upload_rows(&rows)?;
        let eager = *self.eager_steps.get(&n).unwrap_or(&0);
        if let Some(g) = self.graphs.get(&n) {
            g.launch().during(|| format!("replaying the decode graph of batch {n}"))?;
        } else if self.graphs_on && eager > 0 {
            // Every buffer, plan and TMA map this step touches exists (the eager step made them): the
            // step's launches captured once, replayed from now on (no launch overhead per kernel).
            let stream = self.gpu.stream.clone();
            stream.begin_capture(kernel_lab::cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
                  .during(|| "beginning the decode graph's capture".into())?;
            let captured = self.layers_forward(n, None).and_then(|_| self.head_launch(n, sampling));
            let graph = stream.end_capture(kernel_lab::cudarc::driver::sys::CUgraphInstantiate_flags(0)).during(|| "ending the decode graph's capture".into());
            captured?;
            let graph = graph?.ok_or_else(|| Error::InvalidInput("the decode graph's capture recorded nothing (internal)".into()))?;
            graph.launch().during(|| format!("launching the decode graph of batch {n}"))?;
            self.graphs.insert(n, graph);
        } else {
            self.layers_forward(n, None)?;
            self.head_launch(n, sampling)?;
            self.eager_steps.insert(n, eager + 1);
        }
        for l in &mut self.lens[..n] {
            *l += 1;
        }
        self.head_read(n, sampling, rng)
    }

    /// Every layer over `tokens` tokens whose ids, positions and slots are in the work buffers; prefill
    /// (`cu`: the sequences' offsets) or decode (one token per slot `0..tokens`). Leaves the final normed
    /// rows in `x`.
    fn layers_forward(&mut self, tokens: usize, cu: Option<&[u32]>) -> Result<()> {
        let c = self.config.clone();
        let (h, d, w, inter) = (c.hidden, c.head_dim, c.qkv_width(), c.intermediate);
        let Model { gpu, k: kern, embed, layers, norm, cos_sin, cache, max_len, gemms, prefill, decode, scratch, dummy, .. } = self;
        let b = scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        let ks = Ks { gpu, k: kern };
        let vocab = c.vocab as u32;
        // SAFETY (every launch below): the kernels' contracts — `tokens` ≤ the work buffers' tokens
        // (`ensure`), each buffer sized for its layout there; ids checked < vocab on the host; positions
        // < max_len (checked: prompt ≤ max_len, decode only while len < max_len) and slots < `slots`;
        // hidden and inter multiples of 8 (config), hidden ≤ the RMSNorm kernel's 16384; 16-byte-aligned
        // fresh allocations; the cache `[slots][kv_heads][max_len][D]` per layer.
        unsafe { launch!(ks, embed, embed_bf16, embed_f16, cfg(tokens, 0), &b.ids, &*embed, &mut b.h, h as u32, vocab)? };
        for (li, layer) in layers.iter().enumerate() {
            // x = rmsnorm(h (+= delta of the previous layer's MLP)).
            unsafe { launch!(ks, add_rmsnorm, add_rmsnorm_bf16, add_rmsnorm_f16, cfg(tokens, 32), &mut b.h, &b.delta, &layer.attn_norm, &mut b.x, h as u32, c.eps, (li > 0) as u32)? };
            gemm(gemms, gpu, tokens, w, h, &b.x, &layer.qkv, &mut b.qkv)?;
            let (ck, cv) = &mut cache[li];
            let bias = layer.qkv_bias.as_ref().unwrap_or(dummy);
            unsafe {
                launch!(ks, rope, rope_bf16, rope_f16, cfg(tokens, 0), &b.qkv, bias, &b.pos, &*cos_sin, &mut b.q, &mut b.k, &mut b.v, ck, cv, &b.slot,
                        *max_len as u32, c.heads as u32, c.kv_heads as u32, d as u32, layer.qkv_bias.is_some() as u32, *max_len as u32, cu.is_some() as u32)?
            };
            let nq = tokens * c.heads * d;
            match cu {
                Some(cu) => {
                    let nkv = tokens * c.kv_heads * d;
                    prefill.run(&view::<T>(&b.q, nq)?, &view::<T>(&b.k, nkv)?, &view::<T>(&b.v, nkv)?, cu, cu, &mut view_mut::<T>(&mut b.attn, nq)?,
                                &mut b.lse.slice_mut(..tokens * c.heads))?;
                }
                None => {
                    let (plan, seq_lens) = decode.get_mut(&tokens).ok_or_else(|| Error::InvalidInput("decode plan missing (internal)".into()))?;
                    let per = tokens * c.kv_heads * *max_len * d;
                    plan.run(&view::<T>(&b.q, nq)?, &view::<T>(ck, per)?, &view::<T>(cv, per)?, None, seq_lens, *max_len,
                             &mut view_mut::<T>(&mut b.attn, nq)?, &mut b.lse.slice_mut(..tokens * c.heads))?;
                }
            }
            gemm(gemms, gpu, tokens, h, c.heads * d, &b.attn, &layer.o, &mut b.delta)?;
            unsafe { launch!(ks, add_rmsnorm, add_rmsnorm_bf16, add_rmsnorm_f16, cfg(tokens, 32), &mut b.h, &b.delta, &layer.mlp_norm, &mut b.x, h as u32, c.eps, 1u32)? };
            gemm(gemms, gpu, tokens, 2 * inter, h, &b.x, &layer.gate_up, &mut b.gu)?;
            unsafe { launch!(ks, silu_mul, silu_mul_bf16, silu_mul_f16, cfg(tokens, 0), &b.gu, &mut b.act, inter as u32)? };
            gemm(gemms, gpu, tokens, h, inter, &b.act, &layer.down, &mut b.delta)?;
        }
        unsafe { launch!(ks, add_rmsnorm, add_rmsnorm_bf16, add_rmsnorm_f16, cfg(tokens, 32), &mut b.h, &b.delta, &*norm, &mut b.x, h as u32, c.eps, 1u32)? };
        Ok(())
    }

    /// Logits of every row of `x` (`tokens` rows), downloaded as f32.
    fn head_all(&mut self, tokens: usize) -> Result<Vec<f32>> {
        let c = self.config.clone();
        let mut out = self.gpu.zeros::<u16>(tokens * c.vocab)?;
        let b = self.scratch.bufs.as_ref().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        // A plan of its own, not the shared one a decode graph of `tokens` sequences may have captured: this
        // fresh output buffer would add a tensor map to that plan's cache each call and in time evict the
        // graph's.
        let mut own: HashMap<(usize, usize, usize), GemmPlan<T>> = HashMap::new();
        gemm(&mut own, &self.gpu, tokens, c.vocab, c.hidden, &b.x, &self.lm_head, &mut out)?;
        let bits = self.gpu.download(&out)?;
        Ok(bits.into_iter().map(|x| if self.k.bf16 { bf16::from_bits(x).to_f32() } else { f16::from_bits(x).to_f32() }).collect())
    }

    /// The rows of x the LM head reads next, to the device (outside any capture).
    fn upload_rows(&mut self, rows: &[i32]) -> Result<()> {
        let b = self.scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        self.gpu.stream.memcpy_htod(rows, &mut b.rows.slice_mut(..rows.len())).during(|| "copying rows".into())
    }

    /// The LM head on `n` rows of x named by `rows` (uploaded): those rows gathered, the GEMM, and for
    /// greedy decoding the argmax (launched for sampling too: the same launches either way). Launches only
    /// (capturable).
    fn head_launch(&mut self, n: usize, sampling: Sampling) -> Result<()> {
        let c = self.config.clone();
        let Model { gpu, k: kern, scratch, gemms, lm_head, last, logits, next, .. } = self;
        let b = scratch.bufs.as_mut().ok_or_else(|| Error::InvalidInput("work buffers missing (internal)".into()))?;
        let ks = Ks { gpu, k: kern };
        let total = scratch_rows(b, c.hidden);
        // SAFETY: the embed kernel as a row gather: `rows[i]` < the rows of x (the sequences' last tokens),
        // `last` holds `slots · hidden` ≥ n · hidden; the argmax over n rows of `vocab` with 64 bytes of
        // shared memory, `next` holding `slots` ≥ n.
        unsafe { launch!(ks, embed, embed_bf16, embed_f16, cfg(n, 0), &b.rows, &b.x, last, c.hidden as u32, total as u32)? };
        gemm(gemms, gpu, n, c.vocab, c.hidden, last, lm_head, logits)?;
        // The argmax whatever the sampling, so that a captured step serves either (a graph per batch size).
        let _ = sampling;
        unsafe { launch!(ks, argmax, argmax_bf16, argmax_f16, cfg(n, 64), &*logits, next, c.vocab as u32)? };
        Ok(())
    }

    /// The next tokens after [`Model::head_launch`]: the argmax's (greedy) or drawn on the host.
    fn head_read(&mut self, n: usize, sampling: Sampling, rng: &mut Rng) -> Result<Vec<u32>> {
        let vocab = self.config.vocab;
        match sampling {
            Sampling::Greedy => {
                let ids = self.gpu.stream.clone_dtoh(&self.next.slice(..n)).during(|| "copying tokens".into())?;
                Ok(ids.into_iter().map(|t| t.max(0) as u32).collect())
            }
            Sampling::TopKTopP { temperature, top_k, top_p, .. } => {
                let bits = self.gpu.stream.clone_dtoh(&self.logits.slice(..n * vocab)).during(|| "copying logits".into())?;
                let bf = self.k.bf16;
                let f: Vec<f32> = bits.into_iter().map(|x| if bf { bf16::from_bits(x).to_f32() } else { f16::from_bits(x).to_f32() }).collect();
                Ok(f.chunks(vocab).map(|row| sample::top_k_top_p(row, temperature, top_k, top_p, rng)).collect())
            }
        }
    }
}

/// Rows the work buffer `x` holds.
fn scratch_rows(b: &Bufs, hidden: usize) -> usize {
    b.x.len() / hidden
}

/// The kernels with their GPU, for the launch macro.
struct Ks<'a> {
    gpu: &'a Gpu,
    k: &'a Kernels,
}

impl Ks<'_> {
    /// `dst` (`cols × rows`) = the first `rows × cols` of `src`, transposed.
    fn transpose(&self, src: &CudaSlice<u16>, dst: &mut CudaSlice<u16>, rows: usize, cols: usize) -> Result<()> {
        let cfg = LaunchConfig { grid_dim: (cols.div_ceil(32) as u32, rows.div_ceil(32) as u32, 1), block_dim: (256, 1, 1), shared_mem_bytes: 32 * 33 * 4 };
        if src.len() < rows * cols || dst.len() < rows * cols || rows.div_ceil(32) > 65_535 {
            return Err(Error::InvalidInput(format!("transpose of {rows}×{cols}: buffers of {} and {} elements", src.len(), dst.len())));
        }
        // SAFETY: src and dst hold rows·cols elements (checked), distinct allocations; grid ⌈cols/32⌉ ×
        // ⌈rows/32⌉ (y ≤ 65535 checked), 256 threads, 4224 bytes of shared memory.
        unsafe { k::transpose16::launch(self.gpu, &self.k.transpose, cfg, src, dst, rows as u32, cols as u32) }
    }
}

/// `c (m×n) = a (m×k) · b (k×n)` with a plan kept per shape.
#[allow(clippy::too_many_arguments)]
fn gemm<T: Element>(plans: &mut HashMap<(usize, usize, usize), GemmPlan<T>>, gpu: &Gpu, m: usize, n: usize, kk: usize, a: &CudaSlice<u16>, b: &CudaSlice<u16>,
                    c: &mut CudaSlice<u16>) -> Result<()> {
    if !plans.contains_key(&(m, n, kk)) {
        plans.insert((m, n, kk), GemmPlan::<T>::new(gpu, GemmDesc::new(m, n, kk))?);
    }
    let plan = plans.get_mut(&(m, n, kk)).ok_or_else(|| Error::InvalidInput("GEMM plan missing (internal)".into()))?;
    plan.run(&view::<T>(a, m * kk)?, &view::<T>(b, kk * n)?, &mut view_mut::<T>(c, m * n)?)
}

/// Copies the little-endian 16-bit bytes `bytes` into `dst` from element `at` on.
fn copy_bytes(gpu: &Gpu, bytes: &[u8], dst: &mut CudaSlice<u16>, at: usize) -> Result<()> {
    let n = bytes.len() / 2;
    if at + n > dst.len() {
        return Err(Error::InvalidInput(format!("{n} elements at {at} overflow a buffer of {}", dst.len())));
    }
    let mut v = dst.slice_mut(at..at + n);
    // SAFETY: u16 → u8 view of the same bytes (2n of them): plain integers.
    let mut bytes_view = unsafe { v.transmute_mut::<u8>(2 * n) }.ok_or_else(|| Error::InvalidInput("byte view (internal)".into()))?;
    gpu.stream.memcpy_htod(bytes, &mut bytes_view).during(|| "copying weights to the device".into())
}
