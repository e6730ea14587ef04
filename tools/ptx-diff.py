#!/usr/bin/env python3
"""Compares two PTX modules kernel by kernel: each `.entry` (and `.func`) body must be byte-identical
after dropping `//` comments (whole lines, and the trailing `// %<llvm block name>` after labels, which
names the Rust module path) and naming rustc's anonymous constants by order of appearance
(`anon_$_<hash>_$_N`: the hash follows the defining module's path) and LLVM's switch tables
(`switch_$_table_$_<kernel><N>`: N counts tables module-wide) by order of appearance, and block labels
(`$L__BB<function>_<n>`) renamed by order of first appearance (a kernel added before it, or a block
laid out elsewhere by LLVM, renumbers them). Entry order and header comments
(e.g. `//@entry-directive` lines from global_asm!) may differ. Usage: tools/ptx-diff.py OLD.ptx NEW.ptx
(exit 0: identical per kernel)."""
import re, sys

def bodies(path):
    text = open(path).read()
    out, name, cur = {}, None, []
    for line in text.splitlines():
        m = re.match(r'^(?:\.visible |\.weak )?\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)', line)
        if m:
            if name:
                out[name] = cur
            name, cur = m.group(2), []
        if name is not None and not line.lstrip().startswith('//'):
            cur.append(re.sub(r'\s*//.*$', '', line))
    if name:
        out[name] = cur
    for k, lines in out.items():
        anon = {}
        def rename(m):
            return anon.setdefault(m.group(0), f"anon#{len(anon)}")
        tables = {}
        def table(m):
            return tables.setdefault(m.group(0), f"switch_table#{len(tables)}")
        labels = {}
        def label(m):
            return labels.setdefault(m.group(0), f"$L#{len(labels)}")
        out[k] = [re.sub(r'switch_\$_table_\$_\w+', table, re.sub(r'\$L__BB\d+_\d+', label, re.sub(r'anon_\$_[0-9a-f]+_\$_\d+', rename, l)))
                  for l in lines]
    return out

a, b = bodies(sys.argv[1]), bodies(sys.argv[2])
bad = 0
for k in sorted(set(a) | set(b)):
    if k not in a:
        print(f"only in new: {k}"); bad += 1
    elif k not in b:
        print(f"only in old: {k}"); bad += 1
    elif a[k] != b[k]:
        print(f"differs: {k}"); bad += 1
print(f"{len(a)} old, {len(b)} new, {bad} differ")
sys.exit(1 if bad else 0)
