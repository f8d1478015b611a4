#include "sim/app/accounting/result_parts.h"

#include "absl/strings/str_cat.h"
#include "sim/app/format/units.h"

namespace infergrid {

WeightStorage BuildWeightStorage(const AccountingSetup& setup) {
  WeightStorage weights;
  weights.set_format(setup.parameters.used() == "checkpoint" ? "checkpoint (as stored)" : setup.weights.label);
  weights.set_bytes_per_parameter(setup.weight_bytes / setup.parameters.count());
  weights.set_bytes(setup.weight_bytes);
  weights.set_raw_floor(setup.weights.IsRawFloor() && setup.parameters.used() != "checkpoint");
  return weights;
}

std::string ParameterLine(const ParameterCounts& p) {
  std::string line = absl::StrCat(format::Scientific(p.count()), " (", p.used());
  if (p.used() != "exact") absl::StrAppend(&line, "; exact from the architecture: ", format::Grouped(p.exact()));
  if (p.used() == "exact" && p.nominal() > 0)
    absl::StrAppend(&line, " = ", format::Grouped(p.exact()), "; nominal ", format::Scientific(p.nominal()));
  if (p.checkpoint() > 0 && p.used() != "checkpoint")
    absl::StrAppend(&line, "; checkpoint ", format::Grouped(p.checkpoint()));
  if (p.active_per_token() < p.count())
    absl::StrAppend(&line, "; active per token ", format::Scientific(p.active_per_token()));
  return line + ")";
}

std::string WeightLine(const WeightStorage& w) {
  std::string line = absl::StrCat(w.format(), ", ", format::Fixed(w.bytes_per_parameter(), 4), " B/param");
  if (w.raw_floor()) absl::StrAppend(&line, " (raw 4-bit payload: a floor, no scales or zero points)");
  return line;
}

void AddParameterNotes(const AccountingSetup& setup, google::protobuf::RepeatedPtrField<std::string>* notes) {
  const ParameterCounts& p = setup.parameters;
  if (p.used() == "nominal") {
    notes->Add(absl::StrCat("bytes and FLOPs use the nominal ", format::Scientific(p.nominal()),
                            " parameters; the architecture has ", format::Grouped(p.exact()), " (",
                            format::Fixed(100.0 * (p.exact() - p.nominal()) / p.nominal(), 1),
                            "% more): use --params=exact for capacity"));
  }
  if (setup.weights.IsRawFloor()) {
    notes->Add(
        "int4 raw is a floor: real 4-bit checkpoints add group scales and zero points "
        "(try --weight-dtype=int4-g128 or --quantization=awq)");
  }
}

}  // namespace infergrid
