// Renders a MeasurementSet as protobuf text format of `infergrid.Measurements`
// (calibration/measurements.proto), and writes it atomically (temporary name, then rename).
// Hand-written so that the calibration binary needs no protobuf library; the test parses the
// output with the real proto (unknown fields are errors there), which keeps the two in step.
#ifndef INFERGRID_KERNELS_TEXTPROTO_WRITER_H_
#define INFERGRID_KERNELS_TEXTPROTO_WRITER_H_

#include <string>

#include "kernels/measurement_types.h"

namespace infergrid::calib {

// The whole set, with the "# proto-file:" / "# proto-message:" header lines.
std::string ToTextProto(const MeasurementSet& set);

// A string literal in text format: quoted, with \\, \", \n, \t and non-printable bytes
// escaped (octal), so any host name or note survives the round trip.
std::string QuoteTextProtoString(const std::string& value);

// A double as text format reads it: shortest round-trip digits, "inf", "-inf", "nan".
std::string FormatTextProtoDouble(double value);

// Writes `contents` to `path` through `path`.tmp.<pid> and rename(2). Returns an empty
// string on success, else a message naming the path and the system error.
std::string WriteFileAtomically(const std::string& path, const std::string& contents);

}  // namespace infergrid::calib

#endif  // INFERGRID_KERNELS_TEXTPROTO_WRITER_H_
