//! `llm`: runs a Hugging Face Llama / Mistral / Qwen2 checkpoint on the lab's kernels.
use std::{path::PathBuf, time::Instant};

use half::{bf16, f16};
use kernel_lab::{Error, Gpu, Result, comm::{Group, NormReducible}, gemm::Element};
use kernel_lab_llm::{
    chat::{self, Message, Template},
    checkpoint::Checkpoint,
    model::{Model, Paging, WeightFormat},
    sample::{Rng, Sampling},
    serve::{self, ModelEngine, Request},
};

const HELP: &str = "\
llm --model DIR (--prompt TEXT | --prompt-ids IDS | --prompt-len P | --chat) [options]
  Runs the checkpoint in DIR (config.json + *.safetensors, bf16 or f16) on the lab's kernels: prefill of the
  prompt, then decode with a KV cache, stopping at the config's eos_token_id (except with --prompt-len);
  prints the new tokens, the prefill time and the time per token.
  --prompt TEXT        the prompt as text, through DIR/tokenizer.json (or --tokenizer FILE); the new tokens are
                       printed as text too
  --prompt-ids IDS     the prompt as comma-separated token ids; several prompts of any lengths separated by `;`
                       run as one batch
  --tokenizer FILE     a tokenizer.json other than DIR's
  --slots B            continuous batching: the prompts (--prompt-ids with `;`, or --requests R random ones of
                       --prompt-len P tokens at most) served through B cache slots, each admitted as a slot frees
                       and leaving at its end-of-sequence token or --max-new; prints each reply and the throughput
  --requests R         with --slots and --prompt-len: R requests, prompt lengths drawn from P/2..=P and reply
                       budgets from max-new/2..=max-new (--seed); replies run to their budget
  --rate Q             with --requests: they arrive Q a second (Poisson, --seed) instead of all at the start;
                       prints the time to first token and per token under that load
  --preempt            with --slots and --page-size: admit a request while the pool holds the sequences' pages
                       through the next step (not each at its longest), and when a step would need more pages than
                       are free, preempt the newest sequences (their pages back; each admitted again later, its
                       reply so far recomputed with its prompt)
  --separate           with --slots: an admission's prompts run alone, then a decode step over every slot
                       (by default one pass takes the prompts and the running sequences' next tokens)
  --chat               a conversation: each line of standard input is a user's turn (an empty line or the end
                       ends it), rendered by DIR/tokenizer_config.json's chat template; the reply is printed as
                       it is generated (--max-new tokens at most, to an end-of-turn token). Each turn is appended
                       to the conversation's cached rows, not prefilled again
  --chat-template FILE the chat template from FILE instead: a tokenizer_config.json, or the Jinja text itself
  --system TEXT        with --chat: a system message first
  --max-new N          tokens to generate (default 32)
  --batch B            run B copies of the prompt as a batch (default 1)
  --max-len L          cache length per sequence (default: prompt + max-new)
  --page-size P        a paged KV cache: pages of P tokens (a multiple of 16 up to 256) in one pool shared by the
                       sequences, each holding the pages its tokens need (default: contiguous, max-len a sequence)
  --kv-pages N         with --page-size: pages in the pool (default: batch × ⌈max-len / P⌉, the contiguous size)
  --prefill-chunk N    prefill at most N tokens a step (default: the whole prompts at once): longer prompts run as
                       chunks, each attending to the cached rows before it; bounds the work buffers' memory
  --sample T,K,P       temperature, top-k (0: all), top-p; default greedy
  --seed S             the sampler's seed (default 0)
  --logits-out FILE    write the prompt's logits (f32, [tokens][vocab], little-endian) for comparison
  --json FILE          write the tokens and times as JSON
  --no-graphs          launch every decode step's kernels one by one (default: captured once as a CUDA graph)
  --profile            after the timed steps, one more decode step with an event after every launch: GPU time
                       per kernel (summed over the layers), bytes read and GB/s, against the step's time
  --ignore-eos         generate all --max-new tokens
  --fp8                quantize the projections and the LM head to FP8 at load (e4m3, a power-of-two scale per
                       128x128 block): half the weight bytes; decode on the FP8 weight-only kernel (Hopper); with
                       --tp each rank quantizes its own share
  --tp N               split the model over GPUs 0..N (tensor parallelism: heads and MLP split, an all-reduce
                       after the O and down projections); N must divide the heads, K/V heads and MLP width
  --tp-same-gpu N      the same split with N ranks sharing GPU 0 (checks the split on one GPU; not faster)
  --prompt-len P       time prefill and decode on P random ids (after an untimed warm-up) instead of --prompt-ids
  --synthetic-weights  DIR holds only config.json: the weights are drawn at random (--seed), all layers alike, no
                       *.safetensors read — for timing and memory at shapes whose checkpoint is not at hand (a
                       70B model's 140 GB); the tokens mean nothing
";

struct Opts {
    model: PathBuf,
    prompt: Vec<u32>,
    /// Further prompts (`;` in --prompt-ids): the batch is all of them.
    more: Vec<Vec<u32>>,
    text: Option<String>,
    tokenizer: Option<PathBuf>,
    prompt_len: Option<usize>,
    max_new: usize,
    batch: usize,
    max_len: Option<usize>,
    /// `--prefill-chunk` (0: none).
    prefill_chunk: usize,
    /// `--page-size` and `--kv-pages` (a paged cache).
    page_size: Option<usize>,
    kv_pages: Option<usize>,
    sampling: Sampling,
    seed: u64,
    logits_out: Option<PathBuf>,
    json: Option<PathBuf>,
    graphs: bool,
    ignore_eos: bool,
    profile: bool,
    /// The projections' format (`--fp8`).
    weights: WeightFormat,
    /// Tensor-parallel ranks, and whether they share GPU 0.
    tp: usize,
    tp_same_gpu: bool,
    /// `--synthetic-weights`: `Checkpoint::synthetic` instead of the files.
    synthetic: bool,
    /// `--slots` (continuous batching), `--requests` and `--rate`.
    slots: Option<usize>,
    requests: Option<usize>,
    rate: Option<f64>,
    /// `--preempt`: `serve::Admission::Preempt`.
    preempt: bool,
    /// `--separate`: `serve::Batching::Separate`.
    separate: bool,
    /// `--chat`, its template file and system message.
    chat: bool,
    chat_template: Option<PathBuf>,
    system: Option<String>,
}

fn parse(args: &[String]) -> std::result::Result<Option<Opts>, String> {
    let mut o = Opts { model: PathBuf::new(), prompt: vec![], more: vec![], text: None, tokenizer: None, prompt_len: None, max_new: 32, batch: 1, max_len: None, prefill_chunk: 0, page_size: None, kv_pages: None, sampling: Sampling::Greedy, seed: 0,
                       logits_out: None, json: None, graphs: true, ignore_eos: false, profile: false, weights: WeightFormat::AsStored, tp: 1, tp_same_gpu: false, synthetic: false,
                       chat: false, chat_template: None, system: None, slots: None, requests: None, rate: None, preempt: false, separate: false };
    let mut sample: Option<(f32, usize, f32)> = None;
    let mut it = args.iter();
    let num = |v: &str, what: &str| v.parse::<usize>().map_err(|_| format!("{what} `{v}` is not a non-negative integer"));
    while let Some(a) = it.next() {
        if a == "-h" || a == "--help" {
            print!("{HELP}");
            return Ok(None);
        }
        match a.as_str() {
            "--no-graphs" => { o.graphs = false; continue; }
            "--ignore-eos" => { o.ignore_eos = true; continue; }
            "--profile" => { o.profile = true; continue; }
            "--fp8" => { o.weights = WeightFormat::Fp8; continue; }
            "--synthetic-weights" => { o.synthetic = true; continue; }
            "--chat" => { o.chat = true; continue; }
            "--preempt" => { o.preempt = true; continue; }
            "--separate" => { o.separate = true; continue; }
            _ => {}
        }
        let v = it.next().ok_or_else(|| format!("{a} needs a value"))?;
        match a.as_str() {
            "--model" => o.model = PathBuf::from(v),
            "--prompt-ids" => {
                let mut seqs = v.split(';').map(|p| p.split(',').map(|x| x.trim().parse::<u32>().map_err(|_| format!("token id `{x}` is not a u32")))
                                                     .collect::<std::result::Result<Vec<_>, _>>());
                o.prompt = seqs.next().unwrap_or(Ok(vec![]))?;
                o.more = seqs.collect::<std::result::Result<_, _>>()?;
            }
            "--prompt-len" => o.prompt_len = Some(num(v, "--prompt-len")?),
            "--prompt" => o.text = Some(v.clone()),
            "--tokenizer" => o.tokenizer = Some(PathBuf::from(v)),
            "--chat-template" => o.chat_template = Some(PathBuf::from(v)),
            "--system" => o.system = Some(v.clone()),
            "--max-new" => o.max_new = num(v, "--max-new")?,
            "--batch" => o.batch = num(v, "--batch")?,
            "--max-len" => o.max_len = Some(num(v, "--max-len")?),
            "--page-size" => o.page_size = Some(num(v, "--page-size")?),
            "--slots" => o.slots = Some(num(v, "--slots")?),
            "--requests" => o.requests = Some(num(v, "--requests")?),
            "--rate" => {
                let q: f64 = v.parse().map_err(|_| format!("--rate `{v}` is not a number"))?;
                if !(q > 0.0 && q.is_finite()) {
                    return Err(format!("--rate {v}: requests a second, above 0"));
                }
                o.rate = Some(q);
            }
            "--kv-pages" => o.kv_pages = Some(num(v, "--kv-pages")?),
            "--prefill-chunk" => {
                o.prefill_chunk = num(v, "--prefill-chunk")?;
                if o.prefill_chunk == 0 {
                    return Err("--prefill-chunk must be at least 1 token (leave it out for no chunks)".into());
                }
            }
            "--seed" => o.seed = num(v, "--seed")? as u64,
            "--sample" => {
                let p: Vec<&str> = v.split(',').collect();
                let bad = || format!("--sample `{v}`: expected T,K,P (temperature > 0, top-k, 0 < top-p ≤ 1)");
                let [t, k, pp] = p[..] else { return Err(bad()) };
                let (t, k, pp) = (t.parse::<f32>().map_err(|_| bad())?, k.parse::<usize>().map_err(|_| bad())?, pp.parse::<f32>().map_err(|_| bad())?);
                if !(t > 0.0 && pp > 0.0 && pp <= 1.0) {
                    return Err(bad());
                }
                sample = Some((t, k, pp));
            }
            "--logits-out" => o.logits_out = Some(PathBuf::from(v)),
            "--json" => o.json = Some(PathBuf::from(v)),
            "--tp" | "--tp-same-gpu" => {
                o.tp = num(v, a)?;
                o.tp_same_gpu = a == "--tp-same-gpu";
                if o.tp == 0 || o.tp > kernel_lab::comm::MAX_RANKS {
                    return Err(format!("{a} {v}: 1 to {} ranks", kernel_lab::comm::MAX_RANKS));
                }
            }
            other => return Err(format!("unknown option `{other}`\n{HELP}")),
        }
    }
    if o.model.as_os_str().is_empty() {
        return Err(format!("--model DIR is required\n{HELP}"));
    }
    let prompts = [!o.prompt.is_empty(), o.text.is_some(), o.prompt_len.is_some()].iter().filter(|&&x| x).count();
    if o.chat {
        if prompts > 0 || o.batch != 1 || o.logits_out.is_some() || o.profile || o.synthetic {
            return Err("--chat takes its turns from standard input: without --prompt, --prompt-ids, --prompt-len, --batch, --logits-out, --profile and --synthetic-weights".into());
        }
    } else if prompts != 1 {
        return Err("give one of --prompt, --prompt-ids, --prompt-len and --chat".into());
    } else if o.chat_template.is_some() || o.system.is_some() {
        return Err("--chat-template and --system belong to --chat".into());
    }
    if o.batch == 0 {
        return Err("--batch must be at least 1".into());
    }
    if o.rate.is_some() && o.requests.is_none() {
        return Err("--rate times the arrivals of --requests: give --requests (with --slots and --prompt-len)".into());
    }
    if o.slots == Some(0) || o.requests == Some(0) {
        return Err("--slots and --requests must be at least 1".into());
    }
    if o.requests.is_some() != (o.slots.is_some() && o.prompt_len.is_some()) {
        return Err("--requests draws random requests for --slots: give --slots, --prompt-len and --requests together".into());
    }
    if o.slots.is_some() && (o.chat || o.batch != 1 || o.profile || o.logits_out.is_some()) {
        return Err("--slots serves the prompts through B slots: without --chat, --batch, --profile and --logits-out".into());
    }
    if !o.more.is_empty() {
        if o.batch != 1 {
            return Err("--batch copies one prompt; with several prompts (`;`) the batch is all of them".into());
        }
        o.batch = 1 + o.more.len();
    }
    if o.kv_pages.is_some() && o.page_size.is_none() {
        return Err("--kv-pages sizes a paged cache: give --page-size too".into());
    }
    if let Some(p) = o.page_size {
        if p == 0 || p % 16 != 0 || p > 256 {
            return Err(format!("--page-size {p}: a multiple of 16 from 16 to 256 tokens"));
        }
    }
    if o.preempt && (o.slots.is_none() || o.page_size.is_none()) {
        return Err("--preempt is how --slots admits to a paged cache: give --slots and --page-size".into());
    }
    if o.separate && o.slots.is_none() {
        return Err("--separate is how --slots runs an admission: give --slots".into());
    }
    if o.kv_pages == Some(0) {
        return Err("--kv-pages must be at least 1".into());
    }
    if let Some((temperature, top_k, top_p)) = sample {
        o.sampling = Sampling::TopKTopP { temperature, top_k, top_p, seed: o.seed };
    }
    Ok(Some(o))
}

fn main() {
    // NVLink multicast (NVLS) stays off (shared machines forbid it); NCCL reads this when `--tp` makes
    // its communicators.
    if std::env::var_os("NCCL_NVLS_ENABLE").is_none() {
        // SAFETY: the first statement of `main`, before this program starts any thread, so nothing
        // reads or writes the environment concurrently.
        unsafe { std::env::set_var("NCCL_NVLS_ENABLE", "0") };
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse(&args) {
        Ok(Some(o)) => o,
        Ok(None) => return,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    // The checkpoint is checked before the GPU is touched: a bad directory is reported the same with or
    // without a GPU.
    let open = if o.synthetic { Checkpoint::synthetic(&o.model, o.seed) } else { Checkpoint::open(&o.model) };
    let ck = match open.and_then(|c| c.check_all().map(|_| c)) {
        Ok(c) => {
            // A split the model cannot take is refused here too, without a GPU.
            if let Err(e) = c.config.check_split(o.tp) {
                eprintln!("error: {}: --tp{} {}: {e}", o.model.display(), if o.tp_same_gpu { "-same-gpu" } else { "" }, o.tp);
                std::process::exit(2);
            }
            c
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    // The tokenizer (for --prompt, and to print text whenever DIR has one), also before the GPU.
    let tok_path = o.tokenizer.clone().unwrap_or_else(|| o.model.join("tokenizer.json"));
    let tokenizer = if o.tokenizer.is_some() || o.text.is_some() || o.chat || tok_path.exists() {
        match tokenizers::Tokenizer::from_file(&tok_path) {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("error: {}: {e}", tok_path.display());
                std::process::exit(2);
            }
        }
    } else {
        None
    };
    let mut o = o;
    if let (Some(text), Some(t)) = (&o.text, &tokenizer) {
        match t.encode(text.as_str(), true) {
            Ok(enc) if !enc.get_ids().is_empty() => {
                o.prompt = enc.get_ids().to_vec();
                println!("prompt: {} tokens {:?}", o.prompt.len(), o.prompt);
            }
            Ok(_) => {
                eprintln!("error: the prompt encodes to no tokens");
                std::process::exit(2);
            }
            Err(e) => {
                eprintln!("error: encoding the prompt with {}: {e}", tok_path.display());
                std::process::exit(2);
            }
        }
    }
    // The chat template, also before the GPU.
    let template = if o.chat {
        match chat_template(&o) {
            Ok(t) => Some(t),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(2);
            }
        }
    } else {
        None
    };
    kernel_lab::runtime::gpu::main_on_gpu("`llm` runs the model on a GPU; the checkpoint above was checked.", |gpu| {
        match (&template, &tokenizer) {
            (Some(t), Some(tok)) if ck.bf16 => run_chat::<bf16>(gpu, &o, ck, tok, t),
            (Some(t), Some(tok)) => run_chat::<f16>(gpu, &o, ck, tok, t),
            _ if o.slots.is_some() && ck.bf16 => run_serve::<bf16>(gpu, &o, ck, tokenizer.as_ref()),
            _ if o.slots.is_some() => run_serve::<f16>(gpu, &o, ck, tokenizer.as_ref()),
            _ if ck.bf16 => run::<bf16>(gpu, &o, ck, tokenizer.as_ref()),
            _ => run::<f16>(gpu, &o, ck, tokenizer.as_ref()),
        }
    })
}

/// `--chat`'s template: `--chat-template FILE` (a tokenizer_config.json, or the Jinja text with DIR's
/// tokenizer_config.json's special tokens where it has them), else DIR/tokenizer_config.json's.
fn chat_template(o: &Opts) -> std::result::Result<Template, String> {
    let Some(path) = &o.chat_template else { return Template::load(&o.model) };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if path.extension().is_some_and(|x| x == "json") {
        return Template::from_config(&text, &path.display().to_string());
    }
    let (bos, eos) = Template::load(&o.model).map(|t| (t.bos, t.eos)).unwrap_or_default();
    Template::new(&text, bos, eos).map_err(|e| format!("{}: {e}", path.display()))
}

/// The stream of a run of the model: the runner's own (the context's default stream cannot be captured
/// into a graph), and the group its ranks form with `--tp`.
fn stream_and_group(gpu: &Gpu, o: &Opts) -> Result<(Gpu, Option<Group>)> {
    let stream = gpu.ctx.new_stream().map_err(|e| Error::InvalidInput(format!("creating a stream: {e}")))?;
    let gpu = Gpu::with_stream(stream)?;
    let group = match (o.tp, o.tp_same_gpu) {
        (1, _) => None,
        (n, false) => Some(Group::new(&(0..n).collect::<Vec<_>>())?),
        (n, true) => Some(Group::same_gpu(&gpu, n)?),
    };
    Ok((gpu, group))
}

/// The model with `--page-size`'s paged cache (its pool `--kv-pages`, or as many pages as the contiguous
/// cache's tokens) or a contiguous one.
fn load<T: Element + NormReducible>(gpu: &Gpu, group: Option<Group>, ck: Checkpoint, o: &Opts, slots: usize, max_len: usize) -> Result<Model<T>> {
    match o.page_size {
        Some(page_size) => {
            let pages = o.kv_pages.unwrap_or(slots * max_len.div_ceil(page_size));
            Model::<T>::from_checkpoint_paged(gpu, group, ck, slots, max_len, Paging { page_size, pages }, o.weights)
        }
        None => Model::<T>::from_checkpoint(gpu, group, ck, slots, max_len, o.weights),
    }
}

/// A number drawn uniformly from `lo..=hi`.
fn draw_in(r: &mut Rng, lo: usize, hi: usize) -> usize {
    lo + ((r.next_f64() * (hi - lo + 1) as f64) as usize).min(hi - lo)
}

/// The largest id the timing runs' random prompts draw (from 1): 1000, or less inside a smaller vocabulary.
fn random_id_top(vocab: usize) -> usize {
    vocab.saturating_sub(1).clamp(1, 1000)
}

/// `--slots B`: the requests served by continuous batching through B slots.
fn run_serve<T: Element + NormReducible>(gpu: &Gpu, o: &Opts, ck: Checkpoint, tokenizer: Option<&tokenizers::Tokenizer>) -> Result<()> {
    let (gpu, group) = stream_and_group(gpu, o)?;
    let slots = o.slots.unwrap_or(1);
    let mut r = Rng::new(o.seed ^ 0x5eed);
    let mut draw = |lo: usize, hi: usize| draw_in(&mut r, lo, hi);
    let top = random_id_top(ck.config.vocab);
    let requests: Vec<Request> = match (o.requests, o.prompt_len) {
        (Some(n), Some(p)) => {
            let (mut at, mut gaps) = (0.0, Rng::new(o.seed ^ 0xa881));
            (0..n).map(|_| {
                let len = draw(p.div_ceil(2).max(1), p.max(1));
                let q = Request::new((0..len).map(|_| draw(1, top) as u32).collect(), draw(o.max_new.div_ceil(2).max(1), o.max_new.max(1)));
                // Poisson arrivals at --rate: exponential gaps (the first request at the start).
                let here = at;
                if let Some(rate) = o.rate {
                    at += -(1.0 - gaps.next_f64()).ln() / rate * 1e3;
                }
                q.at(here)
            }).collect()
        }
        _ => std::iter::once(&o.prompt).chain(&o.more).map(|p| Request::new(p.clone(), o.max_new)).collect(),
    };
    let longest = requests.iter().map(|q| q.prompt.len() + q.max_new).max().unwrap_or(1);
    let max_len = o.max_len.unwrap_or(longest);
    let mut model = load::<T>(&gpu, group, ck, o, slots, max_len)?;
    model.graphs_on &= o.graphs;
    model.set_prefill_chunk(o.prefill_chunk);
    // Random requests run to their budget; given prompts stop at the config's end-of-sequence ids.
    let stop = if o.requests.is_some() || o.ignore_eos { vec![] } else { model.config.eos.clone() };
    let paged = model.pages().map(|(_, n, size)| format!(", a paged cache of {n} pages of {size} tokens")).unwrap_or_default();
    println!("serving {} requests through {slots} slots of {max_len} tokens{paged}", requests.len());
    // One untimed pass first: the first `slots` requests with staggered reply budgets (2, 3, …), so the
    // largest admission sizes the work buffers and every batch size's decode graph is captured, the kernels
    // loaded and the GEMMs planned, outside the timed run.
    // One request more than the slots (where there is one) is admitted beside running ones: a mixed step.
    let warm: Vec<Request> = requests.iter().take(slots + 1).enumerate().map(|(i, q)| Request::new(q.prompt.clone(), (i + 2).min(q.max_new.max(2)))).collect();
    serve::serve(&mut ModelEngine { model: &mut model, sampling: o.sampling, rng: Rng::new(o.seed) }, &warm, &[])?;
    let admission = if o.preempt { serve::Admission::Preempt } else { serve::Admission::Reserve };
    let batching = if o.separate { serve::Batching::Separate } else { serve::Batching::Mixed };
    let (served, sum) = serve::serve_with(&mut ModelEngine { model: &mut model, sampling: o.sampling, rng: Rng::new(o.seed) }, &requests, &stop, admission,
                                          batching, &mut serve::WallClock::start(), &mut |_, _| {})?;
    for (i, s) in served.iter().enumerate().take(if o.requests.is_some() { 0 } else { served.len() }) {
        println!("tokens [{i}]: {:?}", s.tokens);
        if let Some(t) = tokenizer {
            match t.decode(&s.tokens, true) {
                Ok(text) => println!("text [{i}]: {text}"),
                Err(e) => println!("text [{i}]: (the tokenizer could not decode them: {e})"),
            }
        }
    }
    // Time to first token (from each request's arrival) and per token after it.
    let first: Vec<f64> = served.iter().zip(&requests).map(|(s, q)| s.time_to_first(q.arrival_ms)).collect();
    let per_token: Vec<f64> = served.iter().filter(|s| s.tokens.len() > 1).map(|s| s.time_per_token()).collect();
    let pct = |v: &[f64], p: f64| -> f64 {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v.get(((v.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(0.0)
    };
    let load = o.rate.map(|q| format!(", arriving {q} a second")).unwrap_or_default();
    println!("{} tokens in {:.1} ms: {:.0} tokens/s{load}; {} decode steps (up to {} sequences a step), {} admissions ({} mixed){}", sum.generated, sum.ms,
             sum.generated as f64 / (sum.ms / 1e3), sum.decode_steps, sum.widest, sum.admissions, sum.mixed_steps,
             if o.preempt { format!(", {} preemptions", sum.preemptions) } else { String::new() });
    println!("time to first token: median {:.1} ms, p90 {:.1} ms; per token after it: median {:.2} ms, p90 {:.2} ms", pct(&first, 0.5), pct(&first, 0.9),
             pct(&per_token, 0.5), pct(&per_token, 0.9));
    if let Some(path) = &o.json {
        let v = serde_json::json!({"gpu": gpu.info.name, "dtype": T::NAME, "slots": slots, "requests": requests.len(), "max_len": max_len,
                                   "kv_pages": model.pages().map(|(_, n, size)| (n, size)), "prefill_chunk": o.prefill_chunk, "generated": sum.generated,
                                   "ms": sum.ms, "decode_steps": sum.decode_steps, "admissions": sum.admissions, "mixed_steps": sum.mixed_steps, "batching": format!("{batching:?}"), "preemptions": sum.preemptions, "widest": sum.widest,
                                   "rate": o.rate, "arrival_ms": requests.iter().map(|q| q.arrival_ms).collect::<Vec<_>>(), "time_to_first_ms": first,
                                   "per_token_ms": served.iter().map(|s| (s.tokens.len() > 1).then(|| s.time_per_token())).collect::<Vec<_>>(), "replies": served.iter().map(|s| s.tokens.clone()).collect::<Vec<_>>()});
        std::fs::write(path, serde_json::to_string_pretty(&v).unwrap_or_default()).map_err(|e| Error::InvalidInput(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// `--chat`: a conversation on standard input, one user turn a line.
fn run_chat<T: Element + NormReducible>(gpu: &Gpu, o: &Opts, ck: Checkpoint, tokenizer: &tokenizers::Tokenizer, template: &Template) -> Result<()> {
    use std::io::{BufRead, Write};
    let (gpu, group) = stream_and_group(gpu, o)?;
    let max_len = o.max_len.unwrap_or(4096).min(ck.config.max_positions);
    let mut model = load::<T>(&gpu, group, ck, o, 1, max_len)?;
    model.graphs_on &= o.graphs;
    model.set_prefill_chunk(o.prefill_chunk);
    // The turn ends at the config's end-of-sequence ids or the template's end token.
    let mut stop = model.config.eos.clone();
    stop.extend(tokenizer.token_to_id(&template.eos));
    let enc = |text: &str| -> Result<Vec<u32>> {
        // The template writes the special tokens itself: none added here.
        tokenizer.encode(text, false).map(|e| e.get_ids().to_vec()).map_err(|e| Error::InvalidInput(format!("encoding the conversation: {e}")))
    };
    // The reply's text so far, printed after what `shown` holds (whole characters only). A tokenizer may
    // write a token's text otherwise once the next one follows (a leading space, a byte sequence): then
    // nothing more streams, and the whole reply is printed again at its end.
    let show = |reply: &[u32], shown: &mut String, last: bool| -> Result<String> {
        let text = tokenizer.decode(reply, true).map_err(|e| Error::InvalidInput(format!("decoding the reply: {e}")))?;
        if !text.starts_with(shown.as_str()) {
            if last {
                print!("\n[the reply, as the tokenizer writes it whole] {text}");
            }
        } else if text.len() > shown.len() && (last || !text.ends_with(char::REPLACEMENT_CHARACTER)) {
            print!("{}", &text[shown.len()..]);
            let _ = std::io::stdout().flush();
            *shown = text.clone();
        }
        Ok(text)
    };
    let mut messages: Vec<Message> = o.system.iter().map(|s| Message::new("system", s)).collect();
    // What the cache holds: the last rendering's tokens and the reply's tokens fed back since.
    let mut cached: Vec<u32> = vec![];
    let mut rng = Rng::new(o.seed);
    eprintln!("chat: {max_len} tokens of cache (--max-len); a turn a line, an empty line ends");
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| Error::InvalidInput(format!("reading standard input: {e}")))?;
        if line.trim().is_empty() {
            break;
        }
        messages.push(Message::new("user", &line));
        let ids = enc(&template.render(&messages, true).map_err(Error::InvalidInput)?)?;
        if ids.len() + o.max_new > max_len {
            return Err(Error::InvalidInput(format!("the conversation's {} tokens and a reply of up to {} do not fit the cache's {max_len} (--max-len)", ids.len(), o.max_new)));
        }
        let (keep, add) = chat::continuation(&cached, &ids);
        model.truncate(0, keep)?;
        let t = Instant::now();
        let (next, _) = model.extend(&[(0, add)], o.sampling, &mut rng, false)?;
        let prefill_ms = t.elapsed().as_secs_f64() * 1e3;
        let appended = add.len();
        cached = ids;
        let (mut reply, mut tok, mut shown) = (vec![], next[0], String::new());
        let t = Instant::now();
        while !stop.contains(&tok) && reply.len() < o.max_new {
            reply.push(tok);
            show(&reply, &mut shown, false)?;
            if reply.len() == o.max_new {
                break;
            }
            // The token goes into the cache with the step that computes the next.
            tok = model.decode(&[tok], o.sampling, &mut rng)?[0];
            cached.push(reply[reply.len() - 1]);
        }
        let text = show(&reply, &mut shown, true)?;
        println!();
        eprintln!("[{appended} tokens appended after {keep} cached: {prefill_ms:.1} ms; {} reply tokens, {:.2} ms each]", reply.len(),
                  t.elapsed().as_secs_f64() * 1e3 / reply.len().saturating_sub(1).max(1) as f64);
        messages.push(Message::new("assistant", &text));
    }
    Ok(())
}

fn run<T: Element + NormReducible>(gpu: &Gpu, o: &Opts, ck: Checkpoint, tokenizer: Option<&tokenizers::Tokenizer>) -> Result<()> {
    let t0 = Instant::now();
    let (gpu, group) = stream_and_group(gpu, o)?;
    let gpu = &gpu;
    let prompt: Vec<u32> = match o.prompt_len {
        Some(n) if o.prompt.is_empty() => {
            let mut r = Rng::new(o.seed ^ 0x5eed);
            let top = random_id_top(ck.config.vocab);
            (0..n).map(|_| draw_in(&mut r, 1, top) as u32).collect()
        }
        _ => o.prompt.clone(),
    };
    let longest = o.more.iter().map(Vec::len).chain([prompt.len()]).max().unwrap_or(0);
    // `KERNEL_LAB_LLM_REPLAY=N` (timing runs): after the timed steps, the decode graph replayed N times back
    // to back — the GPU's time per step without the host's share between steps (room for N more tokens).
    let replays = std::env::var("KERNEL_LAB_LLM_REPLAY").ok().and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(0);
    let max_len = o.max_len.unwrap_or(longest + o.max_new + 2 + o.profile as usize + replays);
    let synthetic = ck.is_synthetic();
    let mut model = load::<T>(gpu, group, ck, o, o.batch, max_len)?;
    model.graphs_on &= o.graphs;
    model.set_prefill_chunk(o.prefill_chunk);
    let load_s = t0.elapsed().as_secs_f64();
    let c = &model.config;
    let split = if model.world() > 1 { format!(", split over {} ranks{}", model.world(), if o.tp_same_gpu { " on one GPU" } else { "" }) } else { String::new() };
    println!("model {} ({:?}, {} layers, hidden {}, heads {}/{}, vocab {}), {}{split}{}; loaded in {load_s:.1} s", o.model.display(), c.arch, c.layers, c.hidden, c.heads,
             c.kv_heads, c.vocab, if o.weights == WeightFormat::Fp8 { format!("{} activations, FP8 weights", T::NAME) } else { T::NAME.to_string() },
             if synthetic { ", synthetic weights (random, all layers alike: the tokens mean nothing)" } else { "" });
    if let Some((_, pages, size)) = model.pages() {
        println!("KV cache: paged, {pages} pages of {size} tokens shared by {} sequences of up to {max_len}", o.batch);
    }
    // Where the kernels' sm_90a build runs, each launch may start while the previous kernel finishes.
    let pdl = gpu.runs(kernel_lab::runtime::ptx::Target::Sm90a) && kernel_lab::runtime::gpu::pdl_enabled();
    println!("launches: {}", if pdl { "programmatic dependent launch (KERNEL_LAB_PDL=0: plain)" } else { "plain (no PDL on this GPU, or KERNEL_LAB_PDL=0)" });
    let mut rng = Rng::new(o.seed);
    let prompts: Vec<&[u32]> = if o.more.is_empty() {
        (0..o.batch).map(|_| prompt.as_slice()).collect()
    } else {
        std::iter::once(prompt.as_slice()).chain(o.more.iter().map(Vec::as_slice)).collect()
    };
    // Timing runs (--prompt-len): one untimed prefill and two decode steps first — the first launches of
    // each shape plan their GEMMs and load the kernels.
    if o.prompt_len.is_some() {
        let (warm, _) = model.prefill(&prompts, o.sampling, &mut rng, false)?;
        let warm = model.decode(&warm, o.sampling, &mut rng)?;
        model.decode(&warm, o.sampling, &mut rng)?;
    }
    model.synchronize("warm-up")?;
    let t = Instant::now();
    let (mut next, logits) = model.prefill(&prompts, o.sampling, &mut rng, o.logits_out.is_some())?;
    model.synchronize("prefill")?;
    let prefill_ms = t.elapsed().as_secs_f64() * 1e3;
    if let (Some(path), Some(l)) = (&o.logits_out, logits) {
        let bytes: Vec<u8> = l.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(path, bytes).map_err(|e| Error::InvalidInput(format!("cannot write {}: {e}", path.display())))?;
    }
    let mut out: Vec<Vec<u32>> = next.iter().map(|&t| vec![t]).collect();
    // Generation stops once every sequence has produced an end-of-sequence token (timing runs go on).
    let eos = if o.prompt_len.is_some() || o.ignore_eos { vec![] } else { model.config.eos.clone() };
    let mut ended: Vec<bool> = next.iter().map(|t| eos.contains(t)).collect();
    let done = !eos.is_empty() && ended.iter().all(|&e| e);
    let t = Instant::now();
    // Greedy on one GPU the host reads each step's tokens while the next step runs (`Model::decode_steps`).
    let want = if done { 0 } else { o.max_new.saturating_sub(1) };
    // When each step's tokens reached the host: the steps' wall times one by one (the first after the prompt
    // against the rest).
    let mut arrived: Vec<f64> = Vec::with_capacity(want);
    let ran = model.decode_steps(&next, want, o.sampling, &mut rng, |ids| {
        arrived.push(t.elapsed().as_secs_f64() * 1e3);
        for (e, t) in ended.iter_mut().zip(ids) {
            *e |= eos.contains(t);
        }
        !eos.is_empty() && ended.iter().all(|&e| e)
    })?;
    model.synchronize("decode")?;
    let steps = ran.len();
    for ids in ran {
        for (s, &t) in out.iter_mut().zip(&ids) {
            s.push(t);
        }
        next = ids;
    }
    let steps = steps.max(1);
    let ms_tok = t.elapsed().as_secs_f64() * 1e3 / steps as f64;
    // Each step's wall time: from the previous step's tokens (the first: from the decode's start) to its own.
    let step_ms: Vec<f64> = arrived.iter().scan(0.0, |prev, &a| Some(a - std::mem::replace(prev, a))).collect();
    let chunked = if o.prefill_chunk > 0 { format!(" (in chunks of ≤ {} tokens)", o.prefill_chunk) } else { String::new() };
    println!("prompt {} tokens × batch {}: prefill {prefill_ms:.2} ms{chunked}; decode {ms_tok:.3} ms per step ({:.1} tokens/s per sequence)", prompt.len(), o.batch,
             1e3 / ms_tok);
    if step_ms.len() >= 3 {
        let mut sorted = step_ms.clone();
        sorted.sort_by(f64::total_cmp);
        println!("decode steps one by one: the first {:.3} ms, the second {:.3}, the median {:.3}, the slowest {:.3}", step_ms[0], step_ms[1],
                 sorted[sorted.len() / 2], sorted[sorted.len() - 1]);
    }
    // Every sequence's tokens (a batch of copies: the first's).
    let shown = if o.more.is_empty() { 1 } else { out.len() };
    for (i, seq) in out.iter().take(shown).enumerate() {
        let tag = if shown > 1 { format!(" [{i}]") } else { String::new() };
        println!("tokens{tag}: {seq:?}");
        if let Some(t) = tokenizer {
            match t.decode(seq, true) {
                Ok(text) => println!("text{tag}: {text}"),
                Err(e) => println!("text{tag}: (the tokenizer could not decode them: {e})"),
            }
        }
    }
    // A replay that cannot run is reported; the timed run's results are still written.
    let replay_ms = model.replay_decode(o.batch, replays).unwrap_or_else(|e| {
        eprintln!("note: the decode graph was not replayed: {e}");
        None
    });
    if let Some(r) = replay_ms {
        println!("the decode graph replayed {replays} times back to back: {r:.3} ms per step (the host's share of a step: {:.3} ms)", ms_tok - r);
    }
    let mut profile = serde_json::Value::Null;
    if o.profile {
        // A profile that cannot run (a cache with no room left for one more token) is reported, and the
        // timed run's results are still written.
        match model.decode_profiled(&next, o.sampling, &mut rng) {
            Ok((_, launches)) => profile = print_profile(&launches, ms_tok),
            Err(e) => eprintln!("note: the profiled step did not run: {e}"),
        }
    }
    if let Some(path) = &o.json {
        let v = serde_json::json!({"profile": profile, "gpu": gpu.info.name, "dtype": T::NAME, "graphs": model.graphs_on, "weights": format!("{:?}", o.weights), "tp": model.world(), "tp_same_gpu": o.tp_same_gpu, "synthetic_weights": synthetic, "prompt_len": prompt.len(), "batch": o.batch, "prefill_ms": prefill_ms,
                                   "prefill_chunk": o.prefill_chunk, "kv_pages": model.pages().map(|(_, n, size)| (n, size)),
                                   "decode_ms_per_step": ms_tok, "decode_step_ms": step_ms, "replay_ms_per_step": replay_ms, "tokens": out, "load_s": load_s, "pdl": pdl});
        std::fs::write(path, serde_json::to_string_pretty(&v).unwrap_or_default()).map_err(|e| Error::InvalidInput(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// The profiled step's launches summed by name (in first-launch order): count, µs, share of the sum, and
/// GB/s where the bytes are counted; printed, and returned for `--json`.
fn print_profile(launches: &kernel_lab_llm::model::Profile, step_ms: f64) -> serde_json::Value {
    let mut rows: Vec<(String, usize, f64, u64)> = vec![];
    for (l, us) in launches {
        match rows.iter_mut().find(|r| r.0 == l.name) {
            Some(r) => {
                r.1 += 1;
                r.2 += us;
                r.3 += l.bytes;
            }
            None => rows.push((l.name.clone(), 1, *us, l.bytes)),
        }
    }
    let total: f64 = rows.iter().map(|r| r.2).sum();
    println!("profile of one decode step (rank 0, eager behind a hold, an event after each launch): {:.3} ms of kernels; the timed steps took {step_ms:.3} ms each",
             total / 1e3);
    println!("| launch | count | µs | µs each | share | GB/s |\n|---|---|---|---|---|---|");
    for (name, n, us, bytes) in &rows {
        let rate = if *bytes > 0 { format!("{:.0}", *bytes as f64 / (us * 1e3)) } else { String::new() };
        println!("| {name} | {n} | {us:.1} | {:.2} | {:.1}% | {rate} |", us / *n as f64, 100.0 * us / total);
    }
    serde_json::json!({"kernels_ms": total / 1e3, "rows": rows.iter().map(|(name, n, us, bytes)| serde_json::json!({"name": name, "count": n, "us": us, "bytes": bytes}))
                                                          .collect::<Vec<_>>()})
}
