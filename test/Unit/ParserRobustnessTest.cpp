//===- ParserRobustnessTest.cpp - truncated and mangled input -------------===//
//
// gplace-opt must never crash on bad text: every prefix of every example, of
// the op round-trip test and of its generic form, and every one-byte
// mutation of them, are parsed and verified in-process. A parse that fails
// must say why (a diagnostic), and the full files must parse.
//
//===----------------------------------------------------------------------===//

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/SourceNesting.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace {

struct ParseOutcome {
  bool ok = false;
  int errors = 0;
};

class ParserRobustness : public ::testing::TestWithParam<std::string> {
protected:
  ParserRobustness() {
    registry_.insert<gplace::graph::GraphDialect, mlir::func::FuncDialect>();
    context_.appendDialectRegistry(registry_);
    context_.disableMultithreading();
  }

  ParseOutcome parse(llvm::StringRef text) {
    ParseOutcome outcome;
    mlir::ScopedDiagnosticHandler handler(
        &context_, [&](mlir::Diagnostic &diag) {
          if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
            ++outcome.errors;
          return mlir::success();
        });
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(text, &context_);
    outcome.ok = module && mlir::succeeded(mlir::verify(*module));
    return outcome;
  }

  static std::string readFile(const std::string &path) {
    std::ifstream in(path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }

  /// The text of a corpus entry: a file, or "generic:" and a file, which is
  /// that file printed in MLIR's generic op form.
  /// Comment lines (the examples' prose, the tests' CHECK lines) are dropped:
  /// mutating them proves nothing and costs time.
  std::string readExample(const std::string &entry) {
    llvm::StringRef name(entry);
    if (!name.consume_front("generic:")) {
      std::string code;
      std::istringstream in(
          readFile(std::string(GPLACE_SOURCE_DIR) + "/" + entry));
      for (std::string line; std::getline(in, line);)
        if (!llvm::StringRef(line).ltrim().starts_with("//"))
          code += line + "\n";
      return code;
    }
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(
            readFile(std::string(GPLACE_SOURCE_DIR) + "/" + name.str()),
            &context_);
    if (!module)
      return {};
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, mlir::OpPrintingFlags().printGenericOpForm());
    return text;
  }

  mlir::DialectRegistry registry_;
  mlir::MLIRContext context_;
};

TEST_P(ParserRobustness, FullFileParses) {
  std::string text = readExample(GetParam());
  ASSERT_FALSE(text.empty()) << GetParam();
  ParseOutcome outcome = parse(text);
  EXPECT_TRUE(outcome.ok);
  EXPECT_EQ(outcome.errors, 0);
}

TEST_P(ParserRobustness, FullFileNestsWithinTheToolsLimit) {
  std::string text = readExample(GetParam());
  ASSERT_FALSE(text.empty()) << GetParam();
  EXPECT_FALSE(gplace::findDeepNesting(text)) << GetParam();
  // The scan counts the file's brackets: a limit of 2 finds one.
  EXPECT_TRUE(gplace::findDeepNesting(text, 2)) << GetParam();
}

TEST_P(ParserRobustness, EveryTruncationFailsWithADiagnostic) {
  std::string text = readExample(GetParam());
  // Brace depth before each byte, outside string literals: a prefix that
  // ends inside braces (a function body, an attribute dictionary) cannot be
  // a valid module; one that ends between top-level ops may be.
  std::vector<int> depth(text.size() + 1, 0);
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    int d = depth[i];
    if (inString)
      inString = !(c == '"' && text[i - 1] != '\\');
    else if (c == '"')
      inString = true;
    else if (c == '{')
      ++d;
    else if (c == '}')
      --d;
    depth[i + 1] = d;
  }
  size_t inside = 0;
  for (size_t length = 0; length < text.size(); ++length) {
    // A copy, so that the prefix ends in a NUL as every buffer the tools
    // read does (llvm::MemoryBuffer): MLIR's lexer takes the NUL as the end
    // of input, and on a bare prefix of `text` it lexes on past the end of
    // `text` itself (ASan: heap-buffer-overflow in the parser).
    std::string prefix = text.substr(0, length);
    ParseOutcome outcome = parse(prefix);
    if (depth[length] > 0) {
      ++inside;
      EXPECT_FALSE(outcome.ok) << "prefix of " << length << " bytes";
    }
    if (!outcome.ok) {
      EXPECT_GT(outcome.errors, 0) << "silent failure at " << length;
    }
  }
  // Most prefixes end inside a body: the check above is not vacuous.
  EXPECT_GT(inside, text.size() / 2);
}

