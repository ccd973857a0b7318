//===- SanitizerDefaults.cpp - AddressSanitizer options for gplace --------===//
//
// Linked into every executable of a -DGPLACE_SANITIZE build
// (gplace_add_sanitizer_defaults in cmake/GPlaceUtils.cmake), so that the
// tools and tests need no ASAN_OPTIONS; ASAN_OPTIONS still overrides these.
//
//===----------------------------------------------------------------------===//

/// AddressSanitizer's defaults for gplace:
/// - allow_user_poisoning=0: LLVM's headers poison BumpPtrAllocator slabs
///   in gplace's instrumented code, while Debian's libMLIR (not
///   instrumented) allocates from the same allocators without unpoisoning,
///   so every such access would be reported (use-after-poison in
///   StringAttr::get);
/// - allocator_may_return_null=1: gplace checks the allocations that can
///   fail (a constant too large for the host) and reports them; ASan would
///   abort instead.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0:allocator_may_return_null=1";
}
