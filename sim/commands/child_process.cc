#include "sim/commands/child_process.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace infergrid {
namespace {

bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> RunInChildProcess(const std::function<absl::StatusOr<std::string>()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  if (pid == 0) {
    close(fds[0]);
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
  std::string received;
  char buffer[65536];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0) received.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    return absl::InternalError(absl::StrCat("simulation process killed by signal ", WTERMSIG(status)));
  }
  if (received.empty() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return absl::InternalError(absl::StrCat("simulation process exited with code ",
                                            WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  }
  const auto code = static_cast<absl::StatusCode>(static_cast<unsigned char>(received[0]));
  if (code != absl::StatusCode::kOk) return absl::Status(code, received.substr(1));
  return received.substr(1);
}

}  // namespace infergrid
