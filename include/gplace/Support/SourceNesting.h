//===- SourceNesting.h - how deeply MLIR text nests -------------*- C++ -*-===//
//
// MLIR's parser descends recursively, a few stack frames per level of
// brackets, with no limit of its own (llvm-project#63146 is the verifier's
// twin): 21,584 nested parentheses in a 21 KB file overflowed gplace-opt's
// 8 MiB stack (gplace-fuzz-pipeline). The tools scan the text first and
// refuse deeper nesting with a diagnostic. Plain C++17, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_SUPPORT_SOURCENESTING_H
#define GPLACE_SUPPORT_SOURCENESTING_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gplace {

/// The deepest nesting of brackets the tools parse. Real IR nests a few
/// dozen levels (regions in regions, types in types, dense literals of a
/// tensor's rank); a thousand levels take under 2 MiB of the parser's
/// stack, AddressSanitizer's larger frames included.
constexpr unsigned kMaxSourceNesting = 1000;

/// Where MLIR text first nests deeper than `limit`: the opening bracket's
/// byte offset and its 1-based line and column.
struct DeepNesting {
  size_t offset = 0;
  size_t line = 1;
  size_t column = 1;
};

/// Scans `text` as MLIR's lexer would for the purpose of nesting: '(',
/// '[', '{' and '<' open a level, ')', ']', '}' and '>' close one (not the
/// '>' of '->', and never below the top level), string literals ("...",
/// with backslash escapes) and comments ('//' to the end of the line) are
/// skipped. Returns the first opening bracket that makes the depth exceed
/// `limit`, or std::nullopt.
std::optional<DeepNesting> findDeepNesting(std::string_view text,
                                           unsigned limit = kMaxSourceNesting);

/// The tools' diagnostic for what findDeepNesting found, `where` saying
/// where it is: "brackets nest deeper than 1000 levels here; ..." after a
/// location, "... in its type or values; ..." for a flag's value.
std::string deepNestingMessage(std::string_view where = "here",
                               unsigned limit = kMaxSourceNesting);

} // namespace gplace

#endif // GPLACE_SUPPORT_SOURCENESTING_H
