//===- Status.cpp - errors of the runtime and its readers -----------------===//

#include "gplace/Support/Status.h"

namespace gplace {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "ok";
  case StatusCode::InvalidArgument:
    return "invalid argument";
  case StatusCode::OutOfMemory:
    return "out of memory";
  case StatusCode::Unavailable:
    return "unavailable";
  case StatusCode::Internal:
    return "internal error";
  }
  return "error";
}

} // namespace gplace
