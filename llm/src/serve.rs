//! Continuous batching: requests of any prompt and reply length served through the model's cache slots.
//! A request is admitted into a free slot as soon as one frees (its prompt appended by `Model::extend`
//! together with the step's other admissions, in chunks), every occupied slot advances one token a decode
//! step, and a finished sequence leaves at once: the sequence in the last occupied slot moves into its
//! slot (`Model::move_slot`: a paged cache swaps block-table rows, a contiguous one copies the rows), so
//! the occupied slots are always `0..n`, the rows a decode step runs (and its CUDA graph of batch `n`).
//!
//! [`Batching::Mixed`] (the default) runs an admission and the occupied slots' next tokens as one step: the
//! newcomers' prompts and each running sequence's last token go through one forward pass (`Model::mixed`:
//! the GEMMs over all rows, the running rows' attention by the decode kernels on the cache, the prompts' by
//! the prefill kernels — vLLM's and Sarathi-Serve's batches of prefill and decode tokens), so the running
//! sequences do not wait out the admission and then pay a decode step of their own: the weights are read
//! once for both. [`Batching::Separate`] extends, then runs a decode
//! step over every slot, newcomers included.
//!
//! On a paged cache, [`Admission::Reserve`] (the default) admits a request only while the pool holds the
//! pages of every admitted sequence at its longest (prompt and reply budget): no sequence ever waits for a
//! page mid-reply. [`Admission::Preempt`] admits a request while the pool holds the sequences and its prompt
//! through the next decode step, and before a decode step that would need more pages than are free it preempts the most
//! recently admitted sequences (vLLM's recompute preemption): each gives its pages back and waits at the head
//! of the queue, to be admitted again with its prompt and its reply so far as one prompt. Requests are
//! taken in the order they arrive (first come, first served): all at the start, or each at its own time
//! ([`Request::at`]: a load of so many requests a second, as a server sees it), the engine idle until the
//! next one arrives when it has nothing to run. [`serve_with`] hands each token to a callback as it is
//! generated (a server's stream) and takes the clock it runs by.
use std::{
    borrow::Cow,
    collections::VecDeque,
    time::{Duration, Instant},
};

use kernel_lab::{Error, Result, comm::NormReducible, gemm::Element};

use crate::{
    model::Model,
    sample::{Rng, Sampling},
};

/// What serving needs of a model (implemented for [`Model`] by [`ModelEngine`]; the tests' own engine
/// checks the scheduling on the CPU).
pub trait Engine {
    /// Cache slots.
    fn slots(&self) -> usize;
    /// Tokens a slot may hold.
    fn max_len(&self) -> usize;
    /// A paged cache's `(pages, page_size)`; `None` for a contiguous one (each slot its `max_len`).
    fn pool(&self) -> Option<(usize, usize)>;
    /// Appends tokens to empty slots ([`Model::extend`]); each sequence's next token.
    fn extend(&mut self, seqs: &[(usize, &[u32])]) -> Result<Vec<u32>>;
    /// One decode step over slots `0..tokens.len()` ([`Model::decode`]).
    fn decode(&mut self, tokens: &[u32]) -> Result<Vec<u32>>;
    /// One step of both ([`Batching::Mixed`], [`Model::mixed`]): each occupied slot `b < tokens.len()` appends
    /// `tokens[b]` (a decode step's work) and each of `seqs` its prompt into an empty slot (an admission's),
    /// in one forward pass; the occupied slots' next tokens, then each of `seqs`'.
    fn mixed(&mut self, tokens: &[u32], seqs: &[(usize, &[u32])]) -> Result<Vec<u32>>;
    /// Empties a slot ([`Model::release`]).
    fn release(&mut self, slot: usize) -> Result<()>;
    /// Moves a sequence into an empty slot ([`Model::move_slot`]).
    fn move_slot(&mut self, from: usize, to: usize) -> Result<()>;
}

/// A [`Model`] with its sampling, as an [`Engine`].
pub struct ModelEngine<'a, T: Element + NormReducible> {
    pub model: &'a mut Model<T>,
    pub sampling: Sampling,
    pub rng: Rng,
}

impl<T: Element + NormReducible> Engine for ModelEngine<'_, T> {
    fn slots(&self) -> usize {
        self.model.capacity().0
    }
    fn max_len(&self) -> usize {
        self.model.capacity().1
    }
    fn pool(&self) -> Option<(usize, usize)> {
        self.model.pages().map(|(_, pages, size)| (pages, size))
    }
    fn extend(&mut self, seqs: &[(usize, &[u32])]) -> Result<Vec<u32>> {
        self.model.extend(seqs, self.sampling, &mut self.rng, false).map(|r| r.0)
    }
    fn decode(&mut self, tokens: &[u32]) -> Result<Vec<u32>> {
        self.model.decode(tokens, self.sampling, &mut self.rng)
    }
    fn mixed(&mut self, tokens: &[u32], seqs: &[(usize, &[u32])]) -> Result<Vec<u32>> {
        self.model.mixed(tokens, seqs, self.sampling, &mut self.rng)
    }
    fn release(&mut self, slot: usize) -> Result<()> {
        self.model.release(slot)
    }
    fn move_slot(&mut self, from: usize, to: usize) -> Result<()> {
        self.model.move_slot(from, to)
    }
}

/// One request: a prompt, how many tokens its reply may have, and when it arrives.
#[derive(Clone, Debug, Default)]
pub struct Request {
    pub prompt: Vec<u32>,
    pub max_new: usize,
    /// Milliseconds after the start (0: there from the start).
    pub arrival_ms: f64,
}

