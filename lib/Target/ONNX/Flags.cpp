//===- Flags.cpp - the ONNX importer's command-line options ---------------===//
//
// Declared once, here, next to the options they fill (OnnxImportOptions):
// gplace-run and gplace-translate both take them from here.
//
//===----------------------------------------------------------------------===//

#include "gplace/Target/ONNX/ImportONNX.h"

#include "llvm/Support/CommandLine.h"

namespace cl = llvm::cl;

cl::OptionCategory &gplace::frontend::onnxImportCategory() {
  static cl::OptionCategory category(
      "ONNX models (an input file ending in .onnx, or --import-onnx; "
      "docs/onnx.md)");
  return category;
}

namespace {
cl::list<std::string>
    dims("dim",
         cl::desc("Fix a dynamic dimension of an ONNX model's inputs: NAME=N "
                  "for its dim_param NAME, or N for every input's leading "
                  "(batch) dimension (gplace-run takes the others from the "
                  "--input values)"),
         cl::value_desc("NAME=N"),
         cl::cat(gplace::frontend::onnxImportCategory()));
cl::opt<bool> initializersAsVariables(
    "initializers-as-variables",
    cl::desc("Import an ONNX model's floating-point initializers as "
             "variables (trainable, checkpointed) instead of constants"),
    cl::init(false), cl::cat(gplace::frontend::onnxImportCategory()));
cl::opt<bool> unrollRecurrent(
    "unroll-recurrent",
    cl::desc("Unroll ONNX RNN, GRU and LSTM nodes over the sequence into "
             "per-step ops even where one gplace.cudnn_rnn (oneDNN's RNN "
             "primitives) computes the layer"),
    cl::init(false), cl::cat(gplace::frontend::onnxImportCategory()));
} // namespace

gplace::frontend::OnnxImportOptions
gplace::frontend::onnxImportOptionsFromFlags() {
  OnnxImportOptions options;
  options.dims.assign(dims.begin(), dims.end());
  options.initializersAsVariables = initializersAsVariables;
  options.unrollRecurrent = unrollRecurrent;
  return options;
}
