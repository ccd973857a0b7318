//===- CheckpointFuzzer.cpp - the checkpoint reader on arbitrary bytes ----===//
//
// Writes the input to a file and restores it, as gplace-run --restore does,
// into an executor of a plan with only variables (no steps) on the host
// CPU, one of each element type a checkpoint holds and several shapes
// (a scalar, a vector, a matrix, an empty tensor, a name with a '/'):
// libzip's reader, the entry size checks, the .npy decoder and the type
// checks. The executor is made once; a restore that succeeds must leave
// every variable with its type's bytes. Any outcome but a crash, a
// sanitizer report or a hang is fine. The committed seeds
// (fuzz/corpus/checkpoint) are NumPy's np.savez and np.savez_compressed of
// these variables (fuzz/make-seeds.py).
//
//===----------------------------------------------------------------------===//

#include "gplace/Runtime/Device.h"
#include "gplace/Runtime/Executor.h"
#include "gplace/Runtime/Plan.h"
#include "gplace/Tooling/Checkpoint.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace rt = gplace::runtime;
using gplace::ElementType;

namespace {

/// The variables: names and types the seeds' entries match.
struct Variable {
  const char *name;
  ElementType type;
  std::vector<int64_t> shape;
};
const Variable kVariables[] = {
    {"dense/kernel", ElementType::F32, {2, 3}},
    {"dense/bias", ElementType::F32, {3}},
    {"step", ElementType::I64, {}},
    {"count", ElementType::I32, {4}},
    {"scale", ElementType::F64, {2, 1}},
    {"half", ElementType::F16, {2}},
    {"mask", ElementType::I1, {3}},
    {"pixels", ElementType::UI8, {2, 2}},
    {"empty", ElementType::F32, {0, 2}},
};

rt::Executor &executor() {
  static rt::DeviceManager devices(rt::DeviceManager::Options{});
  static std::unique_ptr<rt::Executor> made = [] {
    rt::Plan plan;
    int64_t bytes = 0;
    for (const Variable &v : kVariables) {
      rt::PersistentDesc desc;
      desc.name = v.name;
      desc.isVariable = true;
      desc.initialValue = rt::HostTensor(rt::TensorType{v.type, v.shape});
      bytes += desc.initialValue.type.bytes() + 64;
      plan.persistents.push_back(std::move(desc));
    }
    plan.devices = {
        {"/job:localhost/replica:0/task:0/device:CPU:0", 0, bytes}};
    rt::StatusOr<std::unique_ptr<rt::Executor>> created =
        rt::Executor::create(std::move(plan), devices);
    if (!created)
      std::abort();
    return std::move(*created);
  }();
  return *made;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::string path = [] {
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/gplace-fuzz-checkpoint-" +
           std::to_string(::getpid()) + ".npz";
  }();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(data),
              static_cast<std::streamsize>(size));
  }
  rt::Executor &exec = executor();
  // With the global_step entry's reader too (a resumed training's).
  std::optional<int64_t> globalStep;
  if (!gplace::tooling::restoreCheckpoint(path, exec, &globalStep))
    return 0;
  if (globalStep && *globalStep < 0)
    std::abort();
  for (size_t i = 0; i < exec.numVariables(); ++i) {
    rt::StatusOr<rt::HostTensor> value = exec.readVariable(i);
    if (!value || value->type != exec.variableType(i) ||
        static_cast<int64_t>(value->data.size()) != value->type.bytes())
      std::abort();
  }
  return 0;
}
