//===- Status.h - errors of the runtime -------------------------*- C++ -*-===//
//
// The runtime's names for Support's Status, StatusOr and StatusCode
// (gplace/Support/Status.h), which the runtime, the tools and the readers
// of files share.
//
//===----------------------------------------------------------------------===//

#ifndef GPLACE_RUNTIME_STATUS_H
#define GPLACE_RUNTIME_STATUS_H

#include "gplace/Support/Status.h"

namespace gplace::runtime {
using gplace::Status;
using gplace::StatusCode;
using gplace::statusCodeName;
using gplace::StatusOr;
} // namespace gplace::runtime

#endif // GPLACE_RUNTIME_STATUS_H
