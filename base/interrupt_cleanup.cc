#include "base/interrupt_cleanup.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>

namespace infergrid {
namespace {

constexpr size_t kSlots = 256;
constexpr size_t kPathBytes = 1024;

// A slot is free (0), being filled (1) or holds a path (2); the handler reads only state 2.
struct Slot {
  std::atomic<int> state{0};
  char path[kPathBytes] = {};
};

// Constant-initialized (no guard a signal handler could run into).
std::array<Slot, kSlots> g_slots;

std::array<Slot, kSlots>& Slots() { return g_slots; }

char g_who[256] = {};  // "infergrid simulate"
char g_what[512] = {};  // "; nothing was written"
std::atomic<int> g_commit_depth{0};
std::atomic<int> g_pending_signal{0};

void WriteAll(const char* text) {
  size_t left = strlen(text);
  while (left > 0) {
    const ssize_t n = write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<size_t>(n);
  }
}

void RemoveRegistered() {
  for (Slot& slot : Slots()) {
    if (slot.state.load() == 2) unlink(slot.path);
  }
  // Then the folders a run created (registered too): removed only when empty.
  for (Slot& slot : Slots()) {
    if (slot.state.load() == 2) rmdir(slot.path);
  }
}

void Exit(int signal_number, const char* what) {
  RemoveRegistered();
  WriteAll(g_who);
  WriteAll(signal_number == SIGINT ? ": interrupted by SIGINT" : ": interrupted by SIGTERM");
  WriteAll(what[0] != '\0' ? what : g_what);
  WriteAll("\n");
  _exit(128 + signal_number);
}

void OnSignal(int signal_number) {
  if (g_commit_depth.load() > 0) {
    g_pending_signal.store(signal_number);
    return;
  }
  Exit(signal_number, "");
}

}  // namespace

void InstallInterruptCleanup(absl::string_view who, absl::string_view what) {
  const size_t n = std::min(who.size(), sizeof g_who - 1);
  memcpy(g_who, who.data(), n);
  g_who[n] = '\0';
  const size_t m = std::min(what.size(), sizeof g_what - 1);
  memcpy(g_what, what.data(), m);
  g_what[m] = '\0';
  struct sigaction action = {};
  action.sa_handler = &OnSignal;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

void RegisterTemporary(const std::string& path) {
  if (path.size() >= kPathBytes) return;
  for (Slot& slot : Slots()) {
    int expected = 0;
    if (!slot.state.compare_exchange_strong(expected, 1)) continue;
    memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.state.store(2);
    return;
  }
}

void UnregisterTemporary(const std::string& path) {
  for (Slot& slot : Slots()) {
    if (slot.state.load() == 2 && path == slot.path) {
      slot.state.store(0);
      return;
    }
  }
}

CommitSection::CommitSection() { g_commit_depth.fetch_add(1); }

CommitSection::~CommitSection() {
  if (g_commit_depth.fetch_sub(1) == 1 && g_pending_signal.load() != 0) {
    Exit(g_pending_signal.load(), " while its files were being committed; the commit finished or was undone whole");
  }
}

}  // namespace infergrid
