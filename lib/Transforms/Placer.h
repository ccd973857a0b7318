//===- Placer.h - the placer of one function, for Place*.cpp ----*- C++ -*-===//
//
// Private to --gplace-place: the placer of one function (TensorFlow's rules
// over colocation groups, Place.cpp) and its policy=auto side (PlaceAuto.cpp:
// the function described to the m-ETF analysis of AutoPlacement.h, its
// answer verified and applied).
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_LIB_TRANSFORMS_PLACER_H
#define GPLACE_LIB_TRANSFORMS_PLACER_H

#include "gplace/Dialect/Graph/GraphDialect.h"
#include "gplace/Support/DeviceName.h"
#include "gplace/Support/PlacementPolicy.h"
#include "gplace/Support/PlacementReport.h"
#include "gplace/Transforms/AutoPlacement.h"
#include "gplace/Transforms/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/IntEqClasses.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace gplace::detail {

/// A set of device types, one bit each.
using TypeMask = unsigned;
inline TypeMask maskOf(DeviceType type) {
  return 1u << static_cast<unsigned>(type);
}
constexpr TypeMask kAnyType = (1u << static_cast<unsigned>(DeviceType::GPU)) |
                              (1u << static_cast<unsigned>(DeviceType::CPU));

/// Places the graph ops of one function.
class FunctionPlacer {
public:
  /// `autoProfile`: place the ops without a request by the cost model
  /// under the devices' memory limits (policy=auto) with these rates.
  FunctionPlacer(mlir::func::FuncOp func, const DeviceSet &devices,
                 std::optional<PolicyFn> policy, std::string policyName,
                 bool allowSoftPlacement,
                 const CostProfile *autoProfile = nullptr)
      : func_(func), devices_(devices.devices()), deviceSet_(devices),
        policy_(std::move(policy)), policyName_(std::move(policyName)),
        allowSoftPlacement_(allowSoftPlacement), autoProfile_(autoProfile) {}

  /// Places every op. Reports every error and returns failure if any.
  mlir::LogicalResult run();
  /// Writes `assigned_device` on every op.
  void writeAssignedDevices();
  /// Prints one log line per op, in textual order:
  /// `name: (TensorFlowType): /job:.../device:GPU:0`.
  void printLog(llvm::raw_ostream &os) const;
  /// Appends one decision per op, in textual order, to `report`: the device
  /// and the rule that chose it, with a short reason (after run()
  /// succeeded).
  void report(PlacementReport &report) const;

private:
  /// A device request and its text as written (for messages).
  struct Request {
    DeviceName name;
    std::string text;
    bool fromPolicy = false; ///< The placement policy's answer, not the user's.
    bool fromScope = false;  ///< The function's gplace.default_device alone.
  };
  struct OpInfo {
    mutable graph::PlacedOpInterface op; // Interface calls are non-const.
    unsigned index = 0;
    int request = -1;         ///< Into requests_; -1 for none.
    TypeMask kernels = 0;     ///< Device types with a kernel for the op.
    unsigned elementType = 0; ///< Into elementTypes_.
    int assigned = -1;        ///< Into devices_: its valid assigned_device.
    /// Into softReasons_: why its request yielded to its resource's group
    /// (the placement log says it); -1 if it did not.
    int yieldReason = -1;
    /// Its traits and resource edges, found once by collect() (hasTrait
    /// takes the TypeID of each of the op's traits on every call).
    bool controlOnly = false;       ///< Has the ControlOnly trait.
    bool forwardsInput = false;     ///< Has the ForwardsInput trait.
    bool usesAResource = false;     ///< See usesResource().
    bool declaresAResource = false; ///< See declaresResource().
  };
  struct Group {
    int request = -1;           ///< Into requests_; -1 for none.
    unsigned requestMember = 0; ///< The first member with a request.
    int assigned = -1;          ///< Into devices_: the members' assigned one.
    unsigned assignedMember = 0;
    unsigned first = 0;         ///< The first member in textual order.
    unsigned size = 0;
    TypeMask kernels = kAnyType;
    int device = -1;
    int softReason = -1; ///< Into softReasons_; -1 if not soft-placed.
    /// The rule that chose `device` (the report's; Heuristic with a request
    /// is reported as the request, refined by the heuristic).
    PlacementRule rule = PlacementRule::Priority;
    /// For a heuristic: the op it followed (its consumer, or its producer),
    /// or -1.
    int heuristicOp = -1;
    bool heuristicConsumer = false; ///< heuristicOp is a consumer.
    bool failed = false;
  };

