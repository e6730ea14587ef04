                if ACROSS {
                    // a13: one pipeline over all of the CTA's key tiles, across its query tiles: the
                    // step that issues P·V of a query tile's last key tile also issues S of the next
                    // query tile's first (its Q and K landed meanwhile), whose softmax — from a fresh
                    // running max and sum — runs under that P·V; the epilogue follows. `it`: the ring
                    // index of key tile j of query tile `cur`.
                    let (mut walk, mut it) = (walk, 0u32);
                    let scale2 = scale * core::f32::consts::LOG2_E;
                    let rows_of = |w: Work| {
                        let r = w.qt * BQ + 64 * mh + 16 * warp + g;
                        [r, r + 8]
                    };
                    let softmax_of = |w: Work| Softmax { l, causal: causal != 0, qt: w.qt, scale2, row: rows_of(w), t };
                    if let Some(first) = walk.next() {
                        let mut cur = first;
                        let mut r_o = [[0f32; 32]; 2];
                        let mut r_m = [-1e30f32; 2];
                        let mut r_l = [0f32; 2];
                        ring.wait_full(0);
                        let (dq, dk, _, flags) = descriptors::<D>(d_q, ring.at(0).0, ring.at(0).0 + kv_half);
                        let mut s = issue_scores::<E, D>(&dq, &dk, flags);
                        wgmma_wait_group::<0>();
                        pin(&mut s);
                        if cur.n_tiles == 1 {
                            release_q();
                        }
                        let _ = softmax_of(cur).tile(&mut s, 0, &mut r_m, &mut r_l);
                        let mut p = pack_p::<E>(&s);
                        let mut p_b = [[0u32; 4]; 8];
                        let (mut j, mut done) = (0u32, false);
                        macro_rules! across_step {
                            ($p_cur:ident, $p_nxt:ident) => {{
                                let last = j + 1 == cur.n_tiles;
                                // The next query tile, looked up only at the last key tile (nothing
                                // about it stays in registers through the loop).
                                let nxt = if last { walk.next() } else { None };
                                let more = !last || nxt.is_some();
                                let mut s_next = unset_scores();
                                // Q's descriptors rebuilt each step from an address LLVM cannot
                                // see is fixed: hoisted out of the loop, they stayed live through it
                                // and spilled (104 bytes at D = 128).
                                let d_q = K_MAJOR.advance(opaque(s_q) + mh * 64 * 128);
                                let (dq, dk, dv, flags) = descriptors::<D>(d_q, ring.at(it + 1).0, ring.at(it).0 + kv_half);
                                if more {
                                    ring.wait_full(it + 1);
                                    s_next = issue_scores::<E, D>(&dq, &dk, flags);
                                }
                                issue_pv::<E, D>(&mut r_o, &$p_cur, &dv, flags);
                                let (fin_m, fin_l) = (r_m, r_l); // `cur`'s, for its epilogue
                                let mut moved = None;
                                if more {
                                    wgmma_wait_group::<1>(); // S of the next key tile (committed first) retired
                                    pin(&mut s_next);
                                    // The next key tile: (cur, j + 1), or the next query tile's first,
                                    // whose running max and sum start afresh: the max at −1e30 makes
                                    // `tile_lazy` take its jump path (the same arithmetic as `tile`
                                    // on a first tile) — one code path for both, no second register
                                    // set-up (a separate `tile` there spilled 240 bytes at D = 128).
                                    let (w, jn) = match nxt {
                                        Some(w) if last => {
                                            r_m = [-1e30f32; 2];
                                            r_l = [0f32; 2];
                                            (w, 0)
                                        }
                                        _ => (cur, j + 1),
                                    };
                                    if jn + 1 == w.n_tiles {
                                        release_q(); // the last S of query tile w retired
                                    }
                                    moved = softmax_of(w).tile_lazy::<E>(&mut s_next, jn, &mut r_m, &mut r_l, &mut $p_nxt);
                                    block_boundary(l);
                                    wgmma_wait_group::<0>();
                                } else {
                                    wgmma_wait_group::<0>();
                                }
                                pin(&mut r_o);
                                ring.release(it);
                                if last {
                                    store_o::<E, D>(g_o, g_lse, cur.head, l, rows_of(cur), t, &r_o, fin_m, fin_l);
                                    r_o = [[0f32; 32]; 2];
                                } else if let Some(corr) = moved {
                                    rescale::<D>(&mut r_o, corr);
                                }
                                it += 1;
                                if last {
                                    match nxt {
                                        Some(w) => {
                                            cur = w;
                                            j = 0;
                                        }
                                        None => done = true,
                                    }
                                } else {
                                    j += 1;
                                }
                            }};
                        }
                        loop {
                            across_step!(p, p_b);
                            if done {
                                break;
                            }
                            across_step!(p_b, p);
                            if done {
                                break;
                            }
                        }
                    }
                } else {
