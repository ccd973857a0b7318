//===- Plan.cpp - kernel names
//-----------------------------------------------===//

#include "gplace/Runtime/Plan.h"

#include <utility>

namespace gplace::runtime {

namespace {
const std::pair<std::string_view, Kernel> kKernelNames[] = {
    {"gplace.matmul", Kernel::MatMul},
    {"gplace.add", Kernel::Add},
    {"gplace.sub", Kernel::Sub},
    {"gplace.mul", Kernel::Mul},
    {"gplace.div", Kernel::Div},
    {"gplace.maximum", Kernel::Maximum},
    {"gplace.neg", Kernel::Neg},
    {"gplace.exp", Kernel::Exp},
    {"gplace.log", Kernel::Log},
    {"gplace.tanh", Kernel::Tanh},
    {"gplace.sigmoid", Kernel::Sigmoid},
    {"gplace.relu", Kernel::Relu},
    {"gplace.add_n", Kernel::AddN},
    {"gplace.bias_add", Kernel::BiasAdd},
    {"gplace.reduce_sum", Kernel::ReduceSum},
    {"gplace.reduce_mean", Kernel::ReduceMean},
    {"gplace.reduce_max", Kernel::ReduceMax},
    {"gplace.softmax", Kernel::Softmax},
    {"gplace.cast", Kernel::Cast},
    {"gplace.transpose", Kernel::Transpose},
    {"gplace.reshape", Kernel::Reshape},
    {"gplace.identity", Kernel::Identity},
    {"gplace.read", Kernel::Read},
    {"gplace.slice", Kernel::Slice},
    {"gplace.concat", Kernel::Concat},
    {"gplace.assign", Kernel::Assign},
    {"gplace.assign_add", Kernel::AssignAdd},
    {"gplace.assign_sub", Kernel::AssignSub},
};
} // namespace

bool isFusibleElementwise(Kernel kernel) {
  switch (kernel) {
  case Kernel::Add:
  case Kernel::Sub:
  case Kernel::Mul:
  case Kernel::Div:
  case Kernel::Maximum:
  case Kernel::Neg:
  case Kernel::Exp:
  case Kernel::Log:
  case Kernel::Tanh:
  case Kernel::Sigmoid:
  case Kernel::Relu:
  case Kernel::AddN:
  case Kernel::BiasAdd:
    return true;
  default:
    return false;
  }
}

std::optional<Kernel> kernelFromOpName(std::string_view opName) {
  for (const auto &[name, kernel] : kKernelNames)
    if (name == opName)
      return kernel;
  return std::nullopt;
}

std::string_view kernelOpName(Kernel kernel) {
  for (const auto &[name, k] : kKernelNames)
    if (k == kernel)
      return name;
  return "?";
}

} // namespace gplace::runtime