  mlir::LogicalResult collect();
  /// The colocation classes (union-find over resource edges and
  /// `colocate_with`), and groups_ sized to them.
  void buildClasses();
  mlir::LogicalResult applyPolicy();
  /// Per group: its members' kernels, assigned devices and requests.
  mlir::LogicalResult buildGroups();
  /// The op uses a resource (a data operand of resource type).
  bool usesResource(const OpInfo &info) const;
  /// The op declares a resource (TensorFlow's resource generator: a
  /// resource result and no resource operand), e.g. gplace.variable.
  bool declaresResource(const OpInfo &info) const;
  mlir::LogicalResult place();
  /// policy=auto: the ops without a full request placed by the m-ETF
  /// analysis (placeAutomatically), its assignment verified and applied.
  mlir::LogicalResult placeAuto();
  /// What placeAutomatically needs of this function.
  AutoPlacementProblem describeAuto();
  /// What TensorFlow's rules give a group: a device (kept, requested,
  /// soft-placed or first by priority), or -1 and the error, in
  /// TensorFlow's words, and the member it is reported at.
  struct RuleOutcome {
    int device = -1;
    std::string softReason; ///< Why soft placement chose it; "" if not.
    PlacementRule rule = PlacementRule::Priority; ///< What chose `device`.
    unsigned errorOp = 0;
    std::string error;
    int noteOp = -1;  ///< A note at this op (the one that asked), if >= 0.
    std::string note;
  };
  RuleOutcome applyRules(const Group &group) const;
  /// Places `group` by applyRules, reporting its error.
  mlir::LogicalResult placeGroup(Group &group);
  /// After placeGroup soft-placed `group`: moves it to `device` (the device
  /// a heuristic prefers, or -1) if soft placement allows that device.
  void preferSoftCandidate(Group &group, int device) const;
  /// Errors reported per function before placement stops.
  static constexpr unsigned kMaxErrors = 20;
  /// Counts one more error in `errors`; at the kMaxErrors-th, reports that
  /// placement of the function stopped and returns true.
  bool tooManyErrors(unsigned &errors) {
    if (++errors < kMaxErrors)
      return false;
    mlir::emitError(func_.getLoc()) << "placement stopped after " << kMaxErrors
                                    << " errors in this function";
    return true;
  }
  int firstDevice(const DeviceName &request, TypeMask kernels) const;
  bool canPlaceOn(const Group &group, int device) const;
  TypeMask deviceTypes() const;
  bool isGenerator(const OpInfo &info) const;
  std::string describeKernels(const Group &group, TypeMask wanted) const;
  /// Why `group` is on its device, for the report, told at op `at` (one of
  /// its members); sets `rule`.
  std::string groupReason(const Group &group, const OpInfo &at,
                          PlacementRule &rule) const;
  int addRequest(DeviceName name, std::string text) {
    requests_.push_back({std::move(name), std::move(text)});
    return requests_.size() - 1;
  }
  /// The op's name, user-given or TensorFlow's default; computed on first
  /// use (messages, the log, policies), as most runs need none.
  const std::string &name(unsigned index) const {
    if (names_.empty())
      names_ = graph::getOpNames(func_);
    return names_[index];
  }

  mlir::func::FuncOp func_;
  const std::vector<DeviceName> &devices_;
  const DeviceSet &deviceSet_;
  std::optional<PolicyFn> policy_;
  std::string policyName_;
  bool allowSoftPlacement_;
  const CostProfile *autoProfile_;

  std::vector<OpInfo> ops_;
  std::vector<Request> requests_;
  std::vector<std::string> elementTypes_; ///< "f32", ...; "" for typeless.
  std::vector<std::string> softReasons_;
  mutable std::vector<std::string> names_;
  mutable TypeMask deviceTypes_ = 0; ///< Of devices_; computed on first use.
  llvm::DenseMap<mlir::Operation *, unsigned> index_;
  llvm::IntEqClasses classes_;
  std::vector<Group> groups_; ///< Indexed by colocation class.
};

} // namespace gplace::detail

#endif // GPLACE_LIB_TRANSFORMS_PLACER_H