impl Request {
    /// A request there from the start.
    pub fn new(prompt: Vec<u32>, max_new: usize) -> Request {
        Request { prompt, max_new, arrival_ms: 0.0 }
    }

    /// The same request arriving `ms` after the start.
    pub fn at(self, ms: f64) -> Request {
        Request { arrival_ms: ms, ..self }
    }
}

/// A request's reply and when it came.
#[derive(Clone, Debug, Default)]
pub struct Served {
    /// The reply: up to `max_new` tokens, the last one a stop token where one ended it.
    pub tokens: Vec<u32>,
    /// Decode steps the run had made when it was admitted (counted from the start of the run, not from
    /// its arrival).
    pub waited_steps: usize,
    /// Milliseconds from the start to its first token, and to its last (stamped when the step that made
    /// it returned).
    pub first_ms: f64,
    pub done_ms: f64,
}

impl Served {
    /// Milliseconds from its arrival to its first token (`arrival_ms`: the request's).
    pub fn time_to_first(&self, arrival_ms: f64) -> f64 {
        self.first_ms - arrival_ms
    }

    /// Milliseconds between its tokens after the first (0 for a reply of one token).
    pub fn time_per_token(&self) -> f64 {
        if self.tokens.len() > 1 { (self.done_ms - self.first_ms) / (self.tokens.len() - 1) as f64 } else { 0.0 }
    }
}

/// The time a run goes by: milliseconds since its start, and a wait until a later one (the engine idle
/// until the next request arrives).
pub trait Clock {
    fn now_ms(&mut self) -> f64;
    fn wait_until(&mut self, ms: f64);
}

/// The wall clock, from when it was made.
pub struct WallClock(Instant);

impl WallClock {
    pub fn start() -> WallClock {
        WallClock(Instant::now())
    }
}

impl Clock for WallClock {
    fn now_ms(&mut self) -> f64 {
        self.0.elapsed().as_secs_f64() * 1e3
    }
    fn wait_until(&mut self, ms: f64) {
        let now = self.now_ms();
        if ms > now {
            std::thread::sleep(Duration::from_secs_f64((ms - now) / 1e3));
        }
    }
}

/// How requests are admitted to a paged cache's pool (a contiguous cache holds each slot at its longest:
/// both are the same there).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Admission {
    /// While the pool holds every admitted sequence at its longest (prompt and reply budget): no sequence
    /// ever waits for a page, at the price of pages held for replies that end early.
    #[default]
    Reserve,
    /// While the pool holds the pages the sequences and the newcomer's prompt need through the next decode
    /// step (so no admission is preempted before its first step); a decode step that
    /// would need more pages than are free first preempts the most recently admitted sequences (their
    /// pages back to the pool, each first in the queue again, its reply so far appended to its prompt and
    /// recomputed when it is admitted again). The oldest sequence is never preempted: alone it always fits,
    /// since a request whose longest does not fit the pool is refused up front.
    Preempt,
}

/// How a step that admits requests runs beside the sequences already decoding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Batching {
    /// One forward pass takes the newcomers' prompts and every running sequence's next token
    /// ([`Engine::mixed`]): the newcomers get their first token, the others their next, and no decode step
    /// follows in that round. With [`Admission::Preempt`] a newcomer is admitted only with the pages the
    /// sequences need through the mixed step and the decode step after it.
    #[default]
    Mixed,
    /// The newcomers' prompts alone ([`Engine::extend`]), then a decode step over every slot (the running
    /// sequences wait out the prefill).
    Separate,
}

/// The whole run: decode steps, admission steps (`extend` or `mixed` calls), tokens generated, milliseconds.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub decode_steps: usize,
    pub admissions: usize,
    /// Admission steps that also advanced the running sequences ([`Batching::Mixed`]; counted in
    /// `admissions`, not in `decode_steps`).
    pub mixed_steps: usize,
    /// Sequences preempted ([`Admission::Preempt`]; a sequence preempted twice counts twice).
    pub preemptions: usize,
    pub generated: usize,
    pub ms: f64,
    /// The most sequences a decode or mixed step ran.
    pub widest: usize,
}

/// Tokens a request's sequence holds at its longest: its prompt and its reply but the last token (which
/// ends the reply without going back into the cache).
fn longest(r: &Request) -> usize {
    r.prompt.len() + r.max_new - 1
}

/// Pages a request holds at its longest on `page_size`-token pages.
fn worst_pages(r: &Request, page_size: usize) -> usize {
    longest(r).div_ceil(page_size)
}

/// Serves `requests` through `engine`'s slots (every slot emptied first) on the wall clock, admitting by
/// [`Admission::Reserve`], batching by [`Batching::Mixed`]: replies end at `max_new` tokens or at a token of `stop`. Requests that could
/// never run (empty, no reply budget, longer than a slot, more pages than the pool) are refused before
/// anything runs, naming the first.
pub fn serve<E: Engine>(engine: &mut E, requests: &[Request], stop: &[u32]) -> Result<(Vec<Served>, Summary)> {
    serve_with(engine, requests, stop, Admission::Reserve, Batching::Mixed, &mut WallClock::start(), &mut |_, _| {})
}

