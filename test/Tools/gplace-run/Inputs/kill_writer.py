# Kills gplace-run while it saves checkpoints and checks, after each kill,
# that the checkpoint is the old one or a complete new one: a valid .npz
# with every variable, which gplace-run restores. Usage:
#   kill_writer.py GPLACE_RUN MODEL.mlir DIR (DIR holds make_idx.py's files)
import os, random, signal, subprocess, sys, time, zipfile

run, model, d = sys.argv[1:4]
ckpt = os.path.join(d, 'killed.npz')
data = ['--input=@' + os.path.join(d, 'x.idx'),
        '--input=@' + os.path.join(d, 'y.idx.gz')]
train = [run, model, '--entry=train', '--init=init'] + data
subprocess.run(train + ['--epochs=1', '--save=' + ckpt], check=True,
               stdout=subprocess.DEVNULL)
with zipfile.ZipFile(ckpt) as z:
    names = sorted(z.namelist())

random.seed(1)
torn_writes = 0
for attempt in range(10):
    # Epochs of four steps, a save after each: most of the time goes to
    # writing the checkpoint.
    writer = subprocess.Popen(train + ['--epochs=1000000', '--save=' + ckpt],
                              stdout=subprocess.DEVNULL)
    time.sleep(0.1 + 0.3 * random.random())
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert writer.returncode == -signal.SIGKILL, writer.returncode
    # Left by the killed writer; the next save removes it.
    partial = [f for f in os.listdir(d)
               if f.startswith('.killed.npz.tmp%d' % writer.pid)]
    torn_writes += bool(partial)
    with zipfile.ZipFile(ckpt) as z:
        assert z.testzip() is None, 'corrupt member in ' + ckpt
        assert sorted(z.namelist()) == names, z.namelist()
    subprocess.run([run, model, '--entry=evaluate', '--restore=' + ckpt] + data,
                   check=True, stdout=subprocess.DEVNULL)
# A save that completes removes the partial files of the killed writers.
subprocess.run(train + ['--epochs=1', '--save=' + ckpt], check=True,
               stdout=subprocess.DEVNULL)
left = [f for f in os.listdir(d) if f.startswith('.killed.npz.tmp')]
assert not left, left
print('checkpoint intact after 10 kills (%d while a save was half written), '
      'no partial file left' % torn_writes)
