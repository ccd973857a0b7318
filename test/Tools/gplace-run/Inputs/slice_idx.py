# Writes the first N samples of an IDX file (gzip-compressed or not) as an
# uncompressed IDX file: slice_idx.py IN OUT N.
import gzip, struct, sys

source, target, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
opener = gzip.open if source.endswith('.gz') else open
with opener(source, 'rb') as f:
    data = f.read()
rank = data[3]
dims = list(struct.unpack('>' + 'I' * rank, data[4:4 + 4 * rank]))
per = 1
for d in dims[1:]:
    per *= d
header = data[:4] + struct.pack('>' + 'I' * rank, n, *dims[1:])
with open(target, 'wb') as f:
    f.write(header + data[4 + 4 * rank:4 + 4 * rank + n * per])
