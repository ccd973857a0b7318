"""Checks matmul-bf16.mlir: each file is gplace-run's output of three
results, the f64 product of the bf16 operands, the bf16 product and the
bf16 product of the transposed operands (both cast to f32 to print). Every bf16 element is within
bf16's rounding of the f64 one (2^-8 relative, with f32 accumulation's
slack), in every file."""
import re
import sys


def results(path):
    text = open(path).read()
    out = []
    for match in re.finditer(r"result\[\d\]: 16x24x(?:f64|f32)=(.*)", text):
        out.append([float(x) for x in re.findall(r"-?[0-9.]+(?:e[-+]?\d+)?",
                                                 match.group(1))])
    assert len(out) == 3 and all(len(r) == 16 * 24 for r in out), (path, text[:300])
    return out


for path in sys.argv[1:]:
    ref, c, ct = results(path)
    worst = max(abs(x - r) / abs(r) for r in (ref,) for x, r in
                zip(c + ct, ref + ref))
    print(f"{path}: worst relative error {worst:.2e}")
    assert worst <= 2.0 ** -8 + 1e-6, (path, worst)