TEST_P(ParserRobustness, OneByteMutationsNeverFailSilently) {
  std::string text = readExample(GetParam());
  // Each byte is replaced by two of these, in rotation.
  const char replacements[] = {'%', '<', '>', '"',  '0',    'x', '}',
                               '(', ',', ':', '\0', '\xff', '-'};
  constexpr size_t numReplacements = sizeof(replacements);
  size_t rejected = 0;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    for (size_t k : {pos % numReplacements, (pos + 6) % numReplacements}) {
      std::string mutated = text;
      mutated[pos] = replacements[k];
      ParseOutcome outcome = parse(mutated);
      if (!outcome.ok) {
        ++rejected;
        EXPECT_GT(outcome.errors, 0) << "silent failure at " << pos;
      }
    }
  }
  // Most one-byte changes to IR break it; if they don't, nothing was tested.
  EXPECT_GT(rejected, text.size() / 2) << "of " << 2 * text.size();
}

// SourceNesting.h: the tools' scan before MLIR's recursive parser.
TEST(SourceNesting, FindsTheFirstBracketPastTheLimit) {
  std::optional<gplace::DeepNesting> deep =
      gplace::findDeepNesting("f(a)\n  g([<{x}>])", 3);
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->offset, 11u); // The '{'.
  EXPECT_EQ(deep->line, 2u);
  EXPECT_EQ(deep->column, 7u);
  EXPECT_FALSE(gplace::findDeepNesting("f(a)\n  g([<{x}>])", 4));
  // Closing brackets end levels, whatever their kind; never below zero.
  EXPECT_FALSE(gplace::findDeepNesting(")))(((]]]", 3));
  EXPECT_TRUE(gplace::findDeepNesting(")))((((", 3));
}

TEST(SourceNesting, SkipsStringsCommentsAndArrows) {
  // Brackets in a string literal (escaped quotes included) or a comment
  // are not nesting; the '>' of '->' closes nothing.
  EXPECT_FALSE(gplace::findDeepNesting("\"((((\\\"((((\" (x)", 1));
  EXPECT_FALSE(gplace::findDeepNesting("// ((((\n(x)", 1));
  EXPECT_TRUE(gplace::findDeepNesting("(a) -> (b) ((c))", 1));
  EXPECT_FALSE(gplace::findDeepNesting("(a) -> (b)", 1));
  // An unterminated string ends at its line's end, as MLIR's lexer does.
  EXPECT_TRUE(gplace::findDeepNesting("\"(\n((", 1));
  // The fuzzer's finding: 21,584 nested parentheses (21 KB) overflowed
  // MLIR's parser; the scan stops at the 1001st.
  std::string parens(21584, '(');
  std::optional<gplace::DeepNesting> found =
      gplace::findDeepNesting("gplan.device @g" + parens);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->column, 15u + gplace::kMaxSourceNesting + 1);
}

std::vector<std::string> corpus() {
  std::vector<std::string> files;
  for (const auto &entry : std::filesystem::directory_iterator(
           std::string(GPLACE_SOURCE_DIR) + "/examples"))
    if (entry.path().extension() == ".mlir")
      files.push_back("examples/" + entry.path().filename().string());
  std::sort(files.begin(), files.end());
  files.push_back("test/Dialect/Graph/ops.mlir");
  files.push_back("generic:test/Dialect/Graph/ops.mlir");
  return files;
}

INSTANTIATE_TEST_SUITE_P(Corpus, ParserRobustness,
                         ::testing::ValuesIn(corpus()), [](const auto &info) {
                           std::string name = info.param;
                           for (char &c : name)
                             if (!isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           return name;
                         });

} // namespace
