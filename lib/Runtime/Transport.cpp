//===- Transport.cpp - the process's transport ----------------------------===//

#include "gplace/Runtime/Transport.h"

#include <atomic>

namespace {
std::atomic<gplace::runtime::Transport *> processTransport{nullptr};
} // namespace

gplace::runtime::Transport::~Transport() = default;

void gplace::runtime::setTransport(Transport *transport) {
  processTransport = transport;
}

gplace::runtime::Transport *gplace::runtime::getTransport() {
  return processTransport;
}
