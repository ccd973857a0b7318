//===- Checkpoint.h - save and restore variables by name --------*- C++ -*-===//
//
// A checkpoint is a NumPy .npz file: a zip archive (libzip) of one
// `<variable name>.npy` per variable, so `numpy.load("model.npz")
// ["dense/kernel"]` reads a weight. As TensorFlow's checkpoints, it holds
// values by name and nothing about devices: a model trained on one device
// restores on any other (docs/checkpoints.md).
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_TOOLING_CHECKPOINT_H
#define GPLACE_TOOLING_CHECKPOINT_H

#include "gplace/Runtime/Executor.h"
#include "gplace/Runtime/Status.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace gplace::tooling {

/// Writes every variable of `executor` to `path`, atomically: the archive
/// is written under a temporary name in the same directory, flushed to
/// disk (fsync), renamed over `path`, and the directory is synced, so a
/// run killed at any moment leaves the previous checkpoint or the new one,
/// never a torn file. Variables sharing a name (the copies of a mirrored
/// variable, one per replica) are saved once. Errors (invalid argument,
/// naming the file): any write, sync or rename failure; bf16 variables
/// (NumPy has no bf16); copies of one variable that differ; no variables
/// (TensorFlow's Saver: "No variables to save").
///
/// With `globalStep`, the archive also holds the entry `global_step.npy`
/// (kGlobalStepEntry), an int64 scalar: the training steps run so far, as
/// TensorFlow's `global_step` variable, from which a killed training
/// resumes (docs/training.md). A variable of the graph named `global_step`
/// (TensorFlow's, which the graph increments) takes the entry instead.
///
/// The entries are stored (not compressed), laid out by libzip and written
/// by the file's own buffered writer (large pwrite(2)s, not libzip's 4 KiB
/// stdio writes) to `.<name>.tmp<pid>` beside `path`; a write, fsync or
/// close that fails is an error naming that file and the system's reason
/// ("cannot write '/d/.m.npz.tmp42': No space left on device"), and the
/// file is removed. After the rename, the partial files of earlier
/// writers of `path` that were killed (`.<name>.tmp<pid>`, and
/// `.<name>.tmp<pid>.XXXXXX` that libzip's own file writer left before,
/// whose process is gone) are removed.
/// Checks, before any run, that saveCheckpoint(path, ...) can write every
/// variable of `plan`: its name makes a safe entry name and NumPy has a
/// dtype for its type. Errors (invalid argument) as saveCheckpoint words
/// them ("cannot save checkpoint 'm.npz': variable 'v': NumPy has no bf16
/// dtype").
runtime::Status checkSavable(const std::string &path,
                             const runtime::Plan &plan);

runtime::Status saveCheckpoint(const std::string &path,
                               const runtime::Executor &executor,
                               std::optional<int64_t> globalStep = {});

/// Checks, before compiling, that `path` names a regular file to restore
/// from. Errors (invalid argument): "cannot restore checkpoint '<path>': no
/// such file" (or "not a regular file").
runtime::Status checkRestorable(const std::string &path);

/// Sets every variable of `executor` from the entry of its name in the
/// checkpoint `path` (entries the graph lacks are ignored), all or none:
/// every entry is checked before any variable is written. Errors
/// (invalid argument): a file that is not an .npz, a variable missing from
/// the checkpoint (TensorFlow's "Key <name> not found in checkpoint"), an
/// entry whose type or shape differs from the variable's (naming the
/// variable and both types). With `globalStep`, sets it to the
/// checkpoint's `global_step` entry (std::nullopt for a checkpoint without
/// one, written before it existed, or when the graph has a variable of
/// that name that is not an int64 scalar: a graph's own int64
/// `global_step`, incremented each step as TensorFlow's, is the count); an
/// entry that is not an int64 scalar >= 0 is an error.
runtime::Status restoreCheckpoint(const std::string &path,
                                  runtime::Executor &executor,
                                  std::optional<int64_t> *globalStep = nullptr);

/// The entry that holds the training steps run (without ".npy").
inline constexpr const char *kGlobalStepEntry = "global_step";

/// Variables' values by name, in host memory.
using VariableValues = std::map<std::string, runtime::HostTensor>;

/// The value of each variable of `executor` named in `names`, by name (of
/// variables sharing a name, the first copy's): an initialisation
/// function's results for the entry's variables (gplace-run --init), read
/// before its plan is unloaded so that it and the entry's plan never hold
/// device memory at once. Variables of other names are not read. Errors:
/// the device's, reading a variable.
runtime::StatusOr<VariableValues>
readVariables(const runtime::Executor &executor,
              const std::set<std::string> &names);

/// Sets each variable of `to` that `initial` has (by name) to its value
/// there. Errors: a type or shape mismatch, naming the variable ("variable
/// 'w' is 3xf32 in the initialisation function but 4xf32 in the entry").
runtime::Status initializeVariables(const VariableValues &initial,
                                    runtime::Executor &to);

} // namespace gplace::tooling

#endif // GPLACE_TOOLING_CHECKPOINT_H
