//===- Transport.cpp - links between the tasks of a cluster ---------------===//

#include "gplace/Runtime/Transport.h"

#include <atomic>

gplace::runtime::Transport::~Transport() = default;

gplace::runtime::Status
gplace::runtime::Transport::prepareAllReduce(const std::vector<int> &) {
  return Status::unavailable("this transport has no collectives");
}

gplace::runtime::Status
gplace::runtime::Transport::allReduce(const std::vector<int> &, void *,
                                      int64_t, bool) {
  return Status::unavailable("this transport has no collectives");
}
