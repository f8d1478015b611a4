#include "sim/app/run/child_process.h"

#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"

namespace infergrid {

const cli::FlagGroup<JobsFlags>& JobsFlagGroup() {
  static const cli::FlagGroup<JobsFlags>* group =
      &(*new cli::FlagGroup<JobsFlags>())
           .Add("jobs", &JobsFlags::jobs, "simulations run at once (0: the CPUs this process may use)");
  return *group;
}

namespace {

bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

absl::StatusOr<ChildProcess> ChildProcess::Start(const std::function<absl::StatusOr<std::string>()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(fds[0]);
    close(fds[1]);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(error)));
  }
  if (pid == 0) {
    close(fds[0]);
    // An orphaned simulation would run on, unseen, and compete with the rerun that replaces
    // it: die with the parent (and if it is already gone, at once).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(4);
    // The parent alone answers SIGINT (it removes the run's temporaries, says so and exits, which
    // kills this child); the parent's handler, inherited, would remove the parent's files here.
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_DFL);
    absl::StatusOr<std::string> result = body();
    // One byte of status code, then the value or the message.
    std::string message(1, static_cast<char>(result.status().code()));
    message += result.ok() ? *result : std::string(result.status().message());
    const bool ok = WriteAll(fds[1], message);
    close(fds[1]);
    std::fflush(nullptr);
    _exit(ok ? 0 : 3);
  }
  close(fds[1]);
  return ChildProcess(pid, fds[0]);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), fd_(other.fd_), received_(std::move(other.received_)) {
  other.pid_ = -1;
  other.fd_ = -1;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    Abandon();
    pid_ = other.pid_;
    fd_ = other.fd_;
    received_ = std::move(other.received_);
    other.pid_ = -1;
    other.fd_ = -1;
  }
  return *this;
}

ChildProcess::~ChildProcess() { Abandon(); }

void ChildProcess::Abandon() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  pid_ = -1;
}

bool ChildProcess::ReadAvailable() {
  char buffer[65536];
  const ssize_t n = read(fd_, buffer, sizeof buffer);
  if (n > 0) {
    received_.append(buffer, static_cast<size_t>(n));
    return false;
  }
  return !(n < 0 && errno == EINTR);
}

absl::StatusOr<std::string> ChildProcess::Finish() {
  close(fd_);
  fd_ = -1;
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (WIFSIGNALED(status)) {
    return absl::InternalError(absl::StrCat("simulation process killed by signal ", WTERMSIG(status)));
  }
  if (received_.empty() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(
        absl::StrCat("simulation process exited with code ", WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  }
  const auto code = static_cast<absl::StatusCode>(static_cast<unsigned char>(received_[0]));
  if (code != absl::StatusCode::kOk) return absl::Status(code, received_.substr(1));
  return received_.substr(1);
}

absl::StatusOr<std::string> RunInChildProcess(const std::function<absl::StatusOr<std::string>()>& body) {
  absl::StatusOr<ChildProcess> child = ChildProcess::Start(body);
  if (!child.ok()) return child.status();
  while (!child->ReadAvailable()) {
  }
  return child->Finish();
}

absl::Status RunConcurrently(const ConcurrentRuns& runs) {
  struct Active {
    size_t index;
    ChildProcess child;
  };
  std::vector<Active> active;
  size_t next = 0;
  const size_t jobs = static_cast<size_t>(std::max(1, runs.jobs));
  while (next < runs.count || !active.empty()) {
    while (active.size() < jobs && next < runs.count) {
      const size_t index = next++;
      if (runs.prepare) {
        if (absl::Status s = runs.prepare(index); !s.ok()) return s;
      }
      absl::StatusOr<ChildProcess> child = ChildProcess::Start([&runs, index]() { return runs.body(index); });
      if (!child.ok()) return child.status();
      active.push_back({index, *std::move(child)});
    }
    std::vector<pollfd> fds;
    for (const Active& a : active) fds.push_back({a.child.fd(), POLLIN, 0});
    const int ready = poll(fds.data(), fds.size(), 1000);
    if (ready < 0 && errno != EINTR) return absl::InternalError(absl::StrCat("poll: ", std::strerror(errno)));
    std::set<size_t> ended;  // positions in `active`
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents != 0 && active[i].child.ReadAvailable()) ended.insert(i);
    }
    for (auto it = ended.rbegin(); it != ended.rend(); ++it) {
      Active& a = active[*it];
      const size_t index = a.index;
      absl::StatusOr<std::string> result = a.child.Finish();
      active.erase(active.begin() + static_cast<std::ptrdiff_t>(*it));
      if (absl::Status s = runs.finished(index, std::move(result)); !s.ok()) return s;
    }
    if (runs.tick) runs.tick();
  }
  return absl::OkStatus();
}

absl::StatusOr<int> JobsFromFlags(const cli::FlagValues& flags) {
  const JobsFlags jobs_flags = JobsFlagGroup().Read(flags);
  constexpr int kMaxJobs = 4096;
  const int32_t jobs = jobs_flags.jobs;
  if (jobs < 0 || jobs > kMaxJobs) {
    return cli::UsageError(absl::StrCat("--jobs=", jobs, ": expected 0 (the CPUs) to ", kMaxJobs));
  }
  if (jobs > 0) return jobs;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

}  // namespace infergrid
