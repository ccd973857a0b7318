/* A plain MPI ping-pong between ranks 0 and 1: bench/cluster.py's baseline
 * for gplace's send/recv (compiled by the script with `mpicc -O2`).
 *
 *   mpirun -np 2 mpi_pingpong SIZE:ROUNDTRIPS [SIZE:ROUNDTRIPS ...]
 *
 * For each size (bytes), in the order given: both ranks allocate and touch
 * two buffers of that size; ten untimed round trips (or ROUNDTRIPS, if
 * fewer); an MPI_Barrier; then ROUNDTRIPS timed round trips: rank 0
 * MPI_Send's SIZE bytes to rank 1 and MPI_Recv's SIZE bytes back, rank 1
 * receives and sends the same bytes back (MPI_BYTE, MPI_COMM_WORLD, one tag),
 * the osu_latency pattern. Rank 0 prints one line per size:
 *
 *   SIZE ROUNDTRIPS ONE_WAY_SECONDS
 *
 * where ONE_WAY_SECONDS is half the mean round trip (MPI_Wtime around the
 * timed loop, divided by 2 * ROUNDTRIPS). Rank 0 also prints the MPI library
 * version on the first line, prefixed with '#'.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void pingpong(int rank, char *out, char *in, int size, long trips) {
  for (long i = 0; i < trips; ++i) {
    if (rank == 0) {
      MPI_Send(out, size, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
      MPI_Recv(in, size, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(in, size, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(in, size, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks != 2) {
    if (rank == 0)
      fprintf(stderr, "mpi_pingpong: run it with mpirun -np 2 (got %d)\n",
              ranks);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(version, &length);
    for (int i = 0; i < length; ++i)
      if (version[i] == '\n' || version[i] == '\r')
        version[i] = ' ';
    printf("# %.*s\n", length, version);
  }
  for (int a = 1; a < argc; ++a) {
    long long size = 0;
    long trips = 0;
    if (sscanf(argv[a], "%lld:%ld", &size, &trips) != 2 || size < 1 ||
        size > 0x7fffffff || trips < 1) {
      if (rank == 0)
        fprintf(stderr, "mpi_pingpong: '%s' is not SIZE:ROUNDTRIPS\n",
                argv[a]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *out = malloc((size_t)size), *in = malloc((size_t)size);
    if (!out || !in) {
      fprintf(stderr, "mpi_pingpong: cannot allocate %lld bytes\n", size);
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
    memset(out, 1, (size_t)size);
    memset(in, 0, (size_t)size);
    pingpong(rank, out, in, (int)size, trips < 10 ? trips : 10);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    pingpong(rank, out, in, (int)size, trips);
    double seconds = MPI_Wtime() - start;
    if (rank == 0) {
      printf("%lld %ld %.9e\n", size, trips, seconds / (2.0 * trips));
      fflush(stdout);
    }
    free(out);
    free(in);
  }
  MPI_Finalize();
  return 0;
}
