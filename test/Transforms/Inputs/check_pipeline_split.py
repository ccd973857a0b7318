"""Compares --gplace-pipeline-parallel's split=auto with every hand split.

Usage: check_pipeline_split.py GPLACE_OPT MODEL LAYERS STAGES MICROBATCHES
           SCHEDULE GPU_MEMORY_LIMIT_MIB

Compiles MODEL (layers named layer<i>/...) once with split=auto and once
per contiguous split of its LAYERS layers into STAGES stages given by hand
(--gplace-assign-by-name), each through placement, the pipeline's
schedule and --gplace-estimate, on STAGES GPUs of GPU_MEMORY_LIMIT_MIB.
Prints the hand splits that fit, those the static memory plan refuses,
the best hand split's predicted step time and auto's, and fails unless
auto's split fits and predicts at most 1.1 times the best hand split's.
"""
import itertools
import re
import subprocess
import sys


def estimate(opt, model, stages, microbatches, schedule, limit, split):
    passes = [
        "--gplace-assign-devices=devices=cpu:1,gpu:%d gpu-memory-limit=%d"
        % (stages, limit),
        "--gplace-pipeline-parallel=microbatches=%d stages=%d schedule=%s%s"
        % (microbatches, stages, schedule,
           " split=auto" if split is None else ""),
        "--gplace-differentiate",
    ]
    if split is not None:
        rules = []
        for s, (a, b) in enumerate(zip((0,) + split, split + (None,))):
            layers = range(a, b if b is not None else LAYERS)
            rules.append(".*layer(%s)/.*=/gpu:%d"
                         % ("|".join(str(i) for i in layers), s))
        passes.append("--gplace-assign-by-name=rules=" + ",".join(rules))
    passes += ["--gplace-place", "--gplace-insert-copies",
               "--gplace-schedule-pipeline", "--gplace-estimate"]
    run = subprocess.run([opt, model, *passes, "-o", "/dev/null"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("gplace-opt failed for split %s:\n%s" % (split, run.stderr))
    time = re.search(r"predicted step time ([0-9.]+) ms", run.stderr)
    if not time:
        sys.exit("no predicted step time for split %s:\n%s"
                 % (split, run.stderr))
    fits = "the memory plan fails" not in run.stderr
    return float(time.group(1)), fits


opt, model = sys.argv[1], sys.argv[2]
LAYERS, STAGES, MICRO = (int(v) for v in sys.argv[3:6])
SCHEDULE, LIMIT = sys.argv[6], int(sys.argv[7])

hand = {}
for cuts in itertools.combinations(range(1, LAYERS), STAGES - 1):
    hand[cuts] = estimate(opt, model, STAGES, MICRO, SCHEDULE, LIMIT, cuts)
fitting = {cuts: t for cuts, (t, fits) in hand.items() if fits}
refused = len(hand) - len(fitting)
auto, auto_fits = estimate(opt, model, STAGES, MICRO, SCHEDULE, LIMIT, None)
best_cuts = min(fitting, key=fitting.get)
print("hand splits: %d, fitting: %d, refused by the memory plan: %d"
      % (len(hand), len(fitting), refused))
print("best hand split: layers cut before %s, %.3f ms"
      % (list(best_cuts), fitting[best_cuts]))
print("auto: %.3f ms, fits: %s, ratio to the best hand split: %.3f"
      % (auto, auto_fits, auto / fitting[best_cuts]))
if not auto_fits or auto > 1.1 * fitting[best_cuts]:
    sys.exit("split=auto is not within 10% of the best hand split")
print("OK")
