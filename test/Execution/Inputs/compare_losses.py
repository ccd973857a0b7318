"""Checks auto-mixed-precision.mlir's losses: each file is gplace-run's
output, whose `result[0]: f32=<loss>` line is the loss of the last step.
Arguments: f32 after 1 step, f32 after N, bf16 after 1, bf16 after N, then
any number of other 16-bit runs after N. The loss falls in every run, and
each 16-bit loss after N steps is within 5% (relative) of f32's."""
import re
import sys


def loss(path):
    text = open(path).read()
    match = re.search(r"result\[0\]: f32=([-0-9.e+]+)", text)
    if not match:
        sys.exit(f"{path}: no loss in {text!r}")
    return float(match.group(1))


f32_first, f32_last, bf16_first = (loss(p) for p in sys.argv[1:4])
others = [(p, loss(p)) for p in sys.argv[4:]]
print(f"f32: {f32_first} -> {f32_last}; bf16: {bf16_first} -> "
      + ", ".join(f"{p.rsplit('.', 2)[-2]} {v}" for p, v in others))
assert f32_last < 0.5 * f32_first, (f32_first, f32_last)
assert abs(bf16_first - f32_first) <= 0.05 * f32_first, (bf16_first, f32_first)
for path, value in others:
    assert value < 0.5 * bf16_first, (path, value, bf16_first)
    assert abs(value - f32_last) <= 0.05 * f32_last, (path, value, f32_last)
