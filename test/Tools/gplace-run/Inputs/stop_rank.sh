#!/bin/sh
# Runs "$@"; on MPI rank $RANK (default 1; Open MPI's OMPI_COMM_WORLD_RANK),
# sends the process signal $SIGNAL (KILL: a task that dies; STOP: a task
# that hangs) after 2 seconds, or 10 for STOP: a task stopped while Open MPI
# still starts it hangs MPI_Init in the other tasks, before gplace's
# --transfer-timeout covers anything (seen under AddressSanitizer with
# ctest running lit beside GoogleTest).
delay=2
[ "$SIGNAL" = STOP ] && delay=10
if [ "$OMPI_COMM_WORLD_RANK" = "${RANK:-1}" ]; then (sleep "$delay"; kill -"$SIGNAL" $$) & fi
exec "$@"
