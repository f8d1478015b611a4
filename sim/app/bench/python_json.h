// JSON text exactly as Python's json module writes it, so a saved result reads byte for byte
// like the engine's own script wrote it: json.dumps(obj) (separators ", " and ": ") or
// json.dump(obj, f, indent=4), keys in insertion order, floats as Python's repr (the shortest
// text that reads back to the same double, exponent form below 1e-4 and from 1e16), non-ASCII
// escaped as \uXXXX, NaN and Infinity as Python spells them.
#ifndef INFERGRID_SIM_APP_BENCH_PYTHON_JSON_H_
#define INFERGRID_SIM_APP_BENCH_PYTHON_JSON_H_

#include <string>

#include "nlohmann/json.hpp"

namespace infergrid::bench {

using PyJson = nlohmann::ordered_json;

// repr(float(value)): "0.1", "3.0", "1e-05", "1e+16", "NaN", "-Infinity".
std::string PythonFloatRepr(double value);

// json.dumps(value) with indent < 0; json.dumps(value, indent=N) otherwise.
std::string DumpPythonJson(const PyJson& value, int indent = -1);

}  // namespace infergrid::bench

#endif  // INFERGRID_SIM_APP_BENCH_PYTHON_JSON_H_
