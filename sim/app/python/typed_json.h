// A command's printed JSON as Python values typed by the proto message it prints: the proto3
// JSON mapping writes 64-bit integers as strings ("seed": "0") and whole doubles without a
// decimal point (4), so json.loads alone gives str, int or float by accident of the value.
// Here the field's type decides: every integer type is a Python int, double and float a Python
// float (NaN and infinities included), bool a bool, string and enum a str, bytes bytes; repeated
// fields are lists, maps dicts, messages dicts. The fields are the ones the JSON printer writes
// (scalars always, a message or a proto3 `optional` scalar only when set), under their proto names.
#ifndef INFERGRID_SIM_APP_PYTHON_TYPED_JSON_H_
#define INFERGRID_SIM_APP_PYTHON_TYPED_JSON_H_

#include <pybind11/pybind11.h>

#include <string>

namespace infergrid::python {

// `message` is the full name ("infergrid.SimulationSummary") of a message linked into the module.
// Throws ValueError for an unknown name or JSON that is not that message.
pybind11::object TypedJson(const std::string& message, const std::string& json);

}  // namespace infergrid::python

#endif  // INFERGRID_SIM_APP_PYTHON_TYPED_JSON_H_
