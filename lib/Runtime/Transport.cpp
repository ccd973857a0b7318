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

gplace::runtime::StatusOr<int64_t>
gplace::runtime::Transport::startAllReduce(const std::vector<int> &ranks,
                                           void *data, int64_t count,
                                           bool f64) {
  GPLACE_RETURN_IF_ERROR(allReduce(ranks, data, count, f64));
  return int64_t(0);
}

gplace::runtime::Status
gplace::runtime::Transport::finishAllReduce(const std::vector<int> &,
                                            int64_t) {
  return Status::ok();
}
