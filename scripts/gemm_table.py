"""The gemm family's main table as the median scripts read it (`entry-medians.py`, `old-new-medians.py`): one
row per step and shape, `STEP  MxNxK  MEDIAN_MS  TFLOP/S  PCT% …`. The bandwidth table's rows of decode shapes
(`STEP  MxNxK  GB  GB/s  PCT% of copy`) also end a column in %; they are not the main table's."""
import re


def entry_row(line):
    """(step, shape, × cuBLAS) of a main-table row that is not cuBLAS's own, else None."""
    f = line.split()
    if (len(f) > 5 and re.fullmatch(r'\d+x\d+x\d+', f[1]) and f[0] != 'cuBLAS' and f[4].endswith('%')
            and re.fullmatch(r'[\d.]+', f[2]) and re.fullmatch(r'[\d.]+', f[3])):
        return f[0], f[1], float(f[4][:-1]) / 100
    return None