/// [`serve`] admitting by `admission`, batching by `batching`, by `clock`, handing each generated token to
/// `on_token(request, token)` as it comes.
#[allow(clippy::too_many_arguments)]
pub fn serve_with<E: Engine>(engine: &mut E, requests: &[Request], stop: &[u32], admission: Admission, batching: Batching, clock: &mut dyn Clock,
                             on_token: &mut dyn FnMut(usize, u32)) -> Result<(Vec<Served>, Summary)> {
    let (slots, max_len, pool) = (engine.slots(), engine.max_len(), engine.pool());
    for (i, r) in requests.iter().enumerate() {
        if r.prompt.is_empty() || r.max_new == 0 {
            return Err(Error::InvalidInput(format!("request {i}: a prompt of {} tokens and a reply of up to {}: both need at least one", r.prompt.len(), r.max_new)));
        }
        if longest(r) > max_len {
            return Err(Error::InvalidInput(format!("request {i}: {} prompt tokens and a reply of up to {} (the last not cached) exceed a slot's {max_len}",
                                                   r.prompt.len(), r.max_new)));
        }
        if let Some((pages, size)) = pool.filter(|&(pages, size)| worst_pages(r, size) > pages) {
            return Err(Error::InvalidInput(format!("request {i}: at its longest it holds {} pages of {size} tokens, the pool {pages}", worst_pages(r, size))));
        }
        if !(r.arrival_ms >= 0.0 && r.arrival_ms.is_finite()) {
            return Err(Error::InvalidInput(format!("request {i}: arrival at {} ms: a time from the start, ≥ 0", r.arrival_ms)));
        }
    }
    for s in 0..slots {
        engine.release(s)?;
    }
    // The requests in the order they arrive (stable: equal times in the order given).
    let mut order: Vec<usize> = (0..requests.len()).collect();
    order.sort_by(|&a, &b| requests[a].arrival_ms.total_cmp(&requests[b].arrival_ms));
    let start = clock.now_ms();
    let ms = |c: &mut dyn Clock| c.now_ms() - start;
    let mut out = vec![Served::default(); requests.len()];
    let mut sum = Summary::default();
    // The requests in slots 0..n, each one's last token (the next decode step's input), the tokens its
    // cache holds and when it was admitted (a count: the preemption order).
    let (mut occupant, mut last, mut cached, mut stamp): (Vec<usize>, Vec<u32>, Vec<usize>, Vec<usize>) = (vec![], vec![], vec![], vec![]);
    // Preempted requests, oldest admitted first: admitted again before any newcomer.
    let mut waiting: VecDeque<usize> = VecDeque::new();
    let (mut next, mut promised, mut admitted) = (0usize, 0usize, 0usize);
    let done = |tokens: &[u32], r: &Request| tokens.len() >= r.max_new || tokens.last().is_some_and(|t| stop.contains(t));
    // The tokens request `r` (its reply so far `k` tokens) holds in the cache after the next decode step
    // once admitted: its prompt and reply so far, and the admission's token unless that ends the reply.
    let after_admission = |r: &Request, k: usize| (r.prompt.len() + k + 1).min(longest(r));
    // Pages an occupant of request `r` holding `c` tokens needs through the next decode step (one it ends
    // before holds no more than it has).
    let step_pages = |r: usize, c: usize, size: usize| (c + 1).min(longest(&requests[r])).div_ceil(size);
    // Steps an admission must see the running sequences through: its own and, mixed, the decode step after.
    let ahead = if batching == Batching::Mixed { 2 } else { 1 };
    // Sequences that are done leave; the last occupied slot's moves into the hole (checked from the end, so
    // the one moved in was checked already). Their last token's time was stamped with it.
    macro_rules! leave_done {
        () => {
            for s in (0..occupant.len()).rev() {
                let r = occupant[s];
                if !done(&out[r].tokens, &requests[r]) {
                    continue;
                }
                if let (Some((_, size)), Admission::Reserve) = (pool, admission) {
                    promised -= worst_pages(&requests[r], size);
                }
                vacate(engine, s, &mut [&mut occupant, &mut cached, &mut stamp], &mut last)?;
            }
        };
    }
    while next < requests.len() || !occupant.is_empty() || !waiting.is_empty() {
        if batching == Batching::Mixed {
            // A mixed step advances every running sequence: the ones the last step ended leave first (and
            // their slots take newcomers in this round).
            leave_done!();
            if next == requests.len() && occupant.is_empty() && waiting.is_empty() {
                break;
            }
        }
        // Nothing to run and the next request not here yet: idle until it arrives (and count it arrived then,
        // whatever the clock's rounding says).
        let mut now = ms(clock);
        if occupant.is_empty() && waiting.is_empty() && requests[order[next]].arrival_ms > now {
            let arrival = requests[order[next]].arrival_ms;
            clock.wait_until(start + arrival);
            now = ms(clock).max(arrival);
        }
        // Admit the preempted, then the arrived ones in order, while a slot is free and, paged, the pool holds
        // the newcomer (at its longest, or through the next decode step: `admission`).
        let mut held = match pool {
            Some((_, size)) if admission == Admission::Preempt => {
                occupant.iter().zip(&cached).map(|(&r, &c)| step_pages(r, c + ahead - 1, size)).sum()
            }
            _ => 0,
        };
        let mut admit = vec![];
        // Whether this round's admission step also advanced the running sequences (no decode step follows).
        let mut advanced = false;
        while occupant.len() + admit.len() < slots {
            let r = match waiting.front() {
                Some(&r) => r,
                None if next < requests.len() && requests[order[next]].arrival_ms <= now => order[next],
                None => break,
            };
            if let Some((pages, size)) = pool {
                let q = &requests[r];
                match admission {
                    Admission::Reserve => {
                        if promised + worst_pages(q, size) > pages {
                            break;
                        }
                        promised += worst_pages(q, size);
                    }
                    Admission::Preempt => {
                        let w = after_admission(q, out[r].tokens.len()).div_ceil(size);
                        if held + w > pages {
                            break;
                        }
                        held += w;
                    }
                }
            }
            if waiting.pop_front().is_none() {
                next += 1;
            }
            admit.push(r);
        }
        if !admit.is_empty() {
            let base = occupant.len();
            // A preempted request's cache again: its prompt and its reply so far.
            let prompts: Vec<Cow<[u32]>> = admit.iter().map(|&r| if out[r].tokens.is_empty() {
                Cow::Borrowed(requests[r].prompt.as_slice())
            } else {
                Cow::Owned([requests[r].prompt.as_slice(), out[r].tokens.as_slice()].concat())
            }).collect();
            let seqs: Vec<(usize, &[u32])> = prompts.iter().enumerate().map(|(i, p)| (base + i, p.as_ref())).collect();
            let first = if batching == Batching::Mixed && base > 0 {
                // The running sequences advance in the same pass; their tokens first.
                let mut toks = engine.mixed(&last, &seqs)?;
                if toks.len() != base + seqs.len() {
                    return Err(Error::InvalidInput(format!("a mixed step of {base} running and {} new sequences returned {} tokens (internal)", seqs.len(), toks.len())));
                }
                let first = toks.split_off(base);
                let t = ms(clock);
                advance(&toks, t, &occupant, &mut cached, &mut last, &mut out, on_token);
                sum.mixed_steps += 1;
                sum.widest = sum.widest.max(base + seqs.len());
                advanced = true;
                first
            } else {
                engine.extend(&seqs)?
            };
            sum.admissions += 1;
            let t = ms(clock);
            for ((&r, &tok), p) in admit.iter().zip(&first).zip(&prompts) {
                occupant.push(r);
                last.push(tok);
                cached.push(p.len());
                stamp.push(admitted);
                admitted += 1;
                if out[r].tokens.is_empty() {
                    out[r] = Served { tokens: vec![tok], waited_steps: sum.decode_steps, first_ms: t, done_ms: t };
                } else {
                    out[r].tokens.push(tok);
                    out[r].done_ms = t;
                }
                on_token(r, tok);
            }
        } else if occupant.is_empty() {
            let r = waiting.front().copied().unwrap_or_else(|| order[next]);
            return Err(Error::InvalidInput(format!("request {r} found no room with every slot free (internal)")));
        }
        leave_done!();
        // Too few free pages for the step: the most recently admitted sequences give theirs back.
        if let (Some((pages, size)), Admission::Preempt) = (pool, admission) {
            while occupant.len() > 1 && occupant.iter().zip(&cached).map(|(&r, &c)| step_pages(r, c, size)).sum::<usize>() > pages {
                let s = (0..stamp.len()).max_by_key(|&s| stamp[s]).unwrap_or(0);
                waiting.push_front(occupant[s]);
                sum.preemptions += 1;
                vacate(engine, s, &mut [&mut occupant, &mut cached, &mut stamp], &mut last)?;
            }
        }
        if occupant.is_empty() || advanced {
            continue;
        }
        let toks = engine.decode(&last)?;
        let t = ms(clock);
        sum.decode_steps += 1;
        sum.widest = sum.widest.max(occupant.len());
        advance(&toks, t, &occupant, &mut cached, &mut last, &mut out, on_token);
    }
    sum.generated = out.iter().map(|s| s.tokens.len()).sum();
    sum.ms = ms(clock);
    Ok((out, sum))
}

