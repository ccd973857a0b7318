# Compares two .npz checkpoints of f32/f64 (and i32/i64) arrays entry by entry:
# |a - b| <= atol + rtol * |b| for every element. Prints the entries'
# largest difference; exits 1 on the first mismatch. No NumPy needed.
# Usage: compare_npz.py A.npz B.npz [rtol] [atol]
import ast, struct, sys, zipfile


def arrays(path):
    out = {}
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            data = z.read(name)
            assert data[:6] == b'\x93NUMPY', name
            major = data[6]
            size_bytes = 2 if major == 1 else 4
            (length,) = struct.unpack('<H' if size_bytes == 2 else '<I',
                                      data[8:8 + size_bytes])
            start = 8 + size_bytes
            header = ast.literal_eval(data[start:start + length].decode('latin1'))
            code = {'<f4': 'f', '<f8': 'd', '<i8': 'q', '<i4': 'i'}[header['descr']]
            body = data[start + length:]
            out[name] = struct.unpack('<%d%s' % (len(body) // struct.calcsize(code), code), body)
    return out


a, b = arrays(sys.argv[1]), arrays(sys.argv[2])
rtol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-5
atol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-6
assert sorted(a) == sorted(b), (sorted(a), sorted(b))
worst = 0.0
for name in sorted(a):
    assert len(a[name]) == len(b[name]), name
    for i, (x, y) in enumerate(zip(a[name], b[name])):
        if abs(x - y) > atol + rtol * abs(y):
            sys.exit('%s[%d]: %r vs %r' % (name, i, x, y))
        worst = max(worst, abs(x - y))
print('%d entries match (largest difference %.3g)' % (len(a), worst))
