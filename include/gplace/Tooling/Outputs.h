//===- Outputs.h - gplace-run's files written after a run -------*- C++ -*-===//
//
// `--output=@FILE.npy` and `--save=FILE.npz` are written after the run,
// which may be hours of training: their paths are checked before it, and
// several outputs are written all or none.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_OUTPUTS_H
#define GPLACE_TOOLING_OUTPUTS_H

#include "gplace/Runtime/Status.h"
#include "gplace/Runtime/Tensor.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>

namespace gplace::tooling {

/// Checks, before a run, that a file can later be written at `path`: it is
/// not a directory, and a file can be created (and is removed again) in its
/// directory, where writeNpy and saveCheckpoint write theirs first. An
/// existing device or pipe passes as it is. Errors (invalid argument):
/// "cannot write '<path>': <why>" (TensorFlow's Saver finds a missing
/// directory only when it saves, after the training).
runtime::Status checkWritable(const std::string &path);

/// Writes `tensors[i]` to `paths[i]` as .npy files (writeNpy), all or none:
/// each goes to a temporary file beside its path, and only when every one
/// is written are they renamed over the paths; on an error the temporary
/// files are removed and no path is touched. Devices and pipes are written
/// in place, after the temporary files and before the renames. Errors:
/// writeNpy's, naming the path; a failed rename (the paths before it are
/// then already replaced).
runtime::Status writeNpyFiles(llvm::ArrayRef<std::string> paths,
                              llvm::ArrayRef<runtime::HostTensor> tensors);

/// Writes `bytes` to `path` whole or not at all: to a temporary file beside
/// it, renamed over it once written (an existing file is replaced only
/// then; a failure leaves it as it was). A device or pipe is written in
/// place, never replaced. Errors (invalid argument): "cannot write
/// '<path>': <why>".
runtime::Status writeFileAtomically(const std::string &path,
                                    llvm::StringRef bytes);

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_OUTPUTS_H
