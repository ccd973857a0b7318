//===- Report.cpp - a tool's errors and exit codes ------------------------===//

#include "gplace/Tooling/Report.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace mlir;
using namespace gplace::tooling;
namespace rt = gplace::runtime;

int gplace::tooling::finishStdout(llvm::StringRef tool, int code) {
  llvm::raw_fd_ostream &out = llvm::outs();
  out.flush();
  if (!out.has_error())
    return code;
  std::string message = out.error().message();
  out.clear_error(); // Else its destructor reports a fatal error.
  llvm::errs() << tool << ": error: cannot write to stdout: " << message
               << "\n";
  return code ? code : 1;
}

int gplace::tooling::exitCode(rt::StatusCode code) {
  switch (code) {
  case rt::StatusCode::OutOfMemory:
    return 3;
  case rt::StatusCode::Unavailable:
    return 4;
  case rt::StatusCode::Internal:
    return 5;
  default:
    return 1;
  }
}

/// Writes `text` to stderr with as few write(2) calls as it takes (one,
/// but for a signal or a full pipe).
static void writeStderr(llvm::StringRef text) {
  llvm::errs().flush();
  while (!text.empty()) {
    ssize_t written = ::write(2, text.data(), text.size());
    if (written <= 0)
      return;
    text = text.drop_front(written);
  }
}

int Reporter::fail(const rt::Status &status) const {
  if (status.message().empty())
    return exitCode(status.code());
  std::string prefix =
      status.code() != rt::StatusCode::InvalidArgument
          ? std::string(rt::statusCodeName(status.code())) + ": "
          : "";
  // One write(2) per message, colored as LLVM's errors where stderr is a
  // terminal: processes that share stderr (mpirun's tasks, before they
  // know they are a cluster) do not interleave within a line.
  std::string text;
  llvm::raw_string_ostream os(text);
  os.enable_colors(llvm::errs().has_colors());
  llvm::WithColor::error(os, tool_) << prefix << status.message() << "\n";
  writeStderr(text);
  return exitCode(status.code());
}

int Reporter::failAsIs(llvm::StringRef text) const {
  writeStderr(text);
  return 1;
}

int Reporter::fail(const llvm::Twine &message) const {
  return fail(rt::Status::invalidArgument(message.str()));
}

namespace {
/// The text a diagnostic is printed to before its one write.
struct DiagnosticText {
  std::string text;
  llvm::raw_string_ostream os{text};
};
/// SourceMgrDiagnosticHandler's format, each diagnostic with its notes
/// written at once.
class OneWriteDiagnosticHandler : private DiagnosticText,
                                  public SourceMgrDiagnosticHandler {
public:
  OneWriteDiagnosticHandler(llvm::SourceMgr &mgr, MLIRContext *context)
      : SourceMgrDiagnosticHandler(mgr, context, DiagnosticText::os) {
    setHandler([this](Diagnostic &diag) {
      emitDiagnostic(diag);
      writeStderr(text);
      text.clear();
      return success();
    });
  }
};
} // namespace

std::shared_ptr<SourceMgrDiagnosticHandler>
Reporter::handleDiagnostics(llvm::SourceMgr &sourceMgr,
                            MLIRContext *context) const {
  if (oneWrite_)
    return std::make_shared<OneWriteDiagnosticHandler>(sourceMgr, context);
  return std::make_shared<SourceMgrDiagnosticHandler>(sourceMgr, context);
}
