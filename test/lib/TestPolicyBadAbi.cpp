//===- TestPolicyBadAbi.cpp - a plugin built for another ABI version ------===//

#include "gplace/Support/PlacementPolicy.h"

extern "C" int gplace_policy_abi_version(void) { return 999; }
extern "C" void gplace_register_placement_policies(gplace::PolicyRegistry *) {}
