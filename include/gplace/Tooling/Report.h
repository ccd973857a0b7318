//===- Report.h - a tool's errors and exit codes ----------------*- C++ -*-===//
//
// How gplace-run reports a failure (docs/gplace-run.md): `<tool>: error: `
// and the status's message, prefixed with its code's name unless the input
// is at fault, and an exit code per kind of failure. Each message is
// written with one write(2): the tasks of a cluster share mpirun's stderr,
// and their messages must not interleave within a line (in a cluster MLIR's
// diagnostics are written so too: setOneWritePerMessage).
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_REPORT_H
#define GPLACE_TOOLING_REPORT_H

#include "gplace/Runtime/Status.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/Twine.h"

#include <memory>
#include <string>

namespace llvm {
class SourceMgr;
} // namespace llvm

namespace gplace::tooling {

/// The exit code of a failure of `code`: 1 invalid input (file, flags,
/// graph, inputs), 3 out of memory, 4 unavailable (a device or library the
/// run needs), 5 internal error.
int exitCode(runtime::StatusCode code);

/// Flushes stdout (llvm::outs()) before a tool exits with `code`, and
/// returns `code`, or 1 for a success whose output could not be written:
/// a full disk or a closed stdout is then "<tool>: error: cannot write to
/// stdout: No space left on device", not LLVM's "IO failure on output
/// stream" from the stream's destructor.
int finishStdout(llvm::StringRef tool, int code);

/// An error already reported, as MLIR's diagnostics through the context:
/// a status with no message, which Reporter::fail does not print.
inline runtime::Status
reportedError(runtime::StatusCode code = runtime::StatusCode::InvalidArgument) {
  return runtime::Status::error(code, "");
}

/// A tool's error reports on stderr.
class Reporter {
public:
  explicit Reporter(llvm::StringRef tool) : tool_(tool.str()) {}

  /// From now on, each message is written with one write(2) (the tasks of
  /// a cluster share stderr).
  void setOneWritePerMessage(bool value) { oneWrite_ = value; }
  bool oneWritePerMessage() const { return oneWrite_; }

  /// Prints `status` as the tool's error (nothing for a reportedError) and
  /// returns its exit code.
  int fail(const runtime::Status &status) const;
  /// Prints `message` as an invalid-argument error and returns 1.
  int fail(const llvm::Twine &message) const;
  /// Prints `text` (already formatted, as LLVM's command-line errors) in
  /// one write and returns 1.
  int failAsIs(llvm::StringRef text) const;

  /// MLIR's diagnostics of `context` as SourceMgrDiagnosticHandler prints
  /// them (file, line, the source line and a caret), each diagnostic and
  /// its notes written at once where oneWritePerMessage. Keep the handler
  /// alive while the context reports. (A shared_ptr: it deletes the
  /// handler as the type it was made, whose base's destructor is not
  /// virtual.)
  std::shared_ptr<mlir::SourceMgrDiagnosticHandler>
  handleDiagnostics(llvm::SourceMgr &sourceMgr,
                    mlir::MLIRContext *context) const;

private:
  std::string tool_;
  bool oneWrite_ = false;
};

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_REPORT_H
