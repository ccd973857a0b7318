//===- Status.cpp - errors of the runtime ---------------------------------===//

#include "gplace/Runtime/Status.h"

namespace gplace::runtime {

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

} // namespace gplace::runtime
