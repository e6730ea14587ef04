import json,re,sys,lzma
# Rebuilds an autotune cache (the `rank --tune-cache` input) from a log's "note: STEP SHAPE: autotuned ..." lines.
src=sys.argv[1]; out=sys.argv[2]; dtype=sys.argv[3] if len(sys.argv)>3 else 'bf16'
txt=(lzma.open(src,'rt') if src.endswith('.xz') else open(src)).read()
prefix="NVIDIA H200|sms=132|sm_90|driver=13000|ptx=51b3cad05c88d393|host=0.1.0+e3|knobs="
ent={}
for m in re.finditer(r"^note: (\S+) (\d+x\d+x\d+): autotuned \([^)]*\): (.*)$", txt, re.M):
    step, shape, rest = m.groups()
    rest = rest.split("; not timed")[0]
    timed=[]; rule=None
    for part in rest.split("; "):
        mm=re.match(r"(\S+) ([\d.]+)(?: µs)?(?: \(rule (\S+)\))?", part.strip())
        if not mm: continue
        timed.append({"label":mm.group(1),"median_us":float(mm.group(2)),"rel_err":0.0,"samples":150})
        if mm.group(3): rule=mm.group(3)
    ent[f"{prefix}|{dtype}|{shape}"]={"step":step,"rule":rule or step,"timed":timed,"pruned":[],"unix_ms":0}
json.dump({"version":1,"entries":ent},open(out,'w'),indent=1)
print(len(ent),"shapes")
