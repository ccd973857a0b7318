/*
 * jemalloc's options for the compiler tools (gplace-opt, gplace-translate),
 * read by jemalloc when the process starts (its documented `malloc_conf`
 * global; a user's MALLOC_CONF environment variable still overrides each
 * option). Linked by gplace_link_allocator(<tool> COMPILER) in
 * cmake/GPlaceUtils.cmake; gplace-run keeps jemalloc's defaults.
 *
 * - thp:always, metadata_thp:always: back jemalloc's arenas and its own
 *   metadata with transparent huge pages. A compile of a large graph
 *   touches hundreds of megabytes once (operations, attributes, use
 *   lists); with 4 KiB pages each first touch is a page fault, about 6 us
 *   on the project's VM, and at 1M ops the pipeline took ~540k of them.
 *   With huge pages it takes ~7k (docs/development.md, "Allocator").
 * - dirty_decay_ms:-1, muzzy_decay_ms:-1: never hand freed pages back to
 *   the kernel while the process runs. A compile is short-lived and its
 *   peak is what it needs; returning pages only to fault them in again
 *   costs time. The process's exit returns everything.
 */
const char *malloc_conf =
    "thp:always,metadata_thp:always,dirty_decay_ms:-1,muzzy_decay_ms:-1";
