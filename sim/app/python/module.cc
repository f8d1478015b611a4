// The `infergrid._core` extension module (pybind11): the command runner of command_call.h for
// Python. infergrid/__init__.py turns keyword arguments into the command line and the printed
// JSON and written CSVs into dicts and tables; this file only crosses the language boundary.
// Exit code 2 (a usage error) raises ValueError, exit code 1 (bad input) RuntimeError, both with
// the command's one-line message.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "sim/app/cli/command_line.h"
#include "sim/app/python/command_call.h"
#include "sim/app/python/typed_json.h"

namespace py = pybind11;

namespace infergrid::python {
namespace {

const Command& Find(const std::string& name) {
  const Command* command = FindCommand(name);
  if (command == nullptr) throw py::value_error("infergrid: unknown command '" + name + "'");
  return *command;
}

std::string Result(const CommandOutcome& outcome) {
  if (outcome.exit_code == cli::kExitUsage) throw py::value_error(outcome.text);
  if (outcome.exit_code != cli::kExitOk) throw std::runtime_error(outcome.text);
  return outcome.text;
}

std::string Run(const std::string& name, const std::vector<std::string>& args) {
  const Command& command = Find(name);
  CommandOutcome outcome;
  {
    py::gil_scoped_release release;  // pure C++ from here
    outcome = CallCommand(command, args);
  }
  return Result(outcome);
}

std::string RunInChild(const std::string& name, const std::vector<std::string>& args) {
  const Command& command = Find(name);
  CommandOutcome outcome;
  {
    py::gil_scoped_release release;  // the child never touches Python; the parent only waits
    outcome = CallCommandInChild(command, args);
  }
  return Result(outcome);
}

std::vector<std::string> Flags(const std::string& name) {
  const Command& command = Find(name);
  std::vector<std::string> names;
  for (absl::string_view flag : command.flags.Names()) names.emplace_back(flag);
  for (const cli::FlagAlias& alias : command.flags.aliases()) names.push_back(alias.alias);
  return names;
}

}  // namespace
}  // namespace infergrid::python

PYBIND11_MODULE(_core, m) {
  m.doc() = "infergrid's commands run in-process (infergrid/__init__.py is the interface)";
  m.def("run", &infergrid::python::Run, py::arg("command"), py::arg("args"),
        "Runs an infergrid command on a command line in this process; returns what it prints.");
  m.def("run_in_child", &infergrid::python::RunInChild, py::arg("command"), py::arg("args"),
        "The same in a forked child process (one SimGrid engine per process).");
  m.def("flags", &infergrid::python::Flags, py::arg("command"),
        "The flag names and aliases the command accepts (underscores), as the binary's --help lists them.");
  m.def("typed_json", &infergrid::python::TypedJson, py::arg("message"), py::arg("json"),
        "A command's JSON as the proto message `message` (full name) types it: integers as int, doubles as float.");
}
