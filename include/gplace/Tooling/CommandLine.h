//===- CommandLine.h - what the tools' --help lists -------------*- C++ -*-===//
//
// The tools link LLVM's shared library, whose targets and passes register
// hundreds of command-line options (--aarch64-neon-syntax, ...) that mean
// nothing to a gplace user. Header-only, so that every tool can use it
// without another library.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_COMMANDLINE_H
#define GPLACE_TOOLING_COMMANDLINE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"

namespace gplace::tooling {

/// Hides from --help every option registered so far that is in none of
/// `keep` and is not MLIR's (`--mlir-*`), --help or --version: what LLVM's
/// libraries register. Options registered later (such as those
/// mlirTranslateMain declares when it runs) stay listed; --help-hidden
/// lists them all. Call before cl::ParseCommandLineOptions.
inline void
hideLibraryOptions(llvm::ArrayRef<const llvm::cl::OptionCategory *> keep) {
  for (auto &entry : llvm::cl::getRegisteredOptions()) {
    llvm::cl::Option *option = entry.second;
    if (llvm::any_of(keep,
                     [&](const llvm::cl::OptionCategory *category) {
                       return llvm::is_contained(option->Categories, category);
                     }) ||
        entry.first().starts_with("mlir-") || entry.first() == "help" ||
        entry.first() == "version")
      continue;
    option->setHiddenFlag(llvm::cl::Hidden);
  }
}

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_COMMANDLINE_H
