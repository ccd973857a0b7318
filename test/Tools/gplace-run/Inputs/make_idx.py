# Writes the small IDX data sets of training.test: 64 samples of 4 float
# features and their class (ubyte): class = argmax of the first two
# features, a separable problem; plus broken files for the error paths.
import gzip, random, struct, sys

out = sys.argv[1]
random.seed(0)
features, labels = [], []
for _ in range(64):
    x = [random.uniform(-1, 1) for _ in range(4)]
    features.append(x)
    labels.append(0 if x[0] > x[1] else 1)

def idx(code, dims, payload):
    return bytes([0, 0, code, len(dims)]) + b''.join(struct.pack('>I', d) for d in dims) + payload

with open(out + '/x.idx', 'wb') as f:
    f.write(idx(0x0D, [64, 4], b''.join(struct.pack('>f', v) for row in features for v in row)))
with gzip.open(out + '/y.idx.gz', 'wb') as f:
    f.write(idx(0x08, [64], bytes(labels)))
with open(out + '/bad-magic.idx', 'wb') as f:
    f.write(b'\x00\x00\x07\x01' + struct.pack('>I', 2) + b'\x00\x01')
with open(out + '/truncated.idx', 'wb') as f:
    f.write(idx(0x08, [64], bytes(10)))
with open(out + '/three-features.idx', 'wb') as f:
    f.write(idx(0x0D, [64, 3], bytes(64 * 3 * 4)))
