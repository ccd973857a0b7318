//===- Transport.cpp - the process's transport ----------------------------===//

#include "gplace/Runtime/Transport.h"

#include <atomic>

namespace {
std::atomic<gplace::runtime::Transport *> processTransport{nullptr};
} // namespace

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

void gplace::runtime::setTransport(Transport *transport) {
  processTransport = transport;
}

gplace::runtime::Transport *gplace::runtime::getTransport() {
  return processTransport;
}