/// The running sequences' next tokens `toks` (slot order), made at `t` ms: each reply and its slot's row.
fn advance(toks: &[u32], t: f64, occupant: &[usize], cached: &mut [usize], last: &mut [u32], out: &mut [Served], on_token: &mut dyn FnMut(usize, u32)) {
    for (s, &tok) in toks.iter().enumerate() {
        out[occupant[s]].tokens.push(tok);
        out[occupant[s]].done_ms = t;
        cached[s] += 1;
        last[s] = tok;
        on_token(occupant[s], tok);
    }
}

/// Empties slot `s` and moves the last occupied slot's sequence into it (the engine's cache and the
/// scheduler's per-slot rows alike), so the occupied slots stay `0..n`.
fn vacate<E: Engine>(engine: &mut E, s: usize, rows: &mut [&mut Vec<usize>], last: &mut Vec<u32>) -> Result<()> {
    engine.release(s)?;
    let tail = last.len() - 1;
    if s != tail {
        engine.move_slot(tail, s)?;
    }
    for v in rows.iter_mut() {
        v.swap_remove(s);
    }
    last.swap_remove(s);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An engine whose next token is a function of the sequence's tokens alone (as a model's greedy
    /// choice is of its cache), checking what a model would refuse: decode over occupied slots `0..n`
    /// only, extend into empty slots, moves into empty slots, pages within the pool.
    struct Fake {
        seqs: Vec<Vec<u32>>,
        max_len: usize,
        pool: Option<(usize, usize)>,
        calls: Vec<String>,
    }

    fn next_of(seq: &[u32]) -> u32 {
        seq.iter().fold(7u32, |h, &t| h.wrapping_mul(31).wrapping_add(t)) % 50
    }

    impl Fake {
        fn new(slots: usize, max_len: usize, pool: Option<(usize, usize)>) -> Fake {
            Fake { seqs: vec![vec![1, 2, 3]; slots], max_len, pool, calls: vec![] }
        }
        fn pages_held(&self) -> usize {
            self.pool.map_or(0, |(_, size)| self.seqs.iter().map(|s| s.len().div_ceil(size)).sum())
        }
        fn check_pool(&self) -> Result<()> {
            match self.pool {
                Some((pages, _)) if self.pages_held() > pages => Err(Error::InvalidInput("pool exceeded".into())),
                _ => Ok(()),
            }
        }
    }

    impl Engine for Fake {
        fn slots(&self) -> usize {
            self.seqs.len()
        }
        fn max_len(&self) -> usize {
            self.max_len
        }
        fn pool(&self) -> Option<(usize, usize)> {
            self.pool
        }
        fn extend(&mut self, seqs: &[(usize, &[u32])]) -> Result<Vec<u32>> {
            self.calls.push(format!("extend {:?}", seqs.iter().map(|s| s.0).collect::<Vec<_>>()));
            let mut out = vec![];
            for &(s, t) in seqs {
                assert!(self.seqs[s].is_empty(), "extend into occupied slot {s}");
                self.seqs[s].extend_from_slice(t);
                assert!(self.seqs[s].len() <= self.max_len);
                out.push(next_of(&self.seqs[s]));
            }
            self.check_pool()?;
            Ok(out)
        }
        fn decode(&mut self, tokens: &[u32]) -> Result<Vec<u32>> {
            self.calls.push(format!("decode {}", tokens.len()));
            assert!(tokens.len() <= self.seqs.len());
            let mut out = vec![];
            for (b, &t) in tokens.iter().enumerate() {
                assert!(!self.seqs[b].is_empty(), "decode over empty slot {b}");
                self.seqs[b].push(t);
                assert!(self.seqs[b].len() <= self.max_len, "slot {b} past max_len");
                out.push(next_of(&self.seqs[b]));
            }
            self.check_pool()?;
            Ok(out)
        }
        fn mixed(&mut self, tokens: &[u32], seqs: &[(usize, &[u32])]) -> Result<Vec<u32>> {
            self.calls.push(format!("mixed {} {:?}", tokens.len(), seqs.iter().map(|s| s.0).collect::<Vec<_>>()));
            let mut out = vec![];
            for (b, &t) in tokens.iter().enumerate() {
                assert!(!self.seqs[b].is_empty(), "mixed step over empty slot {b}");
                self.seqs[b].push(t);
                assert!(self.seqs[b].len() <= self.max_len, "slot {b} past max_len");
                out.push(next_of(&self.seqs[b]));
            }
            for &(s, t) in seqs {
                assert!(s >= tokens.len() && self.seqs[s].is_empty(), "a mixed step's prompt into occupied slot {s}");
                self.seqs[s].extend_from_slice(t);
                assert!(self.seqs[s].len() <= self.max_len);
                out.push(next_of(&self.seqs[s]));
            }
            self.check_pool()?;
            Ok(out)
        }
        fn release(&mut self, slot: usize) -> Result<()> {
            self.seqs[slot].clear();
            Ok(())
        }
        fn move_slot(&mut self, from: usize, to: usize) -> Result<()> {
            self.calls.push(format!("move {from}->{to}"));
            assert!(self.seqs[to].is_empty() && !self.seqs[from].is_empty());
            self.seqs[to] = std::mem::take(&mut self.seqs[from]);
            Ok(())
        }
    }

    /// A request served alone: its reply as the engine's function gives it.
    fn alone(r: &Request, stop: &[u32]) -> Vec<u32> {
        let mut seq = r.prompt.clone();
        let mut out = vec![];
        loop {
            let t = next_of(&seq);
            out.push(t);
            if out.len() >= r.max_new || stop.contains(&t) {
                return out;
            }
            seq.push(t);
        }
    }

    fn requests(n: usize) -> Vec<Request> {
        (0..n).map(|i| Request::new((0..1 + (i * 7) % 13).map(|j| (i * 3 + j) as u32 % 50).collect(), 1 + (i * 5) % 11)).collect()
    }

    #[test]
    fn every_request_gets_the_reply_it_gets_alone_whatever_the_slots() {
        let stop = [13u32];
        let reqs = requests(23);
        let want: Vec<Vec<u32>> = reqs.iter().map(|r| alone(r, &stop)).collect();
        for batching in [Batching::Mixed, Batching::Separate] {
            for slots in [1, 2, 3, 5, 8, 32] {
                for pool in [None, Some((9, 4)), Some((40, 16))] {
                    let mut e = Fake::new(slots, 64, pool);
                    let (out, sum) = serve_with(&mut e, &reqs, &stop, Admission::Reserve, batching, &mut WallClock::start(), &mut |_, _| {}).unwrap();
                    let at = format!("{batching:?}, slots {slots}, pool {pool:?}");
                    for (i, (o, w)) in out.iter().zip(&want).enumerate() {
                        assert_eq!(&o.tokens, w, "{at}: request {i}");
                        assert!(o.first_ms <= o.done_ms);
                    }
                    assert_eq!(sum.generated, want.iter().map(Vec::len).sum::<usize>());
                    assert!(sum.widest <= slots && e.seqs.iter().all(Vec::is_empty), "{at}: every slot empty at the end");
                    // No more decode steps than serving the longest replies back to back, slots at a time.
                    assert!(sum.decode_steps <= want.iter().map(Vec::len).sum::<usize>());
                    // Mixed steps only beside running sequences: never with one slot.
                    let mixed = e.calls.iter().filter(|c| c.starts_with("mixed")).count();
                    assert_eq!(sum.mixed_steps, mixed, "{at}");
                    assert!(batching == Batching::Mixed || mixed == 0, "{at}: {mixed} mixed steps");
                    assert!(slots > 1 || mixed == 0, "{at}: {mixed} mixed steps");
                    if slots >= 23 && pool.is_none() {
                        // Everyone at once: one admission, steps = the longest reply - 1.
                        assert_eq!((sum.admissions, sum.decode_steps), (1, want.iter().map(Vec::len).max().unwrap() - 1));
                    }
                    if batching == Batching::Mixed && slots == 3 && pool.is_none() {
                        assert!(mixed > 0, "{at}: requests admitted beside running ones took mixed steps");
                    }
                }
            }
        }
    }

    #[test]
    fn a_finished_sequence_leaves_at_once_and_the_last_one_fills_its_slot() {
        // Three requests in three slots; the first ends after 1 token, the others run on.
        let reqs = vec![Request::new(vec![1], 1), Request::new(vec![2], 3), Request::new(vec![3], 3)];
        let mut e = Fake::new(3, 16, None);
        serve(&mut e, &reqs, &[]).unwrap();
        assert_eq!(e.calls, ["extend [0, 1, 2]", "move 2->0", "decode 2", "decode 2"]);
    }

    #[test]
    fn a_mixed_step_admits_beside_the_running_sequences_and_advances_them() {
        // Two slots; A (2 tokens) ends at the first decode step, C takes its slot while B runs on.
        let reqs = vec![Request::new(vec![1], 2), Request::new(vec![2], 4), Request::new(vec![3], 2)];
        let t = std::cell::Cell::new(0.0);
        let mut e = Timed(Fake::new(2, 16, None), &t);
        let (out, sum) = serve_with(&mut e, &reqs, &[], Admission::Reserve, Batching::Mixed, &mut Shared(&t), &mut |_, _| {}).unwrap();
        // A leaves before the round's admission: B moves into slot 0, C is admitted into slot 1 in the same
        // pass that gives B its third token, and no decode step follows that round.
        assert_eq!(e.0.calls, ["extend [0, 1]", "decode 2", "move 1->0", "mixed 1 [1]", "decode 2"]);
        assert_eq!((sum.admissions, sum.mixed_steps, sum.decode_steps, sum.widest), (2, 1, 2, 2));
        assert!(reqs.iter().zip(&out).all(|(r, o)| o.tokens == alone(r, &[])));
        // 5 + 1 + 5 + 1 ms: C's first token with the mixed step, at 11 ms; B's third there too.
        assert_eq!((sum.ms, out[2].first_ms, out[1].done_ms), (12.0, 11.0, 12.0));
        // Separate: C waits for the round after A leaves, and B decodes alone once.
        let t = std::cell::Cell::new(0.0);
        let mut e = Timed(Fake::new(2, 16, None), &t);
        let (out, sum) = serve_with(&mut e, &reqs, &[], Admission::Reserve, Batching::Separate, &mut Shared(&t), &mut |_, _| {}).unwrap();
        assert_eq!(e.0.calls, ["extend [0, 1]", "decode 2", "move 1->0", "decode 1", "extend [1]", "decode 2"]);
        assert_eq!((sum.admissions, sum.mixed_steps, sum.decode_steps, sum.ms), (2, 0, 3, 13.0));
        assert!(reqs.iter().zip(&out).all(|(r, o)| o.tokens == alone(r, &[])));
    }

    #[test]
    fn the_gpu_tests_schedules_mixed() {
        // `tests/chunked.rs`'s requests on its two caches (3 slots; contiguous, and 20 pages of 16), mixed:
        // the schedule it asserts, from this engine (no stop tokens: the schedule is the lengths').
        let reqs: Vec<Request> = (0..7).map(|i| Request::new(vec![1; 5 + 9 * i], 6 + i % 4)).collect();
        for pool in [None, Some((20, 16))] {
            let mut e = Fake::new(3, 256, pool);
            let (out, sum) = serve_with(&mut e, &reqs, &[], Admission::Reserve, Batching::Mixed, &mut WallClock::start(), &mut |_, _| {}).unwrap();
            // 3 admitted, 5 decode steps of three, then 3 mixed steps each admitting one beside two, …
            assert_eq!((sum.admissions, sum.mixed_steps, sum.decode_steps, sum.widest), (5, 4, 16, 3), "{pool:?}: {:?}", e.calls);
            assert_eq!(e.calls[..8], ["extend [0, 1, 2]", "decode 3", "decode 3", "decode 3", "decode 3", "decode 3", "move 2->0", "mixed 2 [2]"]);
            let (_, sep) = serve_with(&mut Fake::new(3, 256, pool), &reqs, &[], Admission::Reserve, Batching::Separate, &mut WallClock::start(), &mut |_, _| {}).unwrap();
            assert_eq!((sep.admissions, sep.mixed_steps, sep.decode_steps, sep.widest), (5, 0, 20, 3));
            assert!(reqs.iter().zip(&out).all(|(r, o)| o.tokens == alone(r, &[])));
        }
        let reqs: Vec<Request> = (0..3).map(|i| Request::new(vec![i; 80], 60)).collect();
        let mut e = Fake::new(3, 256, Some((20, 16)));
        let (out, sum) = serve_with(&mut e, &reqs, &[], Admission::Preempt, Batching::Mixed, &mut WallClock::start(), &mut |_, _| {}).unwrap();
        // The preempted one comes back when the others have ended (as separate: nothing runs beside it).
        assert_eq!((sum.admissions, sum.mixed_steps, sum.preemptions, sum.decode_steps, sum.widest), (2, 0, 1, 101, 3));
        assert!(reqs.iter().zip(&out).all(|(r, o)| o.tokens == alone(r, &[])));
    }

    /// [`Fake`] on a [`Shared`] clock: an admission (mixed or not) costs 5 ms, a decode step 1 ms.
    struct Timed<'a>(Fake, &'a std::cell::Cell<f64>);

    impl Engine for Timed<'_> {
        fn slots(&self) -> usize {
            self.0.slots()
        }
        fn max_len(&self) -> usize {
            self.0.max_len()
        }
        fn pool(&self) -> Option<(usize, usize)> {
            self.0.pool()
        }
        fn extend(&mut self, seqs: &[(usize, &[u32])]) -> Result<Vec<u32>> {
            self.1.set(self.1.get() + 5.0);
            self.0.extend(seqs)
        }
        fn decode(&mut self, tokens: &[u32]) -> Result<Vec<u32>> {
            self.1.set(self.1.get() + 1.0);
            self.0.decode(tokens)
        }
        fn mixed(&mut self, tokens: &[u32], seqs: &[(usize, &[u32])]) -> Result<Vec<u32>> {
            self.1.set(self.1.get() + 5.0);
            self.0.mixed(tokens, seqs)
        }
        fn release(&mut self, slot: usize) -> Result<()> {
            self.0.release(slot)
        }
        fn move_slot(&mut self, from: usize, to: usize) -> Result<()> {
            self.0.move_slot(from, to)
        }
    }

    /// The clock the engine advances (every call costs the time it charges), as [`Clock`]: waits jump.
    struct Shared<'a>(&'a std::cell::Cell<f64>);

    impl Clock for Shared<'_> {
        fn now_ms(&mut self) -> f64 {
            self.0.get()
        }
        fn wait_until(&mut self, ms: f64) {
            self.0.set(self.0.get().max(ms));
        }
    }

    #[test]
    fn requests_are_admitted_as_they_arrive_and_every_token_streams() {
        let t = std::cell::Cell::new(0.0);
        let mut e = Timed(Fake::new(2, 64, None), &t);
        // Three at once, one at 100 ms (the engine idle before it), one at 2 ms (waits for a slot).
        let reqs = vec![Request::new(vec![1, 2], 4), Request::new(vec![3], 4).at(100.0), Request::new(vec![4, 5, 6], 4), Request::new(vec![7], 2).at(2.0)];
        let mut streamed: Vec<Vec<u32>> = vec![vec![]; reqs.len()];
        let (out, sum) = serve_with(&mut e, &reqs, &[], Admission::Reserve, Batching::Separate, &mut Shared(&t), &mut |r, tok| streamed[r].push(tok)).unwrap();
        for (i, (o, q)) in out.iter().zip(&reqs).enumerate() {
            assert_eq!(o.tokens, alone(q, &[]), "request {i}");
            assert_eq!(streamed[i], o.tokens, "request {i}: streamed as generated");
            assert!(o.first_ms >= q.arrival_ms, "request {i} answered before it arrived");
        }
        // Requests 0 and 2 at 0 ms (first token at 5 ms), request 3 when a slot frees after their 3 decode
        // steps (8 ms, first token at 13), request 1 after the idle gap: admitted at 100, first token at 105.
        assert_eq!((out[0].first_ms, out[2].first_ms, out[3].first_ms, out[1].first_ms), (5.0, 5.0, 13.0, 105.0));
        assert_eq!((out[3].time_to_first(2.0), out[1].time_to_first(100.0), out[1].time_per_token()), (11.0, 5.0, 1.0));
        // A reply's end is its last decode step's (8 ms), not the next admission's (13 ms).
        assert_eq!((out[0].done_ms, out[0].time_per_token(), out[3].done_ms), (8.0, 1.0, 14.0));
        assert_eq!((sum.admissions, sum.widest), (3, 2));
        let e2 = serve(&mut Fake::new(1, 8, None), &[Request::new(vec![1], 1).at(-1.0)], &[]).unwrap_err().to_string();
        assert!(e2.contains("arrival at -1 ms"), "{e2}");
    }

    #[test]
    fn requests_that_can_never_run_are_refused_first() {
        let mut e = Fake::new(2, 8, Some((2, 4)));
        let bad = |r: Request| vec![Request::new(vec![1], 1), r];
        let e1 = serve(&mut e, &bad(Request::new(vec![1; 7], 3)), &[]).unwrap_err().to_string();
        assert!(e1.contains("request 1: 7 prompt tokens and a reply of up to 3 (the last not cached) exceed a slot's 8"), "{e1}");
        // 6 + 3 - 1 = 8 tokens fit exactly.
        assert!(serve(&mut Fake::new(2, 8, None), &bad(Request::new(vec![1; 6], 3)), &[]).is_ok());
        let e2 = serve(&mut e, &bad(Request::new(vec![], 3)), &[]).unwrap_err().to_string();
        assert!(e2.contains("request 1"), "{e2}");
        let mut e = Fake::new(2, 64, Some((2, 4)));
        let e3 = serve(&mut e, &bad(Request::new(vec![1; 8], 3)), &[]).unwrap_err().to_string();
        assert!(e3.contains("holds 3 pages of 4 tokens, the pool 2"), "{e3}");
        assert!(e.calls.is_empty(), "nothing ran");
    }

    #[test]
    fn preempted_sequences_come_back_with_the_reply_they_get_alone() {
        let stop = [13u32];
        let reqs = requests(23);
        let want: Vec<Vec<u32>> = reqs.iter().map(|r| alone(r, &stop)).collect();
        // Pools down to the one page more than the longest request (6 pages of 4 tokens) needs.
        let mut preempted = 0;
        for (slots, batching) in [1, 2, 3, 5, 8, 32].into_iter().flat_map(|s| [(s, Batching::Mixed), (s, Batching::Separate)]) {
            for pool in [(7, 4), (9, 4), (12, 4), (40, 16)] {
                let mut e = Fake::new(slots, 64, Some(pool));
                let mut streamed: Vec<Vec<u32>> = vec![vec![]; reqs.len()];
                let (out, sum) = serve_with(&mut e, &reqs, &stop, Admission::Preempt, batching, &mut WallClock::start(), &mut |r, t| streamed[r].push(t)).unwrap();
                for (i, (o, w)) in out.iter().zip(&want).enumerate() {
                    assert_eq!(&o.tokens, w, "{batching:?}, slots {slots}, pool {pool:?}: request {i}");
                    assert_eq!(&streamed[i], w, "{batching:?}, slots {slots}, pool {pool:?}: request {i} streamed each token once");
                }
                assert_eq!(sum.generated, want.iter().map(Vec::len).sum::<usize>());
                assert!(sum.widest <= slots && e.seqs.iter().all(Vec::is_empty), "slots {slots}, pool {pool:?}: every slot empty at the end");
                assert!(slots > 1 || sum.preemptions == 0, "one slot: nothing to preempt");
                preempted += sum.preemptions;
            }
        }
        assert!(preempted > 0, "the small pools preempted");
    }

    #[test]
    fn preemption_admits_what_fits_now_and_gives_the_newest_pages_back() {
        // Two requests of 3 prompt tokens and 6 reply tokens (8 cached at their longest: 2 pages of 4) and a
        // pool of 2 pages. Reserve runs them one after the other.
        let reqs = vec![Request::new(vec![1, 2, 3], 6), Request::new(vec![4, 5, 6], 6)];
        let mut e = Fake::new(2, 16, Some((2, 4)));
        let (_, sum) = serve(&mut e, &reqs, &[]).unwrap();
        assert_eq!(e.calls, [&["extend [0]"][..], &["decode 1"; 5], &["extend [0]"], &["decode 1"; 5]].concat());
        assert_eq!((sum.decode_steps, sum.preemptions), (10, 0));
        // Preempt admits both (a page each through the first step); at the second step each would need a
        // second page: request 1 gives its page back and waits; request 0 runs to its end (while it holds
        // both pages request 1's 5 cached tokens do not fit), then request 1 comes back with its prompt and
        // its 2 tokens as one prompt of 5 and makes its last 3.
        let mut e = Fake::new(2, 16, Some((2, 4)));
        let mut streamed = vec![vec![]; 2];
        let (out, sum) = serve_with(&mut e, &reqs, &[], Admission::Preempt, Batching::Separate, &mut WallClock::start(), &mut |r, t| streamed[r].push(t)).unwrap();
        assert_eq!(e.calls, [&["extend [0, 1]", "decode 2"][..], &["decode 1"; 4], &["extend [0]"], &["decode 1"; 3]].concat());
        assert_eq!((sum.decode_steps, sum.preemptions, sum.admissions, sum.widest), (8, 1, 2, 2));
        for (i, r) in reqs.iter().enumerate() {
            assert_eq!((&out[i].tokens, &streamed[i]), (&alone(r, &[]), &alone(r, &[])), "request {i}");
        }
        // Its first token came with the first admission, its waiting counted from there.
        assert_eq!((out[1].waited_steps, out[1].tokens.len()), (0, 6));
        // A newcomer is admitted only with the page its first decode step writes into: prompts of 4 tokens
        // fill a page, so two do not fit 3 pages through that step, and nothing is admitted just to be
        // preempted at once.
        let reqs = vec![Request::new(vec![1, 2, 3, 4], 5), Request::new(vec![5, 6, 7, 8], 5)];
        let mut e = Fake::new(2, 16, Some((3, 4)));
        let (_, sum) = serve_with(&mut e, &reqs, &[], Admission::Preempt, Batching::Separate, &mut WallClock::start(), &mut |_, _| {}).unwrap();
        assert_eq!(e.calls, [&["extend [0]"][..], &["decode 1"; 4], &["extend [0]"], &["decode 1"; 4]].concat());
        assert_eq!(sum.preemptions, 0);
        // The GPU test's schedule (`tests/chunked.rs`): three prompts of 80 tokens with 60-token replies in 20
        // pages of 16 — 16 steps of three, the newest preempted at 97 cached tokens, 43 steps of two, then it
        // alone for its last 42.
        let reqs: Vec<Request> = (0..3).map(|i| Request::new(vec![i; 80], 60)).collect();
        let mut e = Fake::new(3, 256, Some((20, 16)));
        let (out, sum) = serve_with(&mut e, &reqs, &[], Admission::Preempt, Batching::Separate, &mut WallClock::start(), &mut |_, _| {}).unwrap();
        assert_eq!((sum.admissions, sum.preemptions, sum.decode_steps, sum.widest), (2, 1, 101, 3));
        assert!(reqs.iter().zip(&out).all(|(r, o)| o.tokens == alone(r, &[])));
    }
}
