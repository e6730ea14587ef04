#!/usr/bin/env python3
"""Per-shape medians of `gemm_old_new` logs (scripts/device-log.sh): each shape's pick and × cuBLAS in the old and
the new build (median over the processes), new / old, and a summary of the first N_CORPUS shapes of SHAPES
(the corpus's), the rest (off-corpus) and all: geometric mean, ≥ 0.90×, under 0.80×, how many faster.
usage: old-new-medians.py LOG SHAPES N_CORPUS"""
import re, statistics, collections, sys, math
from gemm_table import entry_row
L=open(sys.argv[1]).read().splitlines()
cur=None; d=collections.defaultdict(list); lab={}
for l in L:
    m=re.match(r'== set (\S+) process (\d) build (\S+)',l)
    if m: cur=m.group(3); continue
    row=entry_row(l) if cur else None
    if row:
        step,shape,x=row; d[(cur,shape)].append(x); lab[(cur,shape)]=step
shapes=[s.strip() for s in open(sys.argv[2]) if s.strip()]
go=[];gn=[]
for s in shapes:
    if ('old',s) not in d: print('missing',s); continue
    o=statistics.median(d[('old',s)]); n=statistics.median(d[('new',s)])
    go.append(o); gn.append(n)
    print(f"{s:18} {lab[('old',s)]:16} {o:.3f} -> {lab[('new',s)]:16} {n:.3f}  {n/o:.3f}")
g=lambda x: math.exp(sum(map(math.log,x))/len(x))
def summ(a,b,name):
    if not a: return
    print(name, f"old {g(a):.3f} new {g(b):.3f}  >=0.90: {sum(x>=0.9 for x in a)} -> {sum(x>=0.9 for x in b)} of {len(a)}; under 0.80: {sum(x<0.8 for x in a)} -> {sum(x<0.8 for x in b)}; faster {sum(y>x for x,y in zip(a,b))}")
n1=int(sys.argv[3]); summ(go[:n1],gn[:n1],'corpus'); summ(go[n1:],gn[n1:],'off-corpus'); summ(go,gn,'all')
