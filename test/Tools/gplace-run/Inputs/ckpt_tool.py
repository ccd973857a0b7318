# Small checkpoint edits and checks for resume.test, without NumPy:
#   ckpt_tool.py step FILE.npz           prints the global_step entry
#   ckpt_tool.py strip FILE.npz OUT.npz  OUT without the global_step entry
#                                        (a checkpoint from before it)
#   ckpt_tool.py set-step FILE.npz OUT.npz N   OUT with global_step N
#   ckpt_tool.py partials DIR NAME       makes partial files of NAME as
#                                        killed writers leave them (two of a
#                                        process that has exited) and one of
#                                        a running process (pid 1)
#   ckpt_tool.py list DIR NAME           prints the partial files of NAME
import os, struct, subprocess, sys, zipfile

STEP = 'global_step.npy'


def npy_i64(value):
    header = "{'descr': '<i8', 'fortran_order': False, 'shape': (), }"
    header += ' ' * (64 - 10 - len(header) - 1) + '\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + \
        header.encode('latin1') + struct.pack('<q', value)


def copy(src, dst, step):
    with zipfile.ZipFile(src) as z, zipfile.ZipFile(dst, 'w') as out:
        for name in z.namelist():
            if name != STEP:
                out.writestr(name, z.read(name))
        if step is not None:
            out.writestr(STEP, npy_i64(step))


cmd = sys.argv[1]
if cmd == 'step':
    with zipfile.ZipFile(sys.argv[2]) as z:
        data = z.read(STEP)
    assert b"'descr': '<i8'" in data and b"'shape': ()" in data, data
    print('global_step', struct.unpack('<q', data[-8:])[0])
elif cmd == 'strip':
    copy(sys.argv[2], sys.argv[3], None)
elif cmd == 'set-step':
    copy(sys.argv[2], sys.argv[3], int(sys.argv[4]))
elif cmd == 'partials':
    d, name = sys.argv[2:4]
    gone = subprocess.Popen(['true'])
    gone.wait()
    for f in ['.%s.tmp%d' % (name, gone.pid), '.%s.tmp%d.Xy12Zw' % (name, gone.pid),
              '.%s.tmp1' % name]:
        open(os.path.join(d, f), 'wb').close()
elif cmd == 'list':
    d, name = sys.argv[2:4]
    found = sorted(f for f in os.listdir(d) if f.startswith('.' + name + '.tmp'))
    print('partials:', ' '.join(f.replace(name, 'NAME') for f in found) or 'none')
