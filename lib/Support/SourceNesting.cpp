//===- SourceNesting.cpp - how deeply MLIR text nests ---------------------===//

#include "gplace/Support/SourceNesting.h"

namespace gplace {

std::optional<DeepNesting> findDeepNesting(std::string_view text,
                                           unsigned limit) {
  size_t depth = 0, line = 1, lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
    case '\n':
      ++line;
      lineStart = i + 1;
      break;
    case '"':
      // A string literal: to the closing quote, past escaped characters;
      // MLIR's lexer ends an unterminated one at the end of the line.
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] != '\n')
          ++i;
      if (i < text.size() && text[i] == '\n')
        --i; // The newline is counted above, on the next iteration.
      break;
    case '/':
      if (i + 1 < text.size() && text[i + 1] == '/')
        while (i + 1 < text.size() && text[i + 1] != '\n')
          ++i;
      break;
    case '(':
    case '[':
    case '{':
    case '<':
      if (++depth > limit)
        return DeepNesting{i, line, i - lineStart + 1};
      break;
    case '>':
      if (i > 0 && text[i - 1] == '-')
        break;
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

std::string deepNestingMessage(std::string_view where, unsigned limit) {
  return "brackets nest deeper than " + std::to_string(limit) + " levels " +
         std::string(where) +
         "; MLIR's parser recurses once per level and would overflow its "
         "stack";
}

} // namespace gplace
