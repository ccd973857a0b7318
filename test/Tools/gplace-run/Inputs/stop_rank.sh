#!/bin/sh
# Runs "$@"; on MPI rank $RANK (default 1; Open MPI's OMPI_COMM_WORLD_RANK),
# sends the process signal $SIGNAL (KILL: a task that dies; STOP: a task
# that hangs) after 2 seconds.
if [ "$OMPI_COMM_WORLD_RANK" = "${RANK:-1}" ]; then (sleep 2; kill -"$SIGNAL" $$) & fi
exec "$@"
