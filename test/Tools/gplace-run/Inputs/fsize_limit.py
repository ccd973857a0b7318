# Runs a command with files limited to BYTES (RLIMIT_FSIZE) and SIGXFSZ
# blocked, so that a write past the limit fails with EFBIG ("File too
# large") as a write to a full disk fails with ENOSPC, instead of killing
# the process: a disk that fills up while a checkpoint is written, without
# a small file system to fill.
# Usage: fsize_limit.py BYTES COMMAND [ARG...]
import os, resource, signal, sys

limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE,
                   (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
# Blocked, not ignored: LLVM's crash handlers (which gplace's tools
# install) take over an ignored SIGXFSZ and print a stack dump; the mask
# is kept across exec, and a blocked signal is never delivered.
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGXFSZ})
os.execvp(sys.argv[2], sys.argv[2:])
